package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/session"
)

// Permission requests from the command line. A turn that asks waits in its
// own process, but the request is kept by the store: sessions pending lists
// them all, and sessions approve and deny answer one through an engine on
// the store (app.Observer), which the waiting turn, polling the store,
// takes up. A request is answerable only while the process that asked is
// running and holds the session (session.Approval.Live); one whose process
// died is shown stale, and the session's next turn withdraws it.

// answersHelp is the part of the help of approve and deny about what
// answers what. The catalogue also holds their whole long help, which this
// is part of.
func (c *cli) answersHelp() string {
	return c.tr("PERMISSION is the request's number in the session (3) or its full id (ID/3), as moteur sessions\n" +
		"pending lists them. The turn that asked, in whichever process runs it, resumes with the answer.\n" +
		"A request is answered once: a second answer, from here or anywhere else, is refused and says\n" +
		"who answered first and how. A request whose process stopped can no longer be answered (the\n" +
		"session's next turn withdraws it, and the model is told the call was not run).\n\n" +
		"Exit status: 0 when the answer was taken, 1 when it was not (unknown request, already answered\n" +
		"or withdrawn, the turn no longer running, --network for a call outside the sandbox), 2 on bad usage.")
}

func (c *cli) sessionsPendingCmd() *cobra.Command {
	var asJSON bool
	var sessionID string
	cmd := &cobra.Command{
		Use:   "pending [flags]",
		Short: c.tr("List the permission requests waiting for an answer"),
		Long: c.tr("List the permission requests that turns are waiting on, in every session (or the one --session\n" +
			"names), oldest first: the session, the request's number, the tool, its risk, when it was asked,\n" +
			"whether it can still be answered, and what the call does. A request is live while the process\n" +
			"that asked runs; stale once that process stopped (\"stale: pid N on host H stopped\"): it can no\n" +
			"longer be answered, and the session's next turn withdraws it.\n" +
			"Answer a live one with moteur sessions approve ID N or moteur sessions deny ID N.\n\n" +
			"With --json, print one JSON array of objects with the keys id, session_id, number, call_id,\n" +
			"tool, summary, risk, sandboxed, asked_at, live, host and pid."),
		Example: "  moteur sessions pending\n" +
			"  moteur sessions pending --json --session s-20260101T120000-0123456789abcdef",
		Args: c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return failure(c.sessionsPending(cmd.Context(), sessionID, asJSON))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print a JSON array of requests"))
	cmd.Flags().StringVar(&sessionID, "session", "", c.tr("list the requests of this session only"))
	return cmd
}

// pendingJSON is a request in the --json output of sessions pending.
type pendingJSON struct {
	ID        string    `json:"id"`
	SessionID string    `json:"session_id"`
	Number    uint64    `json:"number"`
	CallID    string    `json:"call_id"`
	Tool      string    `json:"tool"`
	Summary   string    `json:"summary"`
	Risk      string    `json:"risk"`
	Sandboxed bool      `json:"sandboxed"`
	AskedAt   time.Time `json:"asked_at"`
	Live      bool      `json:"live"`
	Host      string    `json:"host"`
	PID       int       `json:"pid"`
}

func (c *cli) sessionsPending(ctx context.Context, sessionID string, asJSON bool) error {
	if sessionID != "" {
		if err := c.checkSessionID(sessionID); err != nil {
			return err
		}
	}
	reqs, err := c.pendingApprovals(ctx, sessionID)
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]pendingJSON, 0, len(reqs))
		for _, a := range reqs {
			out = append(out, pendingJSON{ID: a.ID, SessionID: a.SessionID, Number: a.Number, CallID: a.CallID,
				Tool: a.Tool, Summary: a.Summary, Risk: a.Risk, Sandboxed: a.Sandboxed, AskedAt: a.Requested,
				Live: a.Live, Host: a.Host, PID: a.PID})
		}
		return c.writeJSON(out)
	}
	if len(reqs) == 0 {
		_, err := fmt.Fprintln(c.stderr, c.tr("no pending permission requests"))
		return err
	}
	return c.writePendingTable(reqs)
}

