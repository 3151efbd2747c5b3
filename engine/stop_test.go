package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

func TestNaturalStop(t *testing.T) {
	h := newHarness(t, []scripted.Step{{Text: "Bonjour à vous", Reasoning: "greet"}}, nil, nil)
	if err := h.submit("salut"); err != nil {
		t.Fatal(err)
	}
	evs := h.drain()
	got := types(persisted(evs))
	want := []event.Type{event.SessionStarted, event.UserMessage, event.AssistantMessage, event.TurnCompleted}
	if !equalTypes(got, want) {
		t.Fatalf("persisted events = %v, want %v", got, want)
	}
	for i, e := range persisted(evs) {
		if e.Seq != uint64(i+1) {
			t.Errorf("event %d has seq %d, want %d", i, e.Seq, i+1)
		}
	}
	var text, reasoning strings.Builder
	for _, e := range evs {
		if !e.Ephemeral {
			continue
		}
		if e.Seq != 0 {
			t.Errorf("ephemeral %s has seq %d", e.Type, e.Seq)
		}
		switch e.Type {
		case event.AssistantDelta:
			text.WriteString(e.Payload.(event.DeltaPayload).Text)
		case event.ReasoningDelta:
			reasoning.WriteString(e.Payload.(event.DeltaPayload).Text)
		}
	}
	if text.String() != "Bonjour à vous" || reasoning.String() != "greet" {
		t.Errorf("deltas: text %q reasoning %q", text.String(), reasoning.String())
	}
	tc := completed(t, evs)
	if tc.Reason != event.StopNatural || tc.Answer != "Bonjour à vous" || tc.Rounds != 1 {
		t.Errorf("TurnCompleted = %+v", tc)
	}
	if n := len(h.sink.all()); n != 4 {
		t.Errorf("sink got %d events, want the 4 persisted ones", n)
	}
	req := h.p.Requests()[0]
	if req.Messages[0].Role != llm.RoleSystem || req.Messages[0].Content != "SYSTEM" || req.Messages[1].Content != "salut" {
		t.Errorf("first request messages = %+v", req.Messages)
	}
}

