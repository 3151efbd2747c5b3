package main

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/cmd/moteur/tui"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
)

// ANSI styles, written only to a terminal.
const (
	styleFaint = "\x1b[2m"
	styleReset = "\x1b[0m"
)

// argsPreview bounds a tool call's arguments and an error line on screen.
const argsPreview = 100

// renderer shows a turn's events as plain terminal text: the answer streamed
// as it comes, one line per tool call and per tool result, the reasoning
// dimmed on a terminal. It is a state machine over the event stream; the
// state is what is on screen (style, whether the line is open) and what was
// streamed in the current round, so that the answer is shown exactly once
// even when the final text is not what streamed.
type renderer struct {
	out     io.Writer // the answer and the tool lines
	note    io.Writer // notes that are not the answer (retries, approvals, routing)
	tty     bool      // out is a terminal: styles allowed, reasoning shown
	noteTTY bool      // note is a terminal: notes may be dimmed
	lang    i18n.Lang // the language of the notes

	err       error // first write error; later writes are skipped
	lineOpen  bool  // the last byte written to out is not a newline
	faint     bool  // the faint style is on
	round     int   // round of streamed
	streamed  strings.Builder
	answerMsg string // text of the last answer message, as shown
	// turnErr is the turn's last Error event, until its TurnCompleted says
	// whether the caller prints it.
	turnErr *event.ErrorPayload
}

// newRenderer is a renderer whose notes are in the run's language.
func (c *cli) newRenderer(out, note io.Writer, tty, noteTTY bool) *renderer {
	r := newRenderer(out, note, tty, noteTTY)
	r.lang = c.lang
	return r
}

// newRenderer is a renderer whose notes are in English, for the callers
// that have no cli.
func newRenderer(out, note io.Writer, tty, noteTTY bool) *renderer {
	return &renderer{out: out, note: note, tty: tty, noteTTY: noteTTY, lang: i18n.EN}
}

// event renders one event. It returns the first write error, after which
// the renderer only keeps its state.
func (r *renderer) event(ev event.Event) error {
	// A request to approve is shown whoever made it: the user answers it.
	if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok {
		r.noteLine(describeRequest(r.lang, p), false)
		return r.err
	}
	// A sub-agent's stream would interleave with the parent's answer; its
	// result reaches the screen through the parent's tool result.
	if ev.ParentCallID != "" {
		return r.err
	}
	switch p := ev.Payload.(type) {
	case event.DeltaPayload:
		switch ev.Type {
		case event.AssistantDelta:
			r.answerDelta(p)
		case event.ReasoningDelta:
			r.reasoningDelta(p)
		}
	case event.AssistantMessagePayload:
		r.assistantMessage(p)
	case event.ToolResultPayload:
		r.toolResult(p)
	case event.ProviderRetryPayload:
		r.retry(p)
	case event.ToolProgressPayload:
		r.noteLine(progressNote(p), true)
	case event.McpServerDownPayload:
		r.noteLine(i18n.Trf(r.lang, "moteur: MCP server %s is not available: %s", oneLine(p.Name, 60), oneLine(p.Error, 300)), false)
	case event.ProviderSelectedPayload:
		r.noteLine(i18n.Trf(r.lang, "moteur: using %s (%s)", oneLine(p.Provider, 60), oneLine(p.Reason, 300)), true)
	case event.SessionClassifiedPayload:
		r.noteLine(i18n.Trf(r.lang, "moteur: session classified: %s — only local providers from now on", oneLine(p.Marking, 80)), false)
	case event.WarningPayload:
		r.noteLine(i18n.Trf(r.lang, "moteur: warning: %s", oneLine(p.Message, 300)), false)
	case event.ContextCompactedPayload:
		r.noteLine(compactionNote(r.lang, p), true)
	case event.ErrorPayload:
		r.turnErr = &p
	case event.TurnCompletedPayload:
		r.turnCompleted(p)
	}
	// SessionStarted and UserMessage show nothing the user does not know.
	// An Error is left to the caller, which prints the error SubmitInput
	// returns, so that it appears once; a turn that ends otherwise than in
	// error (a cancelled turn whose closing synthesis failed, or was
	// refused) returns no such error, and its Error is shown here.
	return r.err
}

