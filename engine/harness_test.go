package engine

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/moteur/moteur/effect"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

// memSink keeps events in memory and can be told to fail.
type memSink struct {
	mu     sync.Mutex
	events []event.Event
	failAt uint64 // fail the write of this seq (0: never)
}

func (m *memSink) Write(_ context.Context, e event.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failAt != 0 && e.Seq >= m.failAt {
		return errors.New("disk full")
	}
	m.events = append(m.events, e)
	return nil
}

func (m *memSink) all() []event.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]event.Event(nil), m.events...)
}

// fakeTool is a tool whose behaviour a test supplies.
type fakeTool struct {
	name       string
	concurrent bool
	risk       effect.Risk
	run        func(ctx context.Context, args json.RawMessage) (tools.Result, error)
}

func (f *fakeTool) Name() string        { return f.name }
func (f *fakeTool) Description() string { return "test tool " + f.name }
func (f *fakeTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
}
func (f *fakeTool) Risk() effect.Risk {
	if f.risk == "" {
		return effect.RiskRead
	}
	return f.risk
}
func (f *fakeTool) Concurrent() bool { return f.concurrent }
func (f *fakeTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	if f.run == nil {
		return tools.Result{Content: "ok:" + f.name}, nil
	}
	return f.run(ctx, args)
}

// harness wires an engine to a scripted provider, a memory sink and a
// subscription.
type harness struct {
	t      *testing.T
	e      *Engine
	p      *scripted.Provider
	sink   *memSink
	events <-chan event.Event
	reg    *tools.Registry
}

var epoch = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// fixedClock advances one millisecond per reading, so runs are reproducible.
func fixedClock() func() time.Time {
	var mu sync.Mutex
	now := epoch
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Millisecond)
		return now
	}
}

func newHarness(t *testing.T, steps []scripted.Step, toolset []tools.Tool, tweak func(*Deps)) *harness {
	t.Helper()
	reg := tools.NewRegistry(tools.Config{})
	for _, tl := range toolset {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	p := scripted.New(scripted.Config{Steps: steps})
	sink := &memSink{}
	d := Deps{Provider: p, Tools: reg, Sinks: []event.Sink{sink}, Now: fixedClock(),
		RetryDelays: []time.Duration{time.Microsecond, time.Microsecond}, SystemPrompt: "SYSTEM"}
	if tweak != nil {
		tweak(&d)
	}
	e, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, e: e, p: p, sink: sink, events: e.Subscribe(), reg: reg}
	t.Cleanup(func() { checkPairing(t, p.Requests()) })
	return h
}

func (h *harness) submit(text string) error {
	return h.e.Submit(context.Background(), "s1", text)
}

// drain returns every event already delivered; Submit guarantees a turn's
// events are all in the channel when it returns.
func (h *harness) drain() []event.Event {
	var out []event.Event
	for {
		select {
		case ev := <-h.events:
			out = append(out, ev)
		default:
			return out
		}
	}
}

func persisted(evs []event.Event) []event.Event {
	var out []event.Event
	for _, e := range evs {
		if !e.Ephemeral {
			out = append(out, e)
		}
	}
	return out
}

func types(evs []event.Event) []event.Type {
	var out []event.Type
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func last[T any](t *testing.T, evs []event.Event, typ event.Type) T {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == typ {
			return evs[i].Payload.(T)
		}
	}
	t.Fatalf("no %s event in %v", typ, types(evs))
	var zero T
	return zero
}

func completed(t *testing.T, evs []event.Event) event.TurnCompletedPayload {
	t.Helper()
	return last[event.TurnCompletedPayload](t, evs, event.TurnCompleted)
}

// checkPairing asserts the pairing rule on every request a provider got.
func checkPairing(t *testing.T, reqs []llm.Request) {
	t.Helper()
	for i, r := range reqs {
		if err := llm.ValidatePairing(r.Messages); err != nil {
			t.Errorf("request %d breaks the pairing rule: %v", i+1, err)
		}
	}
}
