package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/redact/redacttest"
	"github.com/moteur/moteur/tools"
)

// TestToolProgressIsEphemeralAndMasked: what a running call reports of its
// progress reaches subscribers as ToolProgress events naming the call,
// masked, before its result; none is persisted, and a report after the
// result is dropped.
func TestToolProgressIsEphemeralAndMasked(t *testing.T) {
	var late func()
	slow := &fakeTool{name: "slow", run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		tools.ReportProgress(ctx, tools.Progress{Message: "step 1", Done: 1, Total: 2})
		tools.ReportProgress(ctx, tools.Progress{Message: "token " + redacttest.OpenAI, Done: 2, Total: 2})
		late = func() { tools.ReportProgress(ctx, tools.Progress{Message: "after the result", Done: 3}) }
		return tools.Result{Content: "done"}, nil
	}}
	h := newHarness(t, []scripted.Step{{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "slow", Arguments: `{}`}}}, {Text: "fini"}},
		[]tools.Tool{slow}, nil)
	if err := h.submit("go"); err != nil {
		t.Fatal(err)
	}
	late()
	var got []event.ToolProgressPayload
	result := -1
	for i, ev := range h.drain() {
		switch ev.Type {
		case event.ToolProgress:
			if !ev.Ephemeral || ev.Seq != 0 {
				t.Errorf("ToolProgress persisted: %+v", ev)
			}
			if result >= 0 {
				t.Errorf("ToolProgress after the result: %+v", ev.Payload)
			}
			got = append(got, ev.Payload.(event.ToolProgressPayload))
		case event.ToolResult:
			result = i
		}
	}
	if len(got) != 2 || got[0].CallID != "c1" || got[0].Name != "slow" || got[0].Message != "step 1" ||
		got[0].Done != 1 || got[0].Total != 2 || got[0].Round != 1 {
		t.Fatalf("progress events: %+v", got)
	}
	if strings.Contains(got[1].Message, redacttest.OpenAI) || !strings.HasPrefix(got[1].Message, "token ") {
		t.Errorf("progress not masked: %q", got[1].Message)
	}
	for _, ev := range h.sink.all() {
		if ev.Type == event.ToolProgress {
			t.Errorf("a sink got a ToolProgress: %+v", ev)
		}
	}
}