// pendingApprovals reads the pending requests of session id, or of every
// session for "". A data directory with no store has none; a session the
// store does not have is "session ID not found".
func (c *cli) pendingApprovals(ctx context.Context, id string) ([]session.Approval, error) {
	st, err := c.storeForReading(ctx)
	switch {
	case err != nil:
		return nil, err
	case st == nil && id != "":
		return nil, c.errSessionNotFound(id)
	case st == nil:
		return nil, nil
	}
	defer st.Close()
	reqs, err := st.PendingApprovals(ctx, id)
	if err != nil {
		return nil, c.notFound(id, err)
	}
	return reqs, nil
}

// writePendingTable prints the columns SESSION, N, TOOL, RISK, ASKED,
// STATE and SUMMARY, the summary cut to the terminal's width (80 runes
// when stdout is not a terminal). Times are relative on a terminal, RFC
// 3339 otherwise.
func (c *cli) writePendingTable(reqs []session.Approval) error {
	tty := isTerminal(c.stdout)
	now := c.now()
	rows := [][]string{{"SESSION", "N", "TOOL", "RISK", "ASKED", "STATE", "SUMMARY"}}
	for _, a := range reqs {
		asked := a.Requested.Local().Format(time.RFC3339)
		if tty {
			asked = agoIn(c.lang, now, a.Requested)
		}
		rows = append(rows, []string{a.SessionID, strconv.FormatUint(a.Number, 10), oneLine(a.Tool, 40),
			oneLine(a.Risk, 20), asked, c.requestState(a), a.Summary})
	}
	last := len(rows[0]) - 1
	widths := make([]int, last)
	for _, r := range rows {
		for i := range widths {
			widths[i] = max(widths[i], utf8.RuneCountInString(r[i]))
		}
	}
	summaryWidth := 80
	if w, ok := terminalWidth(c.stdout); ok {
		used := 0
		for _, n := range widths {
			used += n + 2
		}
		summaryWidth = max(20, w-used-1)
	}
	w := bufio.NewWriter(c.stdout)
	for n, r := range rows {
		for i, cell := range r[:last] {
			if tty {
				cell = cleanTerminal(cell)
			}
			fmt.Fprintf(w, "%-*s  ", widths[i], cell)
		}
		summary := r[last]
		if n > 0 {
			summary = oneLine(summary, summaryWidth)
			if tty {
				summary = cleanTerminal(summary)
			}
		}
		fmt.Fprintln(w, summary)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf(c.tr("write output: %w"), err)
	}
	return nil
}

// requestState says whether a pending request can still be answered.
func (c *cli) requestState(a session.Approval) string {
	if a.Live {
		return c.tr("live")
	}
	return c.trf("stale: pid %d on host %s stopped", a.PID, a.Host)
}

// terminalWidth is the width of w when it is a terminal.
func terminalWidth(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	return width, err == nil
}

type approveFlags struct {
	remember bool
	network  bool
}

func (c *cli) sessionsApproveCmd(g *globalFlags) *cobra.Command {
	f := &approveFlags{}
	cmd := &cobra.Command{
		Use:   "approve ID PERMISSION [--remember] [--network]",
		Short: c.tr("Allow a call that a running turn waits on"),
		Long: c.tr("Allow the call that permission request PERMISSION of session ID asks about, as y at the question\n"+
			"would. --remember also allows the same call for the rest of the session (a); --network runs a\n"+
			"sandboxed shell command with the network, for this call only (w), and is refused for any other.\n\n") +
			c.answersHelp(),
		Example: "  moteur sessions approve s-20260101T120000-0123456789abcdef 3\n" +
			"  moteur sessions approve s-20260101T120000-0123456789abcdef/3 --remember",
		Args: c.exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.answerRequest(cmd.Context(), g, args[0], args[1],
				engine.Reply{Allow: true, Remember: f.remember, Network: f.network}))
		},
	}
	cmd.Flags().BoolVar(&f.remember, "remember", false, c.tr("allow the same call without asking for the rest of the session"))
	cmd.Flags().BoolVar(&f.network, "network", false, c.tr("give the network to this sandboxed shell command (this call only)"))
	return cmd
}

func (c *cli) sessionsDenyCmd(g *globalFlags) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "deny ID PERMISSION [--reason TEXT]",
		Short: c.tr("Refuse a call that a running turn waits on"),
		Long: c.tr("Refuse the call that permission request PERMISSION of session ID asks about, as n at the\n"+
			"question would. --reason is given to the model with the refusal, so that it can change course.\n\n") +
			c.answersHelp(),
		Example: c.tr("  moteur sessions deny s-20260101T120000-0123456789abcdef 3 --reason \"not that folder\""),
		Args:    c.exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.answerRequest(cmd.Context(), g, args[0], args[1], engine.Reply{Reason: strings.TrimSpace(reason)}))
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", c.tr("why, for the model"))
	return cmd
}

