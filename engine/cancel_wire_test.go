package engine

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/provider/scripted"
	storage "github.com/moteur/moteur/session"
	"github.com/moteur/moteur/tools"
)

// A turn cancelled by its context (Ctrl-C) stops at once: after the
// cancellation the model server receives nothing more, not even a closing
// synthesis, and the store keeps the turn whole, ending with TurnCompleted
// cancelled, so that the session restores and goes on.

// wireStoreEngine is an engine on a real SQLite store that talks to srv over
// HTTP, with the tools given.
func wireStoreEngine(t *testing.T, st *storage.SQLite, srv *openaitest.Server, toolset ...tools.Tool) *Engine {
	t.Helper()
	client, err := openai.New(openai.Config{BaseURL: srv.BaseURL(), Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(tools.Config{})
	for _, tl := range toolset {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	e, err := New(Deps{Provider: client, Tools: reg, Sinks: []event.Sink{storage.Sink{Store: st}}, Store: st,
		RetryDelays: []time.Duration{time.Millisecond}, StallTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// subscribeUntil reads e's events in the background and calls fn once on
// the first event ok accepts (ok nil: it only reads them).
func subscribeUntil(e *Engine, ok func(event.Event) bool, fn func()) {
	ch := e.Subscribe()
	go func() {
		fired := false
		for ev := range ch {
			if !fired && ok != nil && ok(ev) {
				fired = true
				fn()
			}
		}
	}()
}

func TestWireCancelDuringAToolCallSendsNoFurtherRequest(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_slow", "slow", `{"q":"x"}`),
		// Only a request sent after the cancellation would get this.
		openaitest.Answer("a synthesis nobody asked for"))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	started := make(chan struct{})
	slow := &fakeTool{name: "slow", run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		close(started)
		<-ctx.Done() // runs until the turn is cancelled
		return tools.Result{}, ctx.Err()
	}}
	st := openStore(t, t.TempDir())
	e := wireStoreEngine(t, st, srv, slow)
	subscribeUntil(e, nil, nil)
	go func() {
		<-started
		cancel()
	}()

	if err := e.Submit(ctx, "s-cancel", "do the slow thing"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit = %v, want context.Canceled", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("the server received %d requests, want 1: the one that asked for the call, none after the cancellation", n)
	}
	stored := loadEnded(t, st, "s-cancel")
	res := last[event.ToolResultPayload](t, stored, event.ToolResult)
	if res.CallID != "call_slow" || !res.IsError || !strings.Contains(res.Content, "canceled") {
		t.Errorf("stored ToolResult %+v, want the call cut short, saying so", res)
	}
	restoresAndGoesOn(t, st, stored, "call_slow")
}

func TestWireCancelDuringAModelStreamSendsNoFurtherRequest(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_echo", "echo", `{"q":"x"}`),
		// The second round streams a little, then holds the stream open.
		openaitest.Stall(openaitest.Chunk(`{"role":"assistant"}`, ""), openaitest.Text("Voici ce que")),
		openaitest.Answer("a synthesis nobody asked for"))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	st := openStore(t, t.TempDir())
	e := wireStoreEngine(t, st, srv, echoTool())
	// The text of the second round is on its way: the stream is open.
	subscribeUntil(e, func(ev event.Event) bool { return ev.Type == event.AssistantDelta }, cancel)

	if err := e.Submit(ctx, "s-cancel", "echo x, then explain"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit = %v, want context.Canceled", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("the server received %d requests, want 2: the tool round and the stream cut, none after the cancellation", n)
	}
	stored := loadEnded(t, st, "s-cancel")
	if n := countType(stored, event.AssistantMessage); n != 1 {
		t.Errorf("%d AssistantMessages stored, want only the tool round's: the cut stream is no answer", n)
	}
	restoresAndGoesOn(t, st, stored, "call_echo")
}

// loadEnded loads session id from st and checks that it ends with one
// TurnCompleted, cancelled, with no answer.
func loadEnded(t *testing.T, st *storage.SQLite, id string) []event.Event {
	t.Helper()
	stored, err := st.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) == 0 || stored[len(stored)-1].Type != event.TurnCompleted {
		t.Fatalf("stored events %v, want TurnCompleted last", types(stored))
	}
	if n := countType(stored, event.TurnCompleted); n != 1 {
		t.Errorf("%d TurnCompleted stored, want 1", n)
	}
	tc := stored[len(stored)-1].Payload.(event.TurnCompletedPayload)
	if tc.Reason != event.StopCancelled || tc.Answer != "" {
		t.Errorf("TurnCompleted %+v, want cancelled with no answer", tc)
	}
	return stored
}

// restoresAndGoesOn checks that the stored log restores, and that the next
// turn, in another engine on the same store, sends the model the cancelled
// turn with callID answered.
func restoresAndGoesOn(t *testing.T, st *storage.SQLite, stored []event.Event, callID string) {
	t.Helper()
	fresh, err := New(Deps{Provider: scripted.New(scripted.Config{}), Tools: tools.NewRegistry(tools.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.Restore("s-cancel", stored); err != nil {
		t.Fatalf("Restore of the stored log: %v", err)
	}
	next := openaitest.NewServer(t, openaitest.Answer("reprise"))
	e := wireStoreEngine(t, st, next, echoTool())
	subscribeUntil(e, nil, nil)
	if err := e.Submit(t.Context(), "s-cancel", "and now?"); err != nil {
		t.Fatalf("the next turn: %v", err)
	}
	next.CheckPairing(t)
	reqs := next.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the next turn sent %d requests, want 1", len(reqs))
	}
	msgs := reqs[0].Messages
	if !slices.ContainsFunc(msgs, func(m llm.Message) bool { return m.Role == llm.RoleTool && m.ToolCallID == callID }) {
		t.Errorf("the next turn's request lacks the answer to %s: %+v", callID, msgs)
	}
	if m := msgs[len(msgs)-1]; m.Role != llm.RoleUser || !strings.Contains(m.Content, "and now?") {
		t.Errorf("the next turn's request ends with %+v", m)
	}
}
