package engine

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

// TestAuditFailureStopsTheNextCallOfTheRound: the result of a call cannot be
// recorded (the audit log is gone): the next call of the same round is never
// started, and the turn ends with ErrAuditFailure.
func TestAuditFailureStopsTheNextCallOfTheRound(t *testing.T) {
	var first, second atomic.Int32
	count := func(n *atomic.Int32) func(context.Context, json.RawMessage) (tools.Result, error) {
		return func(context.Context, json.RawMessage) (tools.Result, error) {
			n.Add(1)
			return tools.Result{Content: "ok"}, nil
		}
	}
	steps := []scripted.Step{{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "first", Arguments: `{}`}, {ID: "c2", Name: "second", Arguments: `{}`}}}, {Text: "never"}}
	h := newHarness(t, steps, []tools.Tool{&fakeTool{name: "first", run: count(&first)}, &fakeTool{name: "second", run: count(&second)}}, nil)
	h.sink.failAt = 4 // SessionStarted, UserMessage, AssistantMessage, then c1's ToolResult
	if err := h.submit("q"); !errors.Is(err, ErrAuditFailure) {
		t.Fatalf("Submit = %v, want ErrAuditFailure", err)
	}
	if n := first.Load(); n != 1 {
		t.Fatalf("the first call ran %d times, want once", n)
	}
	if n := second.Load(); n != 0 {
		t.Errorf("the second call ran %d times after its round's first result could not be recorded", n)
	}
	if n := len(h.p.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	for _, e := range h.sink.all() {
		if e.Type == event.ToolResult {
			t.Errorf("a result was recorded: %+v", e)
		}
	}
}
