package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

func calls(specs ...string) []llm.ToolCall {
	var out []llm.ToolCall
	for i, name := range specs {
		out = append(out, llm.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: name, Arguments: `{}`})
	}
	return out
}

// TestParallelCallsOverlap proves concurrency with a barrier: each call
// returns only once all three are running, so a serial scheduler would
// leave them waiting until the tool deadline and produce error results.
func TestParallelCallsOverlap(t *testing.T) {
	const n = 3
	var arrived sync.WaitGroup
	arrived.Add(n)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	barrier := &fakeTool{name: "probe", concurrent: true, run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		arrived.Done()
		select {
		case <-all:
			return tools.Result{Content: "together"}, nil
		case <-ctx.Done():
			return tools.Result{}, errors.New("the other calls never ran alongside")
		}
	}}
	steps := []scripted.Step{{ToolCalls: calls("probe", "probe", "probe")}, {Text: "fini"}}
	h := newHarness(t, steps, nil, func(d *Deps) {
		d.Tools = tools.NewRegistry(tools.Config{Timeout: 5 * time.Second})
		if err := d.Tools.Register(barrier); err != nil {
			t.Fatal(err)
		}
	})
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	for _, e := range h.drain() {
		if r, ok := e.Payload.(event.ToolResultPayload); ok && r.IsError {
			t.Errorf("call %s failed: %s", r.CallID, r.Content)
		}
	}
}

// TestSerialCallNeverOverlaps runs [concurrent, serial, concurrent]. Each
// call watches, for a short window, for the call it must not overlap: a
// scheduler that ran them together would start the other one within
// microseconds, well inside the window. The window only bounds how long a
// correct run waits; it synchronises nothing.
func TestSerialCallNeverOverlaps(t *testing.T) {
	const window = 50 * time.Millisecond
	writeStarted, secondReadStarted := make(chan struct{}), make(chan struct{})
	var reads atomic.Int32
	var mu sync.Mutex
	var trace []string
	note := func(s string) { mu.Lock(); trace = append(trace, s); mu.Unlock() }
	reader := &fakeTool{name: "read", concurrent: true, run: func(context.Context, json.RawMessage) (tools.Result, error) {
		if reads.Add(1) == 2 {
			close(secondReadStarted)
			note("read2")
			return tools.Result{Content: "r"}, nil
		}
		note("read1-start")
		select {
		case <-writeStarted:
			t.Error("the serial call started while the call before it was running")
		case <-time.After(window):
		}
		note("read1-end")
		return tools.Result{Content: "r"}, nil
	}}
	writer := &fakeTool{name: "write", risk: effect.RiskWrite, run: func(context.Context, json.RawMessage) (tools.Result, error) {
		close(writeStarted)
		note("write-start")
		select {
		case <-secondReadStarted:
			t.Error("the call after the serial one started while it was running")
		case <-time.After(window):
		}
		note("write-end")
		return tools.Result{Content: "w"}, nil
	}}
	steps := []scripted.Step{{ToolCalls: calls("read", "write", "read")}, {Text: "ok"}}
	h := newHarness(t, steps, []tools.Tool{reader, writer}, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	want := []string{"read1-start", "read1-end", "write-start", "write-end", "read2"}
	if fmt.Sprint(trace) != fmt.Sprint(want) {
		t.Errorf("trace = %v, want %v", trace, want)
	}
}

// TestResultsEmittedAsTheyFinishMessagesKeepOrder: call 0 finishes only
// after call 1's ToolResult has reached the subscriber, so an engine that
// waited for all calls before emitting would deadlock (and time out).
func TestResultsEmittedAsTheyFinishMessagesKeepOrder(t *testing.T) {
	release := make(chan struct{})
	slow := &fakeTool{name: "slow", concurrent: true, run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		select {
		case <-release:
			return tools.Result{Content: "slow done"}, nil
		case <-ctx.Done():
			return tools.Result{}, errors.New("never released")
		}
	}}
	fast := &fakeTool{name: "fast", concurrent: true, run: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{}, errors.New("fast failed")
	}}
	steps := []scripted.Step{{ToolCalls: calls("slow", "fast")}, {Text: "ok"}}
	h := newHarness(t, steps, nil, func(d *Deps) {
		d.Tools = tools.NewRegistry(tools.Config{Timeout: 5 * time.Second})
		_ = d.Tools.Register(slow)
		_ = d.Tools.Register(fast)
	})
	var order []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range h.events {
			if r, ok := ev.Payload.(event.ToolResultPayload); ok {
				order = append(order, r.Name)
				if r.Name == "fast" {
					close(release)
				}
			}
			if ev.Type == event.TurnCompleted {
				return
			}
		}
	}()
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	<-done
	if fmt.Sprint(order) != "[fast slow]" {
		t.Errorf("results emitted in order %v, want [fast slow]", order)
	}
	msgs := h.p.Requests()[1].Messages
	tail := msgs[len(msgs)-2:]
	if tail[0].Name != "slow" || tail[0].Content != "slow done" || tail[1].Name != "fast" {
		t.Errorf("tool messages out of call order: %+v", tail)
	}
}

// TestParallelismIsBounded keeps each call running for a short window so
// that an unbounded scheduler would show all five at once; the window only
// bounds how long a correct run waits.
func TestParallelismIsBounded(t *testing.T) {
	const limit, window = 2, 20 * time.Millisecond
	var active, peak atomic.Int32
	over := make(chan struct{})
	var once sync.Once
	tool := &fakeTool{name: "t", concurrent: true, run: func(context.Context, json.RawMessage) (tools.Result, error) {
		n := active.Add(1)
		defer active.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if n > limit {
			once.Do(func() { close(over) })
		}
		select {
		case <-over:
		case <-time.After(window):
		}
		return tools.Result{Content: "ok"}, nil
	}}
	steps := []scripted.Step{{ToolCalls: calls("t", "t", "t", "t", "t")}, {Text: "ok"}}
	h := newHarness(t, steps, []tools.Tool{tool}, func(d *Deps) { d.MaxParallelTools = limit })
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p != limit {
		t.Errorf("at most %d calls ran at once, want exactly the limit %d", p, limit)
	}
}
