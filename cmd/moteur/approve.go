package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/policy"
)

// Approvals in the terminal.
//
// The engine asks about a call by emitting PermissionRequested and waiting
// (in SubmitInput, on another goroutine) until Respond answers it, its
// timeout passes or the turn ends. The view shows the request; approvals
// answers it. With a terminal on standard input the question is put on
// standard error and the answer read from the terminal in a goroutine of
// its own, so that the events keep flowing: the request may also be
// resolved without the user (the timeout, Ctrl-C), and the engine's
// PermissionResolved then withdraws the question. The request is kept by
// the store, so it may also be answered from another process (moteur
// sessions approve): the question is withdrawn the same way, and a note
// says so. Without a terminal nobody can answer here: the request is
// refused at once, with a reason that says how to allow such calls
// beforehand, instead of holding the turn for the whole approval timeout —
// unless run --wait-approvals says an answer will come from elsewhere: the
// request then waits, and a note says how to answer it.

// responder answers permission requests: *engine.Engine.
type responder interface {
	Respond(permissionID string, r engine.Reply) error
}

// approvals answers the permission requests of one agent's turns.
type approvals struct {
	eng responder
	w   io.Writer // questions and notes: standard error
	// lines gives the terminal's lines; nil when standard input is not a
	// terminal.
	lines func() *lineReader
	// describe: print the request before the question (the view does not
	// show it, as in --json mode, where it went to stdout as an event).
	describe bool
	// refusal is the reason given when a request cannot be asked.
	refusal func(p event.PermissionRequestedPayload) string
	// waitElsewhere: without a terminal, a request waits for an answer
	// from another process instead of being refused (run
	// --wait-approvals), for up to timeout, the engine's approval timeout.
	waitElsewhere bool
	timeout       time.Duration

	hinted  bool      // the no-terminal hint was printed
	pending *question // the question on screen, nil when none
	waiting string    // the request waiting for an answer from elsewhere, "" when none
}

// question is one request being asked on the terminal.
type question struct {
	id     string
	cancel chan struct{} // closed to withdraw the question
	done   chan struct{} // closed when the asking goroutine is over
	// answered: the answer typed here is the one the engine took. Written
	// before done is closed, read after.
	answered bool
}

// event reacts to one event of the turn.
func (a *approvals) event(ev event.Event) {
	switch p := ev.Payload.(type) {
	case event.PermissionRequestedPayload:
		a.withdraw()
		a.request(p)
	case event.PermissionResolvedPayload:
		a.resolved(p)
	}
}

// resolved takes the request p resolves off the screen, and says how it
// was resolved when the user did not see it happen here.
func (a *approvals) resolved(p event.PermissionResolvedPayload) {
	switch {
	case p.By == "timeout" && (a.waiting == p.ID || a.pending != nil && a.pending.id == p.ID):
		a.waiting = ""
		a.withdraw()
		fmt.Fprintf(a.w, "moteur: no answer in time: %s was refused\n", oneLine(p.Tool, 60))
	case a.waiting == p.ID:
		a.waiting = ""
		if p.By == "user" {
			fmt.Fprintf(a.w, "moteur: permission request %s answered: %s\n", p.ID, verdict(replyOf(p)))
		}
	case a.pending != nil && a.pending.id == p.ID:
		if here := a.withdraw(); !here && p.By == "user" {
			fmt.Fprintf(a.w, "moteur: permission request %s was answered elsewhere: %s\n", p.ID, verdict(replyOf(p)))
		}
	}
}

// replyOf is the answer a PermissionResolved records.
func replyOf(p event.PermissionResolvedPayload) engine.Reply {
	return engine.Reply{Allow: p.Allow, Remember: p.Remember, Network: p.Network, Reason: p.Reason}
}

// verdict is an answer in a few words.
func verdict(r engine.Reply) string {
	switch {
	case r.Allow && r.Network:
		return "allowed with the network"
	case r.Allow && r.Remember:
		return "allowed, and for the rest of the session"
	case r.Allow:
		return "allowed"
	case r.Reason != "":
		return "refused: " + oneLine(r.Reason, 200)
	}
	return "refused"
}

// finish withdraws a question left at the turn's end (the turn ended, so
// the engine resolved it already).
func (a *approvals) finish() {
	a.withdraw()
	a.waiting = ""
}

func (a *approvals) request(p event.PermissionRequestedPayload) {
	if a.lines == nil && a.waitElsewhere {
		a.wait(p)
		return
	}
	if a.lines == nil {
		reason := a.refusal(p)
		if !a.hinted {
			a.hinted = true
			fmt.Fprintf(a.w, "moteur: %s refused: %s\n", oneLine(p.Tool, 60), reason)
		}
		// An error means the request was resolved meanwhile: nothing to do.
		_ = a.eng.Respond(p.ID, engine.Reply{Reason: reason})
		return
	}
	q := &question{id: p.ID, cancel: make(chan struct{}), done: make(chan struct{})}
	a.pending = q
	go q.ask(a.w, a.lines(), a.eng, p, a.describe)
}

// wait leaves p to be answered from another process, and says how, once:
// the engine's own wait (its approval timeout) does the rest.
func (a *approvals) wait(p event.PermissionRequestedPayload) {
	if a.describe {
		fmt.Fprintln(a.w, describeRequest(p))
	}
	a.waiting = p.ID
	fmt.Fprintln(a.w, waitHint(p.ID, a.timeout))
}

