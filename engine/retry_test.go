package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/provider/scripted"
)

func TestTransientErrorsRetriedTwice(t *testing.T) {
	steps := []scripted.Step{
		scripted.Fail(provider.Transient, 429, "slow down"),
		scripted.Fail(provider.Transient, 503, "overloaded"),
		{Text: "ok"},
	}
	h := newHarness(t, steps, nil, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	evs := h.drain()
	if n := countType(evs, event.ProviderRetry); n != 2 {
		t.Errorf("%d ProviderRetry events, want 2", n)
	}
	if tc := completed(t, evs); tc.Answer != "ok" || tc.Requests != 3 {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestTransientErrorsExhausted(t *testing.T) {
	steps := []scripted.Step{
		scripted.Fail(provider.Transient, 500, "boom"),
		scripted.Fail(provider.Transient, 500, "boom"),
		scripted.Fail(provider.Transient, 500, "boom"),
		{Text: "never"},
	}
	h := newHarness(t, steps, nil, nil)
	if err := h.submit("q"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Submit = %v, want the server's error", err)
	}
	if n := len(h.p.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (1 + 2 retries)", n)
	}
}

func TestPermanentErrorNotRetried(t *testing.T) {
	h := newHarness(t, []scripted.Step{scripted.Fail(provider.Permanent, 400, "bad"), {Text: "never"}}, nil, nil)
	_ = h.submit("q")
	if n := len(h.p.Requests()); n != 1 {
		t.Errorf("%d requests, a permanent error must not be retried", n)
	}
}

func TestDefaultBackoffIsOneThenTwoSeconds(t *testing.T) {
	e, err := New(Deps{Provider: scripted.New(scripted.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.deps.RetryDelays; len(d) != 2 || d[0] != time.Second || d[1] != 2*time.Second {
		t.Errorf("default retry delays = %v", d)
	}
	if e.deps.StallTimeout != 120*time.Second || e.deps.MaxIterations != 50 || e.deps.MaxParallelTools != 8 {
		t.Errorf("defaults = %+v", e.deps)
	}
}

// TestCancellationInterruptsBackoff waits an hour between retries: only an
// interruptible wait lets the test end.
func TestCancellationInterruptsBackoff(t *testing.T) {
	steps := []scripted.Step{scripted.Fail(provider.Transient, 503, "busy"), {Text: "never"}}
	h := newHarness(t, steps, nil, func(d *Deps) { d.RetryDelays = []time.Duration{time.Hour} })
	ctx, cancel := context.WithCancel(context.Background())
	go cancelOn(h, cancel, event.ProviderRetry)
	if err := h.e.Submit(ctx, "s1", "q"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit = %v, want context.Canceled", err)
	}
	if n := len(h.p.Requests()); n != 1 {
		t.Errorf("%d requests after cancellation", n)
	}
}

func TestStalledStreamIsCancelledAndRetried(t *testing.T) {
	steps := []scripted.Step{{Text: "début", Stall: true}, {Text: "ok"}}
	h := newHarness(t, steps, nil, func(d *Deps) { d.StallTimeout = 20 * time.Millisecond })
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	evs := h.drain()
	retry := last[event.ProviderRetryPayload](t, evs, event.ProviderRetry)
	if !strings.Contains(retry.Error, "no output for 20ms") {
		t.Errorf("retry reason = %q", retry.Error)
	}
	if tc := completed(t, evs); tc.Answer != "ok" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}
