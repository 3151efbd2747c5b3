package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

func permissions(t *testing.T, mode policy.Mode, rules policy.Rules) *policy.Permissions {
	t.Helper()
	p, err := policy.NewPermissions(policy.PermissionsConfig{Mode: mode, Rules: rules, Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writer is a write-risk tool that counts its runs and reports whether the
// network was granted.
type writer struct {
	runs     atomic.Int32
	mu       sync.Mutex
	networks []bool // whether each run, in order, was granted the network
}

func (w *writer) tool() *fakeTool {
	return &fakeTool{name: "write_file", risk: effect.RiskWrite, run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		w.runs.Add(1)
		w.mu.Lock()
		w.networks = append(w.networks, tools.NetworkGranted(ctx))
		w.mu.Unlock()
		return tools.Result{Content: "écrit"}, nil
	}}
}

func writeCall(id string) scripted.Step {
	return scripted.Call(id, "write_file", `{"q":"notes.txt"}`)
}

// answerRequests replies to every PermissionRequested with reply, and
// returns the events it saw once the turn completes.
func answerRequests(t *testing.T, h *harness, reply Reply) <-chan []event.Event {
	out := make(chan []event.Event, 1)
	go func() {
		var seen []event.Event
		for ev := range h.events {
			seen = append(seen, ev)
			if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok {
				if err := h.e.Respond(p.ID, reply); err != nil {
					t.Errorf("Respond: %v", err)
				}
			}
			if ev.Type == event.TurnCompleted {
				out <- seen
				return
			}
		}
	}()
	return out
}

// confirmedTurn runs a turn ("écris") of steps in confirm mode, replying
// to every PermissionRequested with reply, and returns its events.
func confirmedTurn(t *testing.T, steps []scripted.Step, toolset []tools.Tool, reply Reply) []event.Event {
	t.Helper()
	h := newHarness(t, steps, toolset, func(d *Deps) {
		d.Permissions = permissions(t, policy.Confirm, policy.Rules{})
	})
	seen := answerRequests(t, h, reply)
	if err := h.submit("écris"); err != nil {
		t.Fatal(err)
	}
	return <-seen
}

func TestAskedCallRunsWhenAllowed(t *testing.T) {
	w := &writer{}
	evs := confirmedTurn(t, []scripted.Step{writeCall("c1"), {Text: "fait"}}, []tools.Tool{w.tool()}, Reply{Allow: true})
	req := last[event.PermissionRequestedPayload](t, evs, event.PermissionRequested)
	if req.Tool != "write_file" || req.Risk != "write" || req.CallID != "c1" || req.Number != 1 || !strings.Contains(req.Summary, "notes.txt") {
		t.Errorf("PermissionRequested = %+v", req)
	}
	res := last[event.PermissionResolvedPayload](t, evs, event.PermissionResolved)
	if !res.Allow || res.By != "user" || res.ID != req.ID {
		t.Errorf("PermissionResolved = %+v", res)
	}
	if w.runs.Load() != 1 {
		t.Errorf("the allowed call ran %d times", w.runs.Load())
	}
}

func TestRefusedCallReturnsTheReasonAndTheLoopGoesOn(t *testing.T) {
	w := &writer{}
	evs := confirmedTurn(t, []scripted.Step{writeCall("c1"), {Text: "d'accord"}}, []tools.Tool{w.tool()},
		Reply{Allow: false, Reason: "pas dans ce dossier"})
	if w.runs.Load() != 0 {
		t.Fatal("a refused call ran")
	}
	r := last[event.ToolResultPayload](t, evs, event.ToolResult)
	if !r.IsError || !strings.Contains(r.Content, "refused") || !strings.Contains(r.Content, "pas dans ce dossier") {
		t.Errorf("result = %+v", r)
	}
	if tc := completed(t, evs); tc.Answer != "d'accord" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestDenyRuleRefusesWithoutAsking(t *testing.T) {
	w := &writer{}
	h := newHarness(t, []scripted.Step{writeCall("c1"), {Text: "ok"}}, []tools.Tool{w.tool()}, func(d *Deps) {
		d.Permissions = permissions(t, policy.AutoWrite, policy.Rules{Deny: []string{"write_file"}})
	})
	if err := h.submit("écris"); err != nil {
		t.Fatal(err)
	}
	evs := h.drain()
	if countType(evs, event.PermissionRequested) != 0 || w.runs.Load() != 0 {
		t.Fatal("a denied call was asked about or ran")
	}
	if r := last[event.ToolResultPayload](t, evs, event.ToolResult); !strings.Contains(r.Content, "deny") {
		t.Errorf("result should name the rule: %q", r.Content)
	}
}

func TestRespondUnknownAndTwice(t *testing.T) {
	h := newHarness(t, []scripted.Step{writeCall("c1"), {Text: "ok"}}, []tools.Tool{(&writer{}).tool()}, func(d *Deps) {
		d.Permissions = permissions(t, policy.Confirm, policy.Rules{})
	})
	if err := h.e.Respond("nope", Reply{Allow: true}); !errors.Is(err, ErrUnknownPermission) {
		t.Errorf("unknown id: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- h.submit("écris") }()
	var id string
	for ev := range h.events {
		if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok {
			id = p.ID
			break
		}
	}
	if err := h.e.Respond(id, Reply{Allow: true}); err != nil {
		t.Fatal(err)
	}
	if err := h.e.Respond(id, Reply{Allow: false}); !errors.Is(err, ErrUnknownPermission) {
		t.Errorf("second reply: %v, want ErrUnknownPermission", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestUnansweredRequestTimesOutAsRefusal(t *testing.T) {
	w := &writer{}
	h := newHarness(t, []scripted.Step{writeCall("c1"), {Text: "ok"}}, []tools.Tool{w.tool()}, func(d *Deps) {
		d.Permissions = permissions(t, policy.Confirm, policy.Rules{})
		d.ApprovalTimeout = 10 * time.Millisecond
	})
	if err := h.submit("écris"); err != nil {
		t.Fatal(err)
	}
	evs := h.drain()
	if res := last[event.PermissionResolvedPayload](t, evs, event.PermissionResolved); res.Allow || res.By != "timeout" {
		t.Errorf("PermissionResolved = %+v", res)
	}
	if r := last[event.ToolResultPayload](t, evs, event.ToolResult); !strings.Contains(r.Content, "did not answer") || w.runs.Load() != 0 {
		t.Errorf("result = %+v, runs %d", r, w.runs.Load())
	}
}

func TestRememberAllowsTheSameCallLaterButNeverTheNetwork(t *testing.T) {
	w := &writer{}
	steps := []scripted.Step{writeCall("c1"), writeCall("c2"), {Text: "ok"}}
	h := newHarness(t, steps, []tools.Tool{w.tool()}, func(d *Deps) {
		d.Permissions = permissions(t, policy.Confirm, policy.Rules{})
	})
	var asked atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range h.events {
			if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok {
				asked.Add(1)
				_ = h.e.Respond(p.ID, Reply{Allow: true, Remember: true, Network: true})
			}
			if ev.Type == event.TurnCompleted {
				return
			}
		}
	}()
	if err := h.submit("écris deux fois"); err != nil {
		t.Fatal(err)
	}
	<-done
	if asked.Load() != 1 || w.runs.Load() != 2 {
		t.Errorf("asked %d times, ran %d times; want 1 and 2", asked.Load(), w.runs.Load())
	}
	// The approved call got the network; the remembered one did not:
	// Network is never remembered.
	if fmt.Sprint(w.networks) != "[true false]" {
		t.Errorf("network granted per run = %v, want [true false]", w.networks)
	}
}

func TestReplyRacingACancelledTurn(t *testing.T) {
	w := &writer{}
	h := newHarness(t, []scripted.Step{writeCall("c1"), {Text: "never"}}, []tools.Tool{w.tool()}, func(d *Deps) {
		d.Permissions = permissions(t, policy.Confirm, policy.Rules{})
	})
	ctx, cancel := context.WithCancel(context.Background())
	ids := make(chan string, 1)
	go func() {
		for ev := range h.events {
			if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok {
				ids <- p.ID
				cancel()
				return
			}
		}
	}()
	if err := h.e.Submit(ctx, "s1", "écris"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit = %v", err)
	}
	if err := h.e.Respond(<-ids, Reply{Allow: true}); !errors.Is(err, ErrUnknownPermission) {
		t.Errorf("a reply after the turn ended = %v, want ErrUnknownPermission", err)
	}
	if w.runs.Load() != 0 {
		t.Error("the call ran without approval")
	}
	if res := last[event.PermissionResolvedPayload](t, h.sink.all(), event.PermissionResolved); res.By != "cancelled" {
		t.Errorf("audit log records %+v", res)
	}
}

// TestWaitingDoesNotCountAgainstTheToolTimeout answers only after longer
// than the tool's own deadline: the call must still succeed.
func TestWaitingDoesNotCountAgainstTheToolTimeout(t *testing.T) {
	w := &writer{}
	h := newHarness(t, []scripted.Step{writeCall("c1"), {Text: "ok"}}, nil, func(d *Deps) {
		d.Permissions = permissions(t, policy.Confirm, policy.Rules{})
		d.Tools = tools.NewRegistry(tools.Config{Timeout: 20 * time.Millisecond})
		_ = d.Tools.Register(w.tool())
	})
	go func() {
		for ev := range h.events {
			if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok {
				<-time.After(60 * time.Millisecond) // the user takes longer than the tool's deadline
				_ = h.e.Respond(p.ID, Reply{Allow: true})
			}
		}
	}()
	if err := h.submit("écris"); err != nil {
		t.Fatal(err)
	}
	if r := last[event.ToolResultPayload](t, h.sink.all(), event.ToolResult); r.IsError {
		t.Errorf("result = %+v", r)
	}
}

var _ = llm.RoleUser

// proxyTool runs, under its own name, the tool its arguments name (as
// call_mcp_tool does): the permissions judge each call as that tool.
type proxyTool struct {
	fakeTool
}

func (p *proxyTool) ProxyFor(args json.RawMessage) (string, json.RawMessage, bool) {
	var a struct {
		Ref  string          `json:"tool_ref"`
		Args json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(args, &a) != nil || a.Ref == "" {
		return "", nil, false
	}
	return a.Ref, a.Args, true
}

// TestProxyCallIsJudgedAsTheToolItRuns: a deny rule written for a tool
// refuses it when the model reaches it through a proxy, and a call to
// another tool through the same proxy runs (so the refusal is the rule's,
// not the proxy's).
func TestProxyCallIsJudgedAsTheToolItRuns(t *testing.T) {
	var ran []string
	proxy := &proxyTool{fakeTool{name: "call_mcp_tool", risk: effect.RiskWrite, run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		ran = append(ran, string(args))
		return tools.Result{Content: "ran"}, nil
	}}}
	steps := []scripted.Step{
		scripted.Call("c1", "call_mcp_tool", `{"tool_ref":"mcp_github_delete_repo","arguments":{"repo":"x"}}`),
		scripted.Call("c2", "call_mcp_tool", `{"tool_ref":"mcp_notes_add","arguments":{"text":"y"}}`),
		{Text: "ok"},
	}
	h := newHarness(t, steps, []tools.Tool{proxy}, func(d *Deps) {
		d.Permissions = permissions(t, policy.AutoWrite, policy.Rules{Deny: []string{"mcp_github_*"}})
	})
	if err := h.submit("go"); err != nil {
		t.Fatal(err)
	}
	evs := h.drain()
	var results []event.ToolResultPayload
	for _, ev := range evs {
		if p, ok := ev.Payload.(event.ToolResultPayload); ok {
			results = append(results, p)
		}
	}
	if len(results) != 2 || !results[0].IsError || !strings.Contains(results[0].Content, "mcp_github_*") || results[1].IsError {
		t.Fatalf("results: %+v", results)
	}
	if len(ran) != 1 || !strings.Contains(ran[0], "mcp_notes_add") {
		t.Fatalf("the proxy ran %q, want only the call to mcp_notes_add", ran)
	}
}