// waitHint says how to answer request id from another terminal.
func waitHint(id string, timeout time.Duration) string {
	return fmt.Sprintf("moteur: waiting up to %s for an answer: %s", minutes(timeout), answerCommands(id))
}

// answerCommands are the commands that answer request id ("<session>/<n>").
func answerCommands(id string) string {
	sid, n := id, ""
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		sid, n = id[:i], id[i+1:]
	}
	return fmt.Sprintf("moteur sessions approve %s %s, or moteur sessions deny %s %s --reason TEXT", sid, n, sid, n)
}

// minutes says a duration the way people do: "10 min", "90 s".
func minutes(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d < time.Second:
		return d.String()
	}
	return d.Round(time.Second).String()
}

// withdraw takes the pending question off the screen and waits until its
// goroutine is over: whatever it wrote is then written. It reports whether
// the answer typed there is the one the engine took.
func (a *approvals) withdraw() (answered bool) {
	q := a.pending
	if q == nil {
		return false
	}
	a.pending = nil
	close(q.cancel)
	<-q.done
	return q.answered
}

// ask puts the question until it gets an answer it understands, and gives
// that answer to the engine.
func (q *question) ask(w io.Writer, lines *lineReader, eng responder, p event.PermissionRequestedPayload, describe bool) {
	defer close(q.done)
	if describe {
		fmt.Fprintln(w, describeRequest(p))
	}
	for {
		fmt.Fprint(w, questionText(p.Sandboxed))
		select {
		case <-q.cancel:
			// Resolved without the user: the timeout, Ctrl-C, the turn's end.
			fmt.Fprintln(w)
			return
		case line, open := <-lines.lines:
			if !open {
				fmt.Fprintln(w)
				q.answered = eng.Respond(p.ID, engine.Reply{Reason: "no answer: standard input was closed"}) == nil
				return
			}
			r, ok := parseAnswer(line, p.Sandboxed)
			if !ok {
				fmt.Fprintf(w, "moteur: answer %s\n", answerChoices(p.Sandboxed))
				continue
			}
			// An error: another process answered first, and the
			// engine's PermissionResolved will say how.
			q.answered = eng.Respond(p.ID, r) == nil
			return
		}
	}
}

// describeRequest is the one line that shows a request: tool, risk and
// what the call does.
func describeRequest(p event.PermissionRequestedPayload) string {
	risk := p.Risk
	if risk == "" {
		risk = "unknown"
	}
	return fmt.Sprintf("moteur: permission needed (risk %s): %s", oneLine(risk, 20), oneLine(p.Summary, 300))
}

func questionText(sandboxed bool) string {
	network := ""
	if sandboxed {
		network = " / [w]ith network"
	}
	return "Allow? [y]es" + network + ` / [n]o / [a]lways for this session / (n: give a reason after a space, e.g. "n not that folder") `
}

func answerChoices(sandboxed bool) string {
	if sandboxed {
		return "y (yes), w (yes, with network), n (no; a reason may follow), or a (always for this session)"
	}
	return "y (yes), n (no; a reason may follow), or a (always for this session)"
}

// parseAnswer reads a typed answer: y, n (a reason may follow after a
// space), a, and w for a sandboxed request; the words in full and their
// French forms (o/oui, non, t/toujours) too. ok is false for anything else,
// an empty line included: a stray Enter decides nothing.
func parseAnswer(line string, sandboxed bool) (r engine.Reply, ok bool) {
	s := strings.TrimSpace(line)
	word, rest := s, ""
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		word, rest = s[:i], strings.TrimSpace(s[i:])
	}
	switch strings.ToLower(strings.TrimRight(word, ",;:.!")) {
	case "y", "yes", "o", "oui":
		return engine.Reply{Allow: true}, true
	case "a", "always", "t", "toujours":
		return engine.Reply{Allow: true, Remember: true}, true
	case "w", "with", "network":
		if sandboxed {
			return engine.Reply{Allow: true, Network: true}, true
		}
	case "n", "no", "non":
		return engine.Reply{Reason: rest}, true
	}
	return engine.Reply{}, false
}

// noTerminalRefusal is the reason a request is refused with when there is
// no terminal to ask: how to allow such calls beforehand, when the
// configuration lets anything allow them.
func noTerminalRefusal(mode, floor policy.Mode, policyPath string) func(event.PermissionRequestedPayload) string {
	return func(p event.PermissionRequestedPayload) string {
		if floor == policy.Confirm || floor == policy.ReadOnly {
			return fmt.Sprintf("no terminal to ask, and the organisation policy %s wants a person to confirm every change: run moteur in a terminal", policyPath)
		}
		hint := fmt.Sprintf("no terminal to ask: allow it with --allow '%s(PATTERN)'", oneLine(p.Tool, 60))
		if effect.Risk(p.Risk) == effect.RiskWrite && mode != policy.AutoWrite {
			hint += " or --mode auto_write"
		}
		return hint
	}
}

// lockedWriter serialises the writes of the goroutines that share a
// stream (the view's notes and the approval questions on stderr).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// approvingView is a view whose permission requests approvals answers.
type approvingView struct {
	view
	ap *approvals
}

func (v approvingView) event(ev event.Event) error {
	err := v.view.event(ev)
	v.ap.event(ev)
	return err
}

func (v approvingView) finish() error {
	v.ap.finish()
	return v.view.finish()
}
