package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

func TestMegabytePromptIsRejectedClearly(t *testing.T) {
	h := newHarness(t, []scripted.Step{{Text: "never"}}, nil, nil)
	err := h.submit(strings.Repeat("données ", 1<<17))
	if !errors.Is(err, errInputTooLong) || !strings.Contains(err.Error(), "context window") {
		t.Fatalf("Submit = %v, want a clear input-too-long error", err)
	}
	if n := len(h.p.Requests()); n != 0 {
		t.Errorf("an input that cannot fit was sent to the provider")
	}
	evs := h.drain()
	if ep := last[event.ErrorPayload](t, evs, event.Error); ep.Kind != "input" {
		t.Errorf("Error event = %+v", ep)
	}
	if tc := completed(t, evs); tc.Reason != event.StopError {
		t.Errorf("TurnCompleted = %+v", tc)
	}
	// The session stays usable.
	h.p = scripted.New(scripted.Config{Steps: []scripted.Step{{Text: "ok"}}})
	h.e.deps.Provider = h.p
	if err := h.submit("court"); err != nil {
		t.Fatalf("next Submit = %v", err)
	}
}

func TestMegabytePromptFitsLargeWindow(t *testing.T) {
	h := newHarness(t, []scripted.Step{{Text: "lu"}}, nil, func(d *Deps) { d.ContextWindow = 1 << 20 })
	big := strings.Repeat("x", 1<<20)
	if err := h.submit(big); err != nil {
		t.Fatal(err)
	}
	if got := h.p.Requests()[0].Messages[1].Content; len(got) != len(big) {
		t.Errorf("prompt of %d bytes reached the provider as %d", len(big), len(got))
	}
}

func TestUnknownToolResultNamesTheToolsAndLoopGoesOn(t *testing.T) {
	steps := []scripted.Step{scripted.Call("c1", "nope", `{}`), {Text: "ok"}}
	h := newHarness(t, steps, []tools.Tool{&fakeTool{name: "echo"}, &fakeTool{name: "grep"}}, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	evs := h.drain()
	r := last[event.ToolResultPayload](t, evs, event.ToolResult)
	if !r.IsError || !strings.Contains(r.Content, "echo") || !strings.Contains(r.Content, "grep") {
		t.Errorf("unknown tool result = %+v", r)
	}
	if tc := completed(t, evs); tc.Answer != "ok" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestArgumentsThatAreNotJSON(t *testing.T) {
	steps := []scripted.Step{scripted.Call("c1", "echo", `this is not json at all {{{`), {Text: "ok"}}
	h := newHarness(t, steps, []tools.Tool{&fakeTool{name: "echo"}}, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	evs := h.drain()
	r := last[event.ToolResultPayload](t, evs, event.ToolResult)
	if !r.IsError || !strings.HasSuffix(strings.TrimSpace(r.Content), i18n.AnalyzeErrorSuffix) {
		t.Errorf("result = %+v", r)
	}
	if tc := completed(t, evs); tc.Answer != "ok" {
		t.Errorf("the loop must go on: %+v", tc)
	}
}

func TestEmptyStreamGetsFallback(t *testing.T) {
	empty := scripted.Step{Finish: llm.FinishUnknown}
	h := newHarness(t, []scripted.Step{empty, empty, empty}, nil, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	if tc := completed(t, h.drain()); tc.Reason != event.StopEmptyFallback {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestMissingCallIDsAreMadeUnique(t *testing.T) {
	steps := []scripted.Step{{ToolCalls: []llm.ToolCall{
		{Name: "echo", Arguments: `{}`}, {ID: "dup", Name: "echo", Arguments: `{}`}, {ID: "dup", Name: "echo", Arguments: `{}`},
	}}, {Text: "ok"}}
	h := newHarness(t, steps, []tools.Tool{&fakeTool{name: "echo", concurrent: true}}, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	// checkPairing (in the harness) fails the test on any id clash.
	if n := countType(h.drain(), event.ToolResult); n != 3 {
		t.Errorf("%d results for 3 calls", n)
	}
}

func TestEmptyInputAndSessionRejected(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	if err := h.submit("   "); !errors.Is(err, ErrEmptyInput) {
		t.Errorf("empty input: %v", err)
	}
	if err := h.e.Submit(t.Context(), " ", "q"); err == nil {
		t.Errorf("empty session id accepted")
	}
	if n := len(h.drain()); n != 0 {
		t.Errorf("%d events for rejected input", n)
	}
}

// TestNewWithoutProvider: an engine without a provider is made (it rewinds
// and answers approvals), and refuses to run a turn, recording nothing.
func TestNewWithoutProvider(t *testing.T) {
	sink := &memSink{}
	e, err := New(Deps{Sinks: []event.Sink{sink}})
	if err != nil {
		t.Fatalf("New without a provider: %v", err)
	}
	if err := e.Submit(t.Context(), "s1", "hello"); !errors.Is(err, ErrNoProvider) {
		t.Fatalf("Submit without a provider: %v, want ErrNoProvider", err)
	}
	if n := len(sink.all()); n != 0 {
		t.Fatalf("%d events recorded by a refused turn", n)
	}
}
