package engine

import (
	"context"
	"encoding/json"
	"github.com/moteur/moteur/effect"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

// assessed is a tool whose risk depends on its arguments and which reports
// the file it changed and the call it ran for.
type assessed struct {
	fakeTool
	seen chan tools.CallInfo
}

func (a *assessed) RiskOf(args json.RawMessage) effect.Risk {
	if strings.Contains(string(args), "rm") {
		return effect.RiskDestructive
	}
	return effect.RiskRead
}

func TestCallRiskComesFromTheArgumentsAndChangesAreRecorded(t *testing.T) {
	a := &assessed{seen: make(chan tools.CallInfo, 2)}
	a.fakeTool = fakeTool{name: "act", run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		info, _ := tools.CallFrom(ctx)
		a.seen <- info
		return tools.Result{Content: "ok", Changes: []effect.Change{{Path: "a.txt", After: "abc"}}, NotUndoable: true}, nil
	}}
	steps := []scripted.Step{
		{ToolCalls: calls("act")},
		scripted.Call("c2", "act", `{"q":"rm -rf build"}`),
		{Text: "fini"},
	}
	h := newHarness(t, steps, []tools.Tool{a}, func(d *Deps) {
		d.Permissions = permissions(t, policy.AutoWrite, policy.Rules{})
		d.ApprovalTimeout = 1 // refused at once: nobody answers
	})
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	evs := h.drain()
	req := last[event.PermissionRequestedPayload](t, evs, event.PermissionRequested)
	if req.CallID != "c2" || req.Risk != "destructive" {
		t.Errorf("PermissionRequested = %+v: the destructive arguments must ask in auto_write", req)
	}
	var first event.ToolResultPayload
	for _, e := range evs {
		if r, ok := e.Payload.(event.ToolResultPayload); ok && r.CallID == "call_0" {
			first = r
		}
	}
	if len(first.Changes) != 1 || first.Changes[0].Path != "a.txt" || !first.NotUndoable || first.Risk != "read" {
		t.Errorf("first result = %+v", first)
	}
	if info := <-a.seen; info.Session != "s1" || info.CallID != "call_0" {
		t.Errorf("the tool saw call %+v", info)
	}
}