// noteLine writes one line of notes, dimmed when asked and the notes go to
// a terminal. Its end of line is written in the same call, so that a
// question asked on the same stream from another goroutine never splits it.
func (r *renderer) noteLine(s string, dim bool) {
	r.endFaint()
	r.endLine()
	if r.err != nil {
		return
	}
	if r.noteTTY {
		s = cleanTerminal(s)
		if dim {
			s = styleFaint + s + styleReset
		}
	}
	_, err := io.WriteString(r.note, s+"\n")
	r.setErr(err)
}

// finish closes the output: style reset, final newline.
func (r *renderer) finish() error {
	r.endFaint()
	r.endLine()
	return r.err
}

// userMessage shows a message of the user, for a reader who did not type
// it (sessions follow): "› " before its first line, indented after.
func (r *renderer) userMessage(p event.UserMessagePayload) {
	r.endFaint()
	r.endLine()
	text := strings.TrimRight(p.Text, "\n")
	if p.Blocked {
		text += i18n.Tr(r.lang, "  [blocked by a hook, not sent]")
	}
	r.write("› " + strings.ReplaceAll(r.clean(text), "\n", "\n  ") + "\n")
}

func (r *renderer) answerDelta(p event.DeltaPayload) {
	r.endFaint()
	r.track(p.Round)
	r.streamed.WriteString(p.Text)
	r.write(r.clean(p.Text))
}

func (r *renderer) reasoningDelta(p event.DeltaPayload) {
	if !r.tty {
		return
	}
	if !r.faint {
		r.endLine()
		r.write(styleFaint)
		r.faint = true
	}
	r.write(r.clean(p.Text))
}

func (r *renderer) assistantMessage(p event.AssistantMessagePayload) {
	r.endFaint()
	var streamed string
	if p.Round == r.round {
		streamed = r.streamed.String()
	}
	// Compared without surrounding space: a round may stream blank text
	// before an empty-answer retry of the same round.
	if text := strings.TrimSpace(p.Text); text != "" && text != strings.TrimSpace(streamed) {
		// Not what streamed (a synthetic fallback, a notice, a server that
		// did not stream): show the text that counts.
		r.endLine()
		r.write(r.clean(p.Text))
	}
	r.streamed.Reset()
	if len(p.ToolCalls) == 0 {
		r.answerMsg = p.Text
		r.sources(p.Citations)
	}
	for _, c := range p.ToolCalls {
		r.endLine()
		r.write("→ " + oneLine(c.Name, 60) + " " + oneLine(c.Arguments, argsPreview) + "\n")
	}
}

func (r *renderer) toolResult(p event.ToolResultPayload) {
	r.endFaint()
	r.endLine()
	if p.IsError {
		first, _, _ := strings.Cut(strings.TrimSpace(p.Content), "\n")
		r.write("✗ " + oneLine(p.Name, 60) + ": " + oneLine(first, argsPreview) + "\n")
		return
	}
	r.write(fmt.Sprintf("✓ %s (%d ms)\n", oneLine(p.Name, 60), p.DurationMS))
}

func (r *renderer) retry(p event.ProviderRetryPayload) {
	r.endFaint()
	r.endLine()
	// The retried request streams again from the start: what this attempt
	// streamed is not the text the next AssistantMessage will carry.
	r.streamed.Reset()
	delay := time.Duration(p.DelayMS) * time.Millisecond
	_, err := fmt.Fprintln(r.note, i18n.Trf(r.lang, "moteur: %s; retrying in %s (attempt %d)", oneLine(p.Error, 300), delay, p.Attempt))
	r.setErr(err)
}

