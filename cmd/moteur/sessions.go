package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
)

func (c *cli) sessionsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: c.tr("List, show, follow, fork, rewind and remove stored sessions, and answer their requests"),
		Long: c.tr("Sessions are stored in $MOTEUR_HOME/moteur.db. Continue one with moteur run --session ID or\n" +
			"moteur chat --session ID. Put its files or its conversation back to an earlier message with\n" +
			"moteur sessions points ID, then moteur sessions rewind ID --to SEQ.\n\n" +
			"Watch a session's turns from another terminal with moteur sessions follow ID. The permission\n" +
			"requests turns wait on are listed by moteur sessions pending and answered, from any terminal,\n" +
			"with moteur sessions approve ID N or moteur sessions deny ID N."),
		Args: c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(c.sessionsListCmd(), c.sessionsShowCmd(), c.sessionsFollowCmd(g), c.sessionsPointsCmd(), c.sessionsRewindCmd(g),
		c.sessionsForkCmd(), c.sessionsRmCmd(), c.sessionsPendingCmd(), c.sessionsApproveCmd(g), c.sessionsDenyCmd(g))
	return cmd
}

// sessionJSON is a session in the --json output of sessions list and fork.
type sessionJSON struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	ProjectRoot string    `json:"project_root"`
	Agent       string    `json:"agent"`
	ParentID    string    `json:"parent_id"`
	ForkSeq     uint64    `json:"fork_seq"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	Events      int       `json:"events"`
	LastSeq     uint64    `json:"last_seq"`
}

func toJSON(i session.Info) sessionJSON {
	return sessionJSON{ID: i.ID, Title: i.Title, ProjectRoot: i.ProjectRoot, Agent: i.Agent, ParentID: i.ParentID,
		ForkSeq: i.ForkSeq, Created: i.Created, Updated: i.Updated, Events: i.Events, LastSeq: i.LastSeq}
}

// writeJSON prints v as one JSON value and a newline.
func (c *cli) writeJSON(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf(c.tr("write output: %w"), err)
	}
	return nil
}

// storeForReading opens the store for a command that reads or removes; a
// nil store means nothing is stored yet.
func (c *cli) storeForReading(ctx context.Context) (session.Store, error) {
	db, err := app.DatabaseFrom(c.env)
	if err != nil {
		return nil, err
	}
	return db.OpenExistingStore(ctx)
}

// notFound turns the store's ErrNotFound into the message users read, in
// the run's language.
func (c *cli) notFound(id string, err error) error {
	if errors.Is(err, session.ErrNotFound) {
		return c.errSessionNotFound(id)
	}
	return err
}

type listFlags struct {
	json  bool
	limit int
	all   bool
}

func (c *cli) sessionsListCmd() *cobra.Command {
	f := &listFlags{}
	cmd := &cobra.Command{
		Use:     "list [flags]",
		Aliases: []string{"ls"},
		Short:   c.tr("List the sessions of this project, most recent first"),
		Args:    c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return failure(c.sessionsList(cmd.Context(), f))
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.json, "json", false, c.tr("print a JSON array of sessions"))
	fl.IntVar(&f.limit, "limit", 50, c.tr("most sessions to list (0: all)"))
	fl.BoolVar(&f.all, "all", false, c.tr("list the sessions of every project, not only of the current directory"))
	return cmd
}

func (c *cli) sessionsList(ctx context.Context, f *listFlags) error {
	if f.limit < 0 {
		return usageErrorf("%s", c.trf("invalid --limit %d: want 0 (all) or more", f.limit))
	}
	var root string
	if !f.all {
		dir, err := c.workDir()
		if err == nil {
			root, err = filepath.Abs(dir)
		}
		if err != nil {
			return fmt.Errorf(c.tr("project root: %w"), err)
		}
	}
	st, err := c.storeForReading(ctx)
	if err != nil {
		return err
	}
	var infos []session.Info
	more := false
	if st != nil {
		defer st.Close()
		if infos, more, err = listSessions(ctx, st, root, f.limit); err != nil {
			return err
		}
	}
	if f.json {
		out := make([]sessionJSON, 0, len(infos))
		for _, i := range infos {
			out = append(out, toJSON(i))
		}
		return c.writeJSON(out)
	}
	if len(infos) == 0 {
		msg := c.tr("no sessions")
		if !f.all {
			msg = c.trf("no sessions in %s (--all lists those of every project)", root)
		}
		_, err := fmt.Fprintln(c.stderr, msg)
		return err
	}
	if err := c.writeSessionTable(infos, f.all); err != nil {
		return err
	}
	if more {
		_, err := fmt.Fprintln(c.stderr, c.trf("(the %d most recent; --limit 0 lists all)", f.limit))
		return err
	}
	return nil
}

// listSessions reads up to limit sessions (0: all) of project root ("" for
// every project), page after page; more reports that some were left out.
func listSessions(ctx context.Context, st session.Store, root string, limit int) (infos []session.Info, more bool, err error) {
	const pageSize = 1000
	cursor := ""
	for {
		size := pageSize
		if limit > 0 {
			// One more than wanted tells whether more exist.
			size = min(pageSize, limit+1-len(infos))
		}
		page, err := st.List(ctx, session.ListOptions{Limit: size, Cursor: cursor, ProjectRoot: root})
		if err != nil {
			return nil, false, err
		}
		infos = append(infos, page.Sessions...)
		if limit > 0 && len(infos) > limit {
			return infos[:limit], true, nil
		}
		if page.Next == "" {
			return infos, false, nil
		}
		cursor = page.Next
	}
}

// writeSessionTable prints the columns ID, UPDATED, EVENTS (PROJECT with
// --all) and TITLE, the title cut to the terminal's width (60 runes when
// stdout is not a terminal). Dates are relative on a terminal, RFC 3339
// otherwise.
func (c *cli) writeSessionTable(infos []session.Info, withProject bool) error {
	tty := isTerminal(c.stdout)
	now := c.now()
	type row struct{ id, updated, events, project, title string }
	rows := []row{{"ID", "UPDATED", "EVENTS", "PROJECT", "TITLE"}}
	for _, i := range infos {
		updated := i.Updated.Local().Format(time.RFC3339)
		if tty {
			updated = agoIn(c.lang, now, i.Updated)
		}
		title := i.Title
		if i.ParentID != "" {
			title = c.trf("[fork of %s at %d] %s", i.ParentID, i.ForkSeq, title)
		}
		rows = append(rows, row{i.ID, updated, strconv.Itoa(i.Events), i.ProjectRoot, title})
	}
	var wID, wUp, wEv, wProj int
	for _, r := range rows {
		wID = max(wID, utf8.RuneCountInString(r.id))
		wUp = max(wUp, utf8.RuneCountInString(r.updated))
		wEv = max(wEv, len(r.events))
		wProj = max(wProj, utf8.RuneCountInString(r.project))
	}
	titleWidth := 60
	if tty {
		if w, _, err := term.GetSize(int(c.stdout.(*os.File).Fd())); err == nil {
			used := wID + wUp + wEv + 6
			if withProject {
				used += wProj + 2
			}
			titleWidth = max(20, w-used-1)
		}
	}
	w := bufio.NewWriter(c.stdout)
	for n, r := range rows {
		title, project := r.title, r.project
		if n > 0 {
			title, project = oneLine(title, titleWidth), oneLine(project, 200)
			if tty {
				title, project = cleanTerminal(title), cleanTerminal(project)
			}
		}
		fmt.Fprintf(w, "%-*s  %-*s  %*s  ", wID, r.id, wUp, r.updated, wEv, r.events)
		if withProject {
			fmt.Fprintf(w, "%-*s  ", wProj, project)
		}
		fmt.Fprintln(w, title)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf(c.tr("write output: %w"), err)
	}
	return nil
}

// ago is agoIn in English, for the callers that have no language.
func ago(now, t time.Time) string { return agoIn(i18n.EN, now, t) }

// agoIn says, in language l, how long before now t was, briefly; a date
// beyond a month.
func agoIn(l i18n.Lang, now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return i18n.Tr(l, "just now")
	case d < time.Hour:
		return i18n.Trf(l, "%d min ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return i18n.Trf(l, "%d h ago", int(d/time.Hour))
	case d < 30*24*time.Hour:
		return i18n.Trf(l, "%d days ago", int(d/(24*time.Hour)))
	}
	return t.Local().Format("2006-01-02")
}

func (c *cli) sessionsShowCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show [flags] ID",
		Short: c.tr("Show a session's conversation and tool calls"),
		Long: c.tr("Show a stored session as a conversation: the user's messages (›), the answers, each tool call (→)\n" +
			"and its result (✓ or ✗), the end of each turn and the errors. With --json, print its stored\n" +
			"events as JSON lines instead, exactly as stored."),
		Args: c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.sessionsShow(cmd.Context(), args[0], asJSON))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, c.tr("print the stored events, one JSON object per line"))
	return cmd
}

func (c *cli) sessionsShow(ctx context.Context, id string, asJSON bool) error {
	events, info, err := c.loadStored(ctx, id)
	if err != nil {
		return err
	}
	if asJSON {
		w := bufio.NewWriter(c.stdout)
		for _, e := range events {
			// json.Marshal, as the store wrote them.
			b, err := json.Marshal(e)
			if err != nil {
				return fmt.Errorf(c.tr("session %s: encode event %d: %w"), id, e.Seq, err)
			}
			w.Write(b)
			w.WriteByte('\n')
		}
		if err := w.Flush(); err != nil {
			return fmt.Errorf(c.tr("write output: %w"), err)
		}
		return nil
	}
	return writeConversation(c.stdout, isTerminal(c.stdout), c.lang, info, events)
}

type forkFlags struct {
	at    uint64
	newID string
	json  bool
}

func (c *cli) sessionsForkCmd() *cobra.Command {
	f := &forkFlags{}
	cmd := &cobra.Command{
		Use:   "fork ID --at SEQ [--id NEWID]",
		Short: c.tr("Copy a session up to an event into a new session"),
		Long: c.tr("Copy the events of session ID up to seq SEQ (see sessions show --json) into a new session and\n" +
			"print its id; continue it with moteur run --session NEWID. The new session's audit log starts\n" +
			"with its first new event: the copied history is in the audit log of ID."),
		Example: "  moteur sessions fork s-20260101T120000-0123456789abcdef --at 12",
		Args:    c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("at") {
				return usageErrorf("%s", c.tr("sessions fork needs --at SEQ: the last event to copy"))
			}
			return failure(c.sessionsFork(cmd.Context(), args[0], f))
		},
	}
	fl := cmd.Flags()
	fl.Uint64Var(&f.at, "at", 0, c.tr("seq of the last event to copy (1 or more)"))
	fl.StringVar(&f.newID, "id", "", c.tr("id of the new session (default: a new one)"))
	fl.BoolVar(&f.json, "json", false, c.tr("print the new session as a JSON object"))
	return cmd
}

func (c *cli) sessionsFork(ctx context.Context, id string, f *forkFlags) error {
	if err := c.checkID(c.tr("session id"), id); err != nil {
		return err
	}
	if f.at == 0 {
		return usageErrorf("%s", c.tr("invalid --at 0: seqs start at 1"))
	}
	newID := f.newID
	if newID != "" {
		if err := c.checkID("--id", newID); err != nil {
			return err
		}
	}
	st, err := c.storeForReading(ctx)
	if err != nil {
		return err
	}
	if st == nil {
		return c.errSessionNotFound(id)
	}
	defer st.Close()
	if newID == "" {
		if newID, err = c.newSessionID(); err != nil {
			return err
		}
	}
	info, err := st.Fork(ctx, id, f.at, newID)
	switch {
	case errors.Is(err, session.ErrNotFound):
		return c.errSessionNotFound(id)
	case errors.Is(err, session.ErrExists):
		return errors.New(c.trf("session %s already exists: choose another --id", newID))
	case err != nil:
		return err
	}
	if f.json {
		return c.writeJSON(toJSON(info))
	}
	_, err = fmt.Fprintln(c.stdout, info.ID)
	return err
}

func (c *cli) sessionsRmCmd() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:     "rm [flags] ID",
		Aliases: []string{"remove"},
		Short:   c.tr("Remove a session (its audit log is kept)"),
		Long: c.tr("Remove a session from the store, with its transcript. Its audit log ($MOTEUR_HOME/audit/ID.jsonl)\n" +
			"is kept: it is the proof of what the agent did, and moteur never deletes it.\n" +
			"A session in use by a running process is not removed. Asks for confirmation on a terminal;\n" +
			"otherwise --yes is required."),
		Args: c.exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(c.sessionsRm(cmd.Context(), args[0], yes))
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, c.tr("remove without asking"))
	return cmd
}

func (c *cli) sessionsRm(ctx context.Context, id string, yes bool) error {
	if err := c.checkID(c.tr("session id"), id); err != nil {
		return err
	}
	interactive := c.stdinTTY
	if !yes && !interactive {
		return usageErrorf("%s", c.tr("sessions rm asks for confirmation: pass --yes when standard input is not a terminal"))
	}
	db, err := app.DatabaseFrom(c.env)
	if err != nil {
		return err
	}
	st, info, err := c.openStoredSession(ctx, db, id)
	if err != nil {
		return err
	}
	defer st.Close()
	audit := app.AuditPath(db.Home, id)
	if !yes {
		fmt.Fprint(c.stderr, c.trf("Remove session %s (%d events, %q)? Its audit log %s is kept. [y/N] ",
			id, info.Events, oneLine(info.Title, 60), audit))
		answer, _ := bufio.NewReader(c.stdin).ReadString('\n')
		// o and oui too, as the French prompt offers, as kb rm and rewind do.
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" && a != "o" && a != "oui" {
			return errors.New(c.trf("session %s not removed", id))
		}
	}
	auditKept, err := app.RemoveSession(ctx, st, db, id)
	if err != nil {
		return c.notFound(id, err)
	}
	kept := c.tr("no audit log")
	if auditKept {
		kept = c.trf("audit log kept: %s", audit)
	}
	_, err = fmt.Fprintln(c.stdout, c.trf("removed session %s (%s)", id, kept))
	return err
}

// loadStored reads a stored session's events for display, without taking
// its lease (reading never interferes with a running session).
func (c *cli) loadStored(ctx context.Context, id string) ([]event.Event, session.Info, error) {
	if err := c.checkID(c.tr("session id"), id); err != nil {
		return nil, session.Info{}, err
	}
	db, err := app.DatabaseFrom(c.env)
	if err != nil {
		return nil, session.Info{}, err
	}
	st, info, err := c.openStoredSession(ctx, db, id)
	if err != nil {
		return nil, session.Info{}, err
	}
	defer st.Close()
	events, err := st.Load(ctx, id)
	if err != nil {
		return nil, session.Info{}, c.notFound(id, err)
	}
	return events, info, nil
}