func TestEmptyAnswerNudgedThenAnswered(t *testing.T) {
	h := newHarness(t, []scripted.Step{{Text: "  "}, {Text: ""}, {Text: "enfin"}}, nil, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	reqs := h.p.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, n := range []int{0, 1, 2} {
		if c := countNudges(reqs[i].Messages); c != n {
			t.Errorf("request %d carries %d nudges, want %d", i+1, c, n)
		}
	}
	evs := h.drain()
	tc := completed(t, evs)
	if tc.Reason != event.StopNatural || tc.Answer != "enfin" || tc.Rounds != 1 {
		t.Errorf("nudges must not consume rounds: %+v", tc)
	}
	if n := countType(evs, event.AssistantMessage); n != 1 {
		t.Errorf("%d AssistantMessage events; empty answers must not be recorded", n)
	}
}

func TestEmptyAnswersExhaustedGiveFallback(t *testing.T) {
	h := newHarness(t, []scripted.Step{{}, {}, {}, {Text: "never sent"}}, nil, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	if n := len(h.p.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3 (the answer and 2 nudges)", n)
	}
	tc := completed(t, h.drain())
	if tc.Reason != event.StopEmptyFallback || tc.Answer != i18n.T(i18n.FR, i18n.EmptyFallback) {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestLengthWithBodyIsDeliveredTruncated(t *testing.T) {
	h := newHarness(t, []scripted.Step{{Text: "une réponse coupée", Finish: llm.FinishLength}}, nil, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	evs := h.drain()
	am := last[event.AssistantMessagePayload](t, evs, event.AssistantMessage)
	tc := completed(t, evs)
	if !am.Truncated || !tc.Truncated || tc.Reason != event.StopTruncated || tc.Answer != "une réponse coupée" {
		t.Errorf("assistant %+v, completed %+v", am, tc)
	}
}

func TestLengthWithoutBodyRetriesAsEmpty(t *testing.T) {
	h := newHarness(t, []scripted.Step{{Reasoning: "long thoughts", Finish: llm.FinishLength}, {Text: "ok"}}, nil, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	reqs := h.p.Requests()
	if len(reqs) != 2 || countNudges(reqs[1].Messages) != 1 {
		t.Fatalf("want a nudged retry, got %d requests", len(reqs))
	}
	if tc := completed(t, h.drain()); tc.Reason != event.StopNatural || tc.Answer != "ok" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestThreeConsecutiveLengthRoundsStop(t *testing.T) {
	cut := func(id string) scripted.Step {
		return scripted.Step{Text: "j'écris", Finish: llm.FinishLength,
			ToolCalls: []llm.ToolCall{{ID: id, Name: "echo", Arguments: `{"q":"abc`}}}
	}
	ran := 0
	tool := &fakeTool{name: "echo", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		ran++
		return tools.Result{Content: "ran"}, nil
	}}
	h := newHarness(t, []scripted.Step{cut("a"), cut("b"), cut("c"), {Text: "never"}}, []tools.Tool{tool}, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	if ran != 0 {
		t.Errorf("a call cut by the output limit ran %d times", ran)
	}
	evs := h.drain()
	tc := completed(t, evs)
	if tc.Reason != event.StopLengthLimit || tc.Answer != "j'écris" || len(h.p.Requests()) != 3 {
		t.Errorf("TurnCompleted = %+v after %d requests", tc, len(h.p.Requests()))
	}
	for _, e := range evs {
		if r, ok := e.Payload.(event.ToolResultPayload); ok && (!r.IsError || !strings.Contains(r.Content, i18n.AnalyzeErrorSuffix)) {
			t.Errorf("cut call result = %+v", r)
		}
	}
	if final := last[event.AssistantMessagePayload](t, evs, event.AssistantMessage); len(final.ToolCalls) != 0 {
		t.Errorf("the final message keeps unanswerable calls: %+v", final.ToolCalls)
	}
}

func TestThreeLengthRoundsWithoutBodyGiveFixedMessage(t *testing.T) {
	step := scripted.Step{Reasoning: "…", Finish: llm.FinishLength}
	h := newHarness(t, []scripted.Step{step, step, step}, nil, func(d *Deps) { d.Lang = i18n.EN })
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	if tc := completed(t, h.drain()); tc.Reason != event.StopLengthLimit || tc.Answer != i18n.T(i18n.EN, i18n.LengthLimit) {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestContentFilter(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"", i18n.T(i18n.FR, i18n.ContentFiltered)},
		{"partiel", "partiel"},
	} {
		h := newHarness(t, []scripted.Step{{Text: tc.text, Finish: llm.FinishContentFilter}}, nil, nil)
		if err := h.submit("q"); err != nil {
			t.Fatal(err)
		}
		got := completed(t, h.drain())
		if got.Reason != event.StopContentFilter || got.Answer != tc.want || len(h.p.Requests()) != 1 {
			t.Errorf("text %q: TurnCompleted = %+v", tc.text, got)
		}
	}
}

func TestRepeatedAnswersWithoutToolsStop(t *testing.T) {
	same := scripted.Step{Text: "Je vais chercher.", Finish: llm.FinishToolCalls}
	h := newHarness(t, []scripted.Step{same, same, {Text: "never"}}, nil, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	if n := len(h.p.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
	if tc := completed(t, h.drain()); tc.Reason != event.StopRepeated || tc.Answer != "Je vais chercher." {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestMaxIterationsClosingRequest(t *testing.T) {
	steps := []scripted.Step{
		scripted.Call("c1", "echo", `{"q":"1"}`),
		scripted.Call("c2", "echo", `{"q":"2"}`),
		{Text: "synthèse finale"},
	}
	h := newHarness(t, steps, []tools.Tool{&fakeTool{name: "echo"}}, func(d *Deps) { d.MaxIterations = 2 })
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	reqs := h.p.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	closing := reqs[2]
	if closing.ToolChoice != llm.ToolChoiceNone || !closing.NoThinking {
		t.Errorf("closing request: tool_choice %q, no thinking %v", closing.ToolChoice, closing.NoThinking)
	}
	if lastMsg := closing.Messages[len(closing.Messages)-1]; lastMsg.Content != i18n.T(i18n.FR, i18n.ClosingInstruction) {
		t.Errorf("closing request ends with %+v", lastMsg)
	}
	if tc := completed(t, h.drain()); tc.Reason != event.StopMaxIterations || tc.Answer != "synthèse finale" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestProviderErrorWithToolResultsSynthesizes(t *testing.T) {
	steps := []scripted.Step{
		scripted.Call("c1", "echo", `{}`),
		scripted.Fail(provider.Permanent, 400, "bad request"),
		{Text: "voici ce que j'ai"},
	}
	h := newHarness(t, steps, []tools.Tool{&fakeTool{name: "echo"}}, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	reqs := h.p.Requests()
	if len(reqs) != 3 || reqs[2].ToolChoice != llm.ToolChoiceNone {
		t.Fatalf("want a closing synthesis as third request, got %d requests", len(reqs))
	}
	if tc := completed(t, h.drain()); tc.Reason != event.StopProviderError || tc.Answer != "voici ce que j'ai" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestProviderErrorWithoutResultsIsAnError(t *testing.T) {
	h := newHarness(t, []scripted.Step{scripted.Fail(provider.Permanent, 401, "invalid api key")}, nil, nil)
	err := h.submit("q")
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Status != 401 {
		t.Fatalf("Submit error = %v, want the provider's 401", err)
	}
	evs := h.drain()
	ep := last[event.ErrorPayload](t, evs, event.Error)
	if ep.Kind != "provider" || ep.Status != 401 || !strings.Contains(ep.Message, "invalid api key") {
		t.Errorf("Error event = %+v", ep)
	}
	if tc := completed(t, evs); tc.Reason != event.StopError {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestCancellationWithoutResultsStopsQuietly(t *testing.T) {
	reached := make(chan struct{})
	h := newHarness(t, []scripted.Step{{Stall: true, Reached: reached}}, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go cancelWhen(reached, cancel)
	err := h.e.Submit(ctx, "s1", "q")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit = %v, want context.Canceled", err)
	}
	if n := len(h.p.Requests()); n != 1 {
		t.Errorf("%d requests; nothing to rescue, so no synthesis", n)
	}
	if tc := completed(t, h.sink.all()); tc.Reason != event.StopCancelled {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestCancellationAfterResultsSendsNothingMore(t *testing.T) {
	reached := make(chan struct{})
	steps := []scripted.Step{scripted.Call("c1", "echo", `{}`), {Stall: true, Reached: reached}, {Text: "never asked"}}
	h := newHarness(t, steps, []tools.Tool{&fakeTool{name: "echo"}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	// Cancelled while the second request is in flight, after the tool's
	// result: the turn stops there, with no synthesis of what it found.
	go cancelWhen(reached, cancel)
	err := h.e.Submit(ctx, "s1", "q")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit = %v, want context.Canceled", err)
	}
	if n := len(h.p.Requests()); n != 2 {
		t.Fatalf("%d requests, want 2: none after the cancellation", n)
	}
	evs := h.sink.all()
	tc := completed(t, evs)
	if tc.Reason != event.StopCancelled || tc.Answer != "" || tc.Requests != 2 {
		t.Errorf("TurnCompleted = %+v", tc)
	}
	if n := countType(evs, event.ToolResult); n != 1 {
		t.Errorf("%d ToolResults stored, want the call's one", n)
	}
}

// cancelWhen cancels once the scripted request that closes reached is in
// flight: cancelling on an earlier event could beat the send.
func cancelWhen(reached <-chan struct{}, cancel context.CancelFunc) {
	<-reached
	cancel()
}

// cancelOn reads the subscription and cancels once an event of type typ
// arrives; the rest is left for the test.
func cancelOn(h *harness, cancel context.CancelFunc, typ event.Type) {
	for ev := range h.events {
		if ev.Type == typ {
			cancel()
			return
		}
	}
}

func countNudges(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == llm.RoleUser && m.Content == i18n.Nudge {
			n++
		}
	}
	return n
}

func countType(evs []event.Event, typ event.Type) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func equalTypes(a, b []event.Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The turn is stopped by the tool itself, in the turn's own goroutine
// order: nothing races the loop's context check (a cancel from another
// goroutine made this test flaky under load).
func TestCancelledDuringAToolSendsNoFurtherRequest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := false
	stopper := &fakeTool{name: "echo", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		ran = true
		cancel()
		return tools.Result{Content: "fait"}, nil
	}}
	steps := []scripted.Step{scripted.Call("c1", "echo", `{}`), {Text: "never asked"}}
	h := newHarness(t, steps, []tools.Tool{stopper}, nil)
	if err := h.e.Submit(ctx, "s1", "q"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit = %v, want context.Canceled", err)
	}
	if !ran {
		t.Fatal("the tool did not run")
	}
	if n := len(h.p.Requests()); n != 1 {
		t.Errorf("%d requests, want 1: none after the cancellation", n)
	}
	evs := h.sink.all()
	if n := countType(evs, event.Error); n != 0 {
		t.Errorf("%d Error events, want none", n)
	}
	if tc := completed(t, evs); tc.Reason != event.StopCancelled || tc.Answer != "" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

// A call that had not started when the turn was cancelled (it waited
// behind a serial one) is not run at all: a tool that ignores its context
// must not act while its result says it was cut short.
func TestCallsNotStartedWhenCancelledAreNotRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := &fakeTool{name: "first", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		cancel()
		return tools.Result{Content: "fait"}, nil
	}}
	secondRan := false
	second := &fakeTool{name: "second", risk: effect.RiskWrite, run: func(context.Context, json.RawMessage) (tools.Result, error) {
		secondRan = true
		return tools.Result{Content: "écrit"}, nil
	}}
	steps := []scripted.Step{{ToolCalls: calls("first", "second")}, {Text: "never asked"}}
	h := newHarness(t, steps, []tools.Tool{first, second}, nil)
	if err := h.e.Submit(ctx, "s1", "q"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit = %v, want context.Canceled", err)
	}
	if secondRan {
		t.Error("the second call ran after the cancellation")
	}
	var results []event.ToolResultPayload
	for _, ev := range h.sink.all() {
		if r, ok := ev.Payload.(event.ToolResultPayload); ok {
			results = append(results, r)
		}
	}
	if len(results) != 2 || results[0].Content != "fait" {
		t.Fatalf("results %+v, want the first call's and a refusal of the second", results)
	}
	if r := results[1]; !r.IsError || !strings.Contains(r.Content, "not run") {
		t.Errorf("second result %+v, want an error saying it was not run", r)
	}
}
