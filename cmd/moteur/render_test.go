package main

import (
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
)

func ev(typ event.Type, p any) event.Event { return event.Event{Type: typ, Payload: p} }

func delta(round int, text string) event.Event {
	return ev(event.AssistantDelta, event.DeltaPayload{Text: text, Round: round})
}

func thought(round int, text string) event.Event {
	return ev(event.ReasoningDelta, event.DeltaPayload{Text: text, Round: round})
}

func answer(round int, text string, synthetic bool) event.Event {
	return ev(event.AssistantMessage, event.AssistantMessagePayload{Text: text, Round: round, Synthetic: synthetic})
}

func completed(text string) event.Event {
	return ev(event.TurnCompleted, event.TurnCompletedPayload{Reason: event.StopNatural, Answer: text})
}

// render feeds events to a renderer and returns what it wrote.
func render(t *testing.T, tty bool, evs ...event.Event) (out, note string) {
	t.Helper()
	var o, n strings.Builder
	r := newRenderer(&o, &n, tty, false)
	for _, e := range evs {
		if err := r.event(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.finish(); err != nil {
		t.Fatal(err)
	}
	return o.String(), n.String()
}

func TestRendererDimsReasoningOnTerminalOnly(t *testing.T) {
	evs := []event.Event{thought(1, "let me "), thought(1, "think"), delta(1, "Hi"), delta(1, " there"), answer(1, "Hi there", false), completed("Hi there")}
	out, _ := render(t, true, evs...)
	if want := styleFaint + "let me think" + styleReset + "\nHi there\n"; out != want {
		t.Errorf("tty: %q, want %q", out, want)
	}
	out, _ = render(t, false, evs...)
	if out != "Hi there\n" {
		t.Errorf("not a tty: %q, want the answer alone", out)
	}
}

func TestRendererShowsSyntheticTextThatDidNotStream(t *testing.T) {
	fallback := "Sorry, I could not produce an answer."
	// The model streamed only blank text; the engine answered for it.
	out, _ := render(t, false, delta(1, "\n  "), answer(1, fallback, true), completed(fallback))
	if strings.Count(out, fallback) != 1 || !strings.HasSuffix(out, fallback+"\n") {
		t.Errorf("%q, want the fallback once, at the end", out)
	}
	// Nothing streamed at all.
	out, _ = render(t, false, answer(1, fallback, true), completed(fallback))
	if out != fallback+"\n" {
		t.Errorf("%q, want the fallback", out)
	}
	// A streamed answer is not printed twice, even after a blank attempt
	// of the same round (the empty-answer retry).
	out, _ = render(t, false, delta(2, "  "), delta(2, "Real answer"), answer(2, "Real answer", false), completed("Real answer"))
	if strings.Count(out, "Real answer") != 1 {
		t.Errorf("%q, want the answer once", out)
	}
	// An answer whose message this renderer never saw still shows.
	out, _ = render(t, false, completed("Late answer"))
	if out != "Late answer\n" {
		t.Errorf("%q, want the TurnCompleted answer", out)
	}
}

func TestRendererRetryRestartsTheStreamedText(t *testing.T) {
	out, note := render(t, false,
		delta(1, "Bonj"),
		ev(event.ProviderRetry, event.ProviderRetryPayload{Attempt: 1, DelayMS: 1000, Error: "srv: stream ended before completion"}),
		delta(1, "Bonjour"),
		answer(1, "Bonjour", false), completed("Bonjour"))
	if out != "Bonj\nBonjour\n" {
		t.Errorf("stdout %q, want the cut attempt then the full answer once", out)
	}
	if note != "moteur: srv: stream ended before completion; retrying in 1s (attempt 1)\n" {
		t.Errorf("note %q", note)
	}
}

func TestRendererToolLines(t *testing.T) {
	long := `{"content":"` + strings.Repeat("x", 300) + `"}`
	out, _ := render(t, false,
		delta(1, "Let me look."),
		ev(event.AssistantMessage, event.AssistantMessagePayload{Text: "Let me look.", Round: 1, ToolCalls: []llm.ToolCall{
			{ID: "a", Name: "read_file", Arguments: "{\"path\":\n \"go.mod\"}"},
			{ID: "b", Name: "write_file", Arguments: long},
		}}),
		ev(event.ToolResult, event.ToolResultPayload{CallID: "a", Name: "read_file", Content: "module x", DurationMS: 12}),
		ev(event.ToolResult, event.ToolResultPayload{CallID: "b", Name: "write_file", IsError: true, Content: "permission denied\nmore detail"}),
		delta(2, "Done."), answer(2, "Done.", false), completed("Done."))
	lines := strings.Split(out, "\n")
	want := []string{
		"Let me look.",
		`→ read_file {"path": "go.mod"}`,
		"", // the long call, checked below
		"✓ read_file (12 ms)",
		"✗ write_file: permission denied",
		"Done.",
		"",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if i != 2 && lines[i] != w {
			t.Errorf("line %d: %q, want %q", i, lines[i], w)
		}
	}
	if !strings.HasPrefix(lines[2], `→ write_file {"content":"xxx`) || !strings.HasSuffix(lines[2], "…") ||
		len([]rune(lines[2])) > 120 {
		t.Errorf("long call line %q, want arguments cut to about 100 characters", lines[2])
	}
}

func TestRendererStripsEscapesOnTerminal(t *testing.T) {
	hostile := "ok\x1b]52;c;ZXZpbA==\x07\x1b[2J done"
	out, _ := render(t, true, delta(1, hostile), answer(1, hostile, false), completed(hostile))
	if out != "ok]52;c;ZXZpbA==[2J done\n" {
		t.Errorf("tty: %q, want control characters removed", out)
	}
	out, _ = render(t, false, delta(1, hostile), answer(1, hostile, false), completed(hostile))
	if out != hostile+"\n" {
		t.Errorf("pipe: %q, want the text exactly", out)
	}
}

func TestRendererEndsWithNewlineOnlyAfterOutput(t *testing.T) {
	out, _ := render(t, false, delta(1, "no newline"))
	if out != "no newline\n" {
		t.Errorf("%q, want a final newline", out)
	}
	out, _ = render(t, true, thought(1, "hmm"))
	if out != styleFaint+"hmm"+styleReset+"\n" {
		t.Errorf("%q, want the style reset and a newline", out)
	}
	out, _ = render(t, false)
	if out != "" {
		t.Errorf("%q, want nothing for no events", out)
	}
}

func TestRendererNotesRoutingClassificationAndWarnings(t *testing.T) {
	evs := []event.Event{
		ev(event.SessionClassified, event.SessionClassifiedPayload{Marking: "DIFFUSION RESTREINTE", Source: "user"}),
		ev(event.ProviderSelected, event.ProviderSelectedPayload{Provider: "local", Model: "m", Local: true, Reason: "the session is sensitive: local provider"}),
		ev(event.Warning, event.WarningPayload{Kind: "jurisdiction", Message: "x sends to y"}),
		delta(1, "ok"), answer(1, "ok", false), completed("ok"),
	}
	out, note := render(t, false, evs...)
	if out != "ok\n" {
		t.Errorf("stdout %q, want the answer alone", out)
	}
	want := "moteur: session classified: DIFFUSION RESTREINTE — only local providers from now on\n" +
		"moteur: using local (the session is sensitive: local provider)\n" +
		"moteur: warning: x sends to y\n"
	if note != want {
		t.Errorf("notes %q, want %q", note, want)
	}

	// On a terminal the provider note is dimmed.
	var o, n strings.Builder
	r := newRenderer(&o, &n, true, true)
	_ = r.event(evs[1])
	if want := styleFaint + "moteur: using local (the session is sensitive: local provider)" + styleReset + "\n"; n.String() != want {
		t.Errorf("terminal note %q, want %q", n.String(), want)
	}
}

func TestRendererShowsTheErrorsTheTurnDoesNotReturn(t *testing.T) {
	refused := ev(event.Error, event.ErrorPayload{Kind: "outbound", Message: "refused by allowlist: p (h) is not in the allowlist [a]"})
	// A turn that ends in error returns it: the caller prints it, once.
	_, note := render(t, false, refused, ev(event.TurnCompleted, event.TurnCompletedPayload{Reason: event.StopError}))
	if note != "" {
		t.Errorf("notes %q, want nothing", note)
	}
	// A cancelled turn whose closing synthesis was refused returns the
	// cancellation: the refusal is shown here.
	_, note = render(t, false, refused, ev(event.TurnCompleted, event.TurnCompletedPayload{Reason: event.StopCancelled}))
	if note != "moteur: not sent: refused by allowlist: p (h) is not in the allowlist [a]\n" {
		t.Errorf("notes %q", note)
	}
}

func TestRendererShowsPermissionRequestsOnNotes(t *testing.T) {
	req := event.PermissionRequestedPayload{ID: "s/1", Tool: "shell_exec", Summary: "shell_exec: rm -rf\x1b[2J build", Risk: "destructive"}
	out, note := render(t, false, ev(event.PermissionRequested, req))
	if out != "" || note != "moteur: permission needed (risk destructive): shell_exec: rm -rf [2J build\n" {
		t.Errorf("stdout %q, notes %q", out, note)
	}
	// A sub-agent's request is shown too: the user answers it.
	sub := ev(event.PermissionRequested, req)
	sub.ParentCallID = "call_9"
	if _, note := render(t, false, sub); note == "" {
		t.Error("a sub-agent's permission request was not shown")
	}
}

func TestRendererNotesACompaction(t *testing.T) {
	var out, note strings.Builder
	r := newRenderer(&out, &note, false, false)
	_ = r.event(event.Event{Type: event.ContextCompacted, Payload: event.ContextCompactedPayload{Replaced: 12, TokensBefore: 30000, TokensAfter: 9000}})
	if got := note.String(); got != "moteur: context compacted: 30000 → 9000 tokens, 12 messages summarised\n" || out.Len() != 0 {
		t.Errorf("note %q, out %q", got, out.String())
	}
}

// TestRendererShowsProgressAndServersDown: a running call's progress and an
// MCP server that could not start are notes, one line each.
func TestRendererShowsProgressAndServersDown(t *testing.T) {
	_, notes := render(t, false,
		ev(event.McpServerDown, event.McpServerDownPayload{Name: "github", Transport: "http", Error: "connection refused"}),
		event.Event{Type: event.ToolProgress, Ephemeral: true, Payload: event.ToolProgressPayload{CallID: "a", Name: "mcp_everything_longRunningOperation", Message: "step", Done: 2, Total: 5}},
		event.Event{Type: event.ToolProgress, Ephemeral: true, Payload: event.ToolProgressPayload{CallID: "a", Name: "mcp_everything_longRunningOperation", Done: 3}},
		answer(1, "ok", false), completed("ok"))
	want := "moteur: MCP server github is not available: connection refused\n" +
		"· mcp_everything_longRunningOperation: step (2/5)\n" +
		"· mcp_everything_longRunningOperation (3)\n"
	if notes != want {
		t.Errorf("notes:\n%s\nwant:\n%s", notes, want)
	}
}
