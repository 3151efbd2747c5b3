package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

func TestSinkFailureStopsTurnAndLaterSubmits(t *testing.T) {
	steps := []scripted.Step{scripted.Call("c1", "echo", `{}`), {Text: "never"}, {Text: "never"}}
	h := newHarness(t, steps, []tools.Tool{&fakeTool{name: "echo"}}, nil)
	audit := &memSink{}
	h.e.deps.Sinks = []event.Sink{audit, h.sink}
	h.sink.failAt = 4 // the ToolResult, on the second sink
	err := h.submit("q")
	if !errors.Is(err, ErrAuditFailure) {
		t.Fatalf("Submit = %v, want ErrAuditFailure", err)
	}
	if n := len(h.p.Requests()); n != 1 {
		t.Errorf("%d requests; the turn must stop at the failure", n)
	}
	if err := h.submit("again"); !errors.Is(err, ErrAuditFailure) {
		t.Fatalf("next Submit = %v, want ErrAuditFailure", err)
	}
	if n := len(h.p.Requests()); n != 1 {
		t.Errorf("a refused Submit reached the provider")
	}
	evs := h.drain()
	got := types(persisted(evs))
	want := []event.Type{event.SessionStarted, event.UserMessage, event.AssistantMessage}
	if !equalTypes(got, want) {
		t.Errorf("subscribers got %v, want the events before the failure %v", got, want)
	}
	if ep := last[event.ErrorPayload](t, evs, event.Error); ep.Kind != "audit" {
		t.Errorf("subscribers were not told of the audit failure: %+v", ep)
	}
	if n := len(audit.all()); n != 4 {
		t.Errorf("audit sink holds %d events, want 4 (written before the second sink failed)", n)
	}
}

func TestSessionsRunConcurrently(t *testing.T) {
	hold, reached := make(chan struct{}), make(chan struct{})
	h := newHarness(t, []scripted.Step{{Text: "A", Await: hold, Reached: reached}, {Text: "B"}}, nil, nil)
	errA := make(chan error, 1)
	go func() { errA <- h.e.Submit(context.Background(), "A", "first") }()
	<-reached
	// Session A's request is held by the provider; B must still complete.
	if err := h.e.Submit(context.Background(), "B", "second"); err != nil {
		t.Fatal(err)
	}
	close(hold)
	if err := <-errA; err != nil {
		t.Fatal(err)
	}
}

func TestTurnsOfOneSessionAreSerialised(t *testing.T) {
	hold := make(chan struct{})
	h := newHarness(t, []scripted.Step{{Text: "un", Await: hold}, {Text: "deux"}}, nil, nil)
	first := make(chan error, 1)
	go func() { first <- h.e.Submit(context.Background(), "s1", "premier") }()
	for ev := range h.events {
		if ev.Type == event.UserMessage {
			break
		}
	}
	// A second turn whose context ends while it waits must give up
	// without emitting anything.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.e.Submit(ctx, "s1", "impatient"); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting Submit = %v, want context.Canceled", err)
	}
	second := make(chan error, 1)
	go func() { second <- h.e.Submit(context.Background(), "s1", "second") }()
	close(hold)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, e := range h.sink.all() {
		if p, ok := e.Payload.(event.UserMessagePayload); ok {
			users = append(users, p.Text)
		}
		if e.Type == event.TurnCompleted && len(users) == 1 {
			users = append(users, "|")
		}
	}
	if len(users) != 3 || users[0] != "premier" || users[1] != "|" || users[2] != "second" {
		t.Errorf("turns interleaved: %v", users)
	}
}