func (r *renderer) turnCompleted(p event.TurnCompletedPayload) {
	if e := r.turnErr; e != nil && p.Reason != event.StopError {
		r.noteLine("moteur: "+errorEventTextIn(r.lang, *e), false)
	}
	r.turnErr = nil
	r.endFaint()
	// The answer message normally showed the answer already; this covers a
	// turn whose answer reached no AssistantMessage this renderer saw.
	if a := strings.TrimSpace(p.Answer); a != "" && a != strings.TrimSpace(r.answerMsg) {
		r.endLine()
		r.write(r.clean(p.Answer))
		r.answerMsg = p.Answer
	}
	r.endLine()
}

// track starts a new streamed text when the round changes.
func (r *renderer) track(round int) {
	if round != r.round {
		r.round = round
		r.streamed.Reset()
	}
}

func (r *renderer) endFaint() {
	if r.faint {
		r.write(styleReset)
		r.faint = false
		r.endLine()
	}
}

func (r *renderer) endLine() {
	if r.lineOpen {
		r.write("\n")
	}
}

func (r *renderer) write(s string) {
	if s == "" || r.err != nil {
		return
	}
	_, err := io.WriteString(r.out, s)
	r.setErr(err)
	if s != styleFaint && s != styleReset {
		r.lineOpen = !strings.HasSuffix(s, "\n")
	}
}

func (r *renderer) setErr(err error) {
	if r.err == nil && err != nil {
		r.err = err
	}
}

// clean makes model text safe for a terminal (see cleanTerminal); piped
// output is left exactly as the model wrote it.
func (r *renderer) clean(s string) string {
	if !r.tty {
		return s
	}
	return cleanTerminal(s)
}

// cleanTerminal drops the control characters of s but newlines and tabs: a
// model that read a hostile file could otherwise send escape sequences that
// retitle the window, write the clipboard or hide text.
func cleanTerminal(s string) string {
	return strings.Map(func(c rune) rune {
		if c == '\n' || c == '\t' || !unicode.IsControl(c) {
			return c
		}
		return -1
	}, s)
}

// oneLine squeezes s onto one line of at most n runes, for summaries.
func oneLine(s string, n int) string { return tui.OneLine(s, n) }

// errorEventTextIn is an Error event as a message in language l: a refused
// send says that nothing was sent, and its message names the rule that
// refused it.
func errorEventTextIn(l i18n.Lang, p event.ErrorPayload) string {
	msg := oneLine(p.Message, 500)
	if p.Kind == "outbound" {
		return i18n.Trf(l, "not sent: %s", msg)
	}
	return msg
}

// compactionNote is the one line that tells a compaction happened.
func compactionNote(l i18n.Lang, p event.ContextCompactedPayload) string {
	if p.Degraded {
		return i18n.Trf(l, "moteur: context compacted: %d → %d tokens, %d messages trimmed (the summary failed)", p.TokensBefore, p.TokensAfter, p.Replaced)
	}
	return i18n.Trf(l, "moteur: context compacted: %d → %d tokens, %d messages summarised", p.TokensBefore, p.TokensAfter, p.Replaced)
}

// sources lists, under an answer, the passages it cites: what [c3] is.
func (r *renderer) sources(cits []cite.Ref) {
	if len(cits) == 0 {
		return
	}
	r.endLine()
	r.write("\n" + i18n.Tr(r.lang, "Sources:") + "\n")
	for _, c := range cits {
		r.write(fmt.Sprintf("  [%s] %s — %s\n", c.Alias, oneLine(c.Title, 80), oneLine(c.Where(), 120)))
	}
}

// progressNote is a running call's progress, one line: "· tool: message
// (3/10)".
func progressNote(p event.ToolProgressPayload) string {
	line := "· " + oneLine(p.Name, 60)
	if p.Message != "" {
		line += ": " + oneLine(p.Message, 200)
	}
	switch {
	case p.Total > 0:
		line += fmt.Sprintf(" (%g/%g)", p.Done, p.Total)
	case p.Done > 0:
		line += fmt.Sprintf(" (%g)", p.Done)
	}
	return line
}