// answerRequest gives reply to request perm of session id, through an
// engine on the store, after checking it can take it: a request that is
// unknown, ended or whose turn stopped is refused with what happened to
// it, and so is one that lost the race to another answer meanwhile.
func (c *cli) answerRequest(ctx context.Context, g *globalFlags, id, perm string, reply engine.Reply) error {
	if err := c.checkID(c.tr("session id"), id); err != nil {
		return err
	}
	n, err := c.permissionNumber(id, perm)
	if err != nil {
		return err
	}
	ob, err := c.openObserver(ctx, g, id)
	if err != nil {
		return err
	}
	defer ob.Close()
	reqID := id + "/" + strconv.FormatUint(n, 10)
	a, err := c.readRequest(ctx, ob.Store, id, n)
	if err != nil {
		return err
	}
	if err := c.answerable(a); err != nil {
		return err
	}
	if reply.Network && !a.Sandboxed {
		return errors.New(c.trf("session %s: permission request %d (%s): --network is only for a shell command run in the sandbox, and this call is not one: there is no network to grant it (approve it without --network)",
			id, n, oneLine(a.Summary, 100)))
	}
	if err := ob.Engine.Respond(reqID, reply); err != nil {
		if errors.Is(err, engine.ErrUnknownPermission) {
			// Another answer, or the request's end, came between the
			// read and the answer: say which.
			if now, rerr := c.readRequest(ctx, ob.Store, id, n); rerr == nil && c.answerable(now) != nil {
				return c.answerable(now)
			}
		}
		return err
	}
	_, err = fmt.Fprintln(c.stdout, c.trf("permission request %s (%s): %s", reqID, oneLine(a.Summary, 100), verdictIn(c.lang, reply)))
	return err
}

// permissionNumber reads PERMISSION: a number, or the id "ID/N" of a
// request of session id.
func (c *cli) permissionNumber(id, perm string) (uint64, error) {
	s := perm
	if sid, num, ok := strings.Cut(perm, "/"); ok {
		if sid != id {
			return 0, usageErrorf(c.tr("permission request %s is not one of session %s"), perm, id)
		}
		s = num
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return 0, usageErrorf(c.tr("invalid PERMISSION %q: want the request's number (3) or its id (%s/3), as moteur sessions pending lists them"), perm, id)
	}
	return n, nil
}

// readRequest reads request n of session id; an unknown one is said so.
func (c *cli) readRequest(ctx context.Context, st session.Store, id string, n uint64) (session.Approval, error) {
	a, err := st.Approval(ctx, id+"/"+strconv.FormatUint(n, 10))
	if errors.Is(err, session.ErrNotFound) {
		return a, errors.New(c.trf("session %s has no permission request %d (moteur sessions pending --session %s lists those waiting)", id, n, id))
	}
	return a, err
}

// answerable says, in one line naming the session and the request, why a
// can no longer take an answer (nil when it can).
func (c *cli) answerable(a session.Approval) error {
	at := func(t time.Time) string { return t.Local().Format(time.RFC3339) }
	what := c.trf("session %s: permission request %d (%s)", a.SessionID, a.Number, oneLine(a.Summary, 100))
	switch {
	case a.State == session.ApprovalAnswered:
		// allow and deny are the words of the API's answers: they stay.
		how := "deny"
		if a.Answer.Allow {
			how = "allow"
		}
		return errors.New(c.trf("%s was already answered (%s) by %s at %s", what, how, a.By, at(a.Ended)))
	case a.State == session.ApprovalWithdrawn:
		why := a.By
		if why == "interrupted" {
			why += c.tr(": its process stopped")
		}
		return errors.New(c.trf("%s was already withdrawn (%s) at %s: nobody waits for its answer", what, why, at(a.Ended)))
	case !a.Live:
		return errors.New(c.trf("%s can no longer be answered: the turn that asked is no longer running (pid %d on host %s stopped); the session's next turn withdraws it",
			what, a.PID, a.Host))
	}
	return nil
}
