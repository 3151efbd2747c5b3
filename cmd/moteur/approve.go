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
	"github.com/moteur/moteur/i18n"
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
	// lang is the language of the questions and notes.
	lang i18n.Lang
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
		fmt.Fprintln(a.w, i18n.Trf(a.lang, "moteur: no answer in time: %s was refused", oneLine(p.Tool, 60)))
	case a.waiting == p.ID:
		a.waiting = ""
		if p.By == "user" {
			fmt.Fprintln(a.w, i18n.Trf(a.lang, "moteur: permission request %s answered: %s", p.ID, verdictIn(a.lang, replyOf(p))))
		}
	case a.pending != nil && a.pending.id == p.ID:
		if here := a.withdraw(); !here && p.By == "user" {
			fmt.Fprintln(a.w, i18n.Trf(a.lang, "moteur: permission request %s was answered elsewhere: %s", p.ID, verdictIn(a.lang, replyOf(p))))
		}
	}
}

// replyOf is the answer a PermissionResolved records.
func replyOf(p event.PermissionResolvedPayload) engine.Reply {
	return engine.Reply{Allow: p.Allow, Remember: p.Remember, Network: p.Network, Reason: p.Reason}
}

// verdictIn is an answer in a few words of language l.
func verdictIn(l i18n.Lang, r engine.Reply) string {
	switch {
	case r.Allow && r.Network:
		return i18n.Tr(l, "allowed with the network")
	case r.Allow && r.Remember:
		return i18n.Tr(l, "allowed, and for the rest of the session")
	case r.Allow:
		return i18n.Tr(l, "allowed")
	case r.Reason != "":
		return i18n.Trf(l, "refused: %s", oneLine(r.Reason, 200))
	}
	return i18n.Tr(l, "refused")
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
			fmt.Fprintln(a.w, i18n.Trf(a.lang, "moteur: %s refused: %s", oneLine(p.Tool, 60), reason))
		}
		// An error means the request was resolved meanwhile: nothing to do.
		_ = a.eng.Respond(p.ID, engine.Reply{Reason: reason})
		return
	}
	q := &question{id: p.ID, cancel: make(chan struct{}), done: make(chan struct{})}
	a.pending = q
	go q.ask(a.lang, a.w, a.lines(), a.eng, p, a.describe)
}

// wait leaves p to be answered from another process, and says how, once:
// the engine's own wait (its approval timeout) does the rest.
func (a *approvals) wait(p event.PermissionRequestedPayload) {
	if a.describe {
		fmt.Fprintln(a.w, describeRequest(a.lang, p))
	}
	a.waiting = p.ID
	fmt.Fprintln(a.w, waitHint(a.lang, p.ID, a.timeout))
}

// waitHint says how to answer request id from another terminal.
func waitHint(l i18n.Lang, id string, timeout time.Duration) string {
	return i18n.Trf(l, "moteur: waiting up to %s for an answer: %s", minutes(timeout), answerCommandsIn(l, id))
}

// answerCommandsIn are the commands that answer request id
// ("<session>/<n>"), joined in language l.
func answerCommandsIn(l i18n.Lang, id string) string {
	sid, n := id, ""
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		sid, n = id[:i], id[i+1:]
	}
	return i18n.Trf(l, "moteur sessions approve %s %s, or moteur sessions deny %s %s --reason TEXT", sid, n, sid, n)
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
func (q *question) ask(l i18n.Lang, w io.Writer, lines *lineReader, eng responder, p event.PermissionRequestedPayload, describe bool) {
	defer close(q.done)
	if describe {
		fmt.Fprintln(w, describeRequest(l, p))
	}
	for {
		fmt.Fprint(w, questionTextIn(l, p.Sandboxed))
		select {
		case <-q.cancel:
			// Resolved without the user: the timeout, Ctrl-C, the turn's end.
			fmt.Fprintln(w)
			return
		case line, open := <-lines.lines:
			if !open {
				fmt.Fprintln(w)
				q.answered = eng.Respond(p.ID, engine.Reply{Reason: i18n.Tr(l, "no answer: standard input was closed")}) == nil
				return
			}
			r, ok := parseAnswer(line, p.Sandboxed)
			if !ok {
				fmt.Fprintln(w, i18n.Trf(l, "moteur: answer %s", answerChoices(l, p.Sandboxed)))
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
// in language l.
func describeRequest(l i18n.Lang, p event.PermissionRequestedPayload) string {
	risk := p.Risk
	if risk == "" {
		risk = i18n.Tr(l, "unknown")
	}
	return i18n.Trf(l, "moteur: permission needed (risk %s): %s", oneLine(risk, 20), oneLine(p.Summary, 300))
}

// questionText is questionTextIn in English.
func questionText(sandboxed bool) string { return questionTextIn(i18n.EN, sandboxed) }

// questionTextIn is the question that asks for an answer, in language l.
// The letters stay: parseAnswer takes the English ones and the French
// words alike.
func questionTextIn(l i18n.Lang, sandboxed bool) string {
	if sandboxed {
		return i18n.Tr(l, `Allow? [y]es / [w]ith network / [n]o / [a]lways for this session / (n: give a reason after a space, e.g. "n not that folder") `)
	}
	return i18n.Tr(l, `Allow? [y]es / [n]o / [a]lways for this session / (n: give a reason after a space, e.g. "n not that folder") `)
}

// answerChoices lists the answers the question takes, in language l.
func answerChoices(l i18n.Lang, sandboxed bool) string {
	if sandboxed {
		return i18n.Tr(l, "y (yes), w (yes, with network), n (no; a reason may follow), or a (always for this session)")
	}
	return i18n.Tr(l, "y (yes), n (no; a reason may follow), or a (always for this session)")
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
func (c *cli) noTerminalRefusal(mode, floor policy.Mode, policyPath string) func(event.PermissionRequestedPayload) string {
	return func(p event.PermissionRequestedPayload) string {
		if floor == policy.Confirm || floor == policy.ReadOnly {
			return c.trf("no terminal to ask, and the organisation policy %s wants a person to confirm every change: run moteur in a terminal", policyPath)
		}
		hint := c.trf("no terminal to ask: allow it with --allow '%s(PATTERN)'", oneLine(p.Tool, 60))
		if effect.Risk(p.Risk) == effect.RiskWrite && mode != policy.AutoWrite {
			hint += c.tr(" or --mode auto_write")
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
