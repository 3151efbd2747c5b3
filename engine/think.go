package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
)

// errStalled is the cancellation cause of a stream that went silent.
var errStalled = errors.New("stream stalled")

// think sends one request, retrying transient failures after the configured
// delays. A cancellation interrupts a wait at once.
func (t *turn) think(ctx context.Context, req llm.Request) (llm.Response, error) {
	delays := t.e.deps.RetryDelays
	for attempt := 0; ; attempt++ {
		resp, err := t.stream(ctx, req)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return llm.Response{}, ctx.Err()
		}
		if !provider.IsTransient(err) || attempt >= len(delays) {
			return llm.Response{}, err
		}
		if t.emit(event.ProviderRetry, event.ProviderRetryPayload{
			Attempt: attempt + 1, DelayMS: delays[attempt].Milliseconds(), Error: err.Error(),
		}) != nil {
			return llm.Response{}, t.auditErr
		}
		if err := sleep(ctx, delays[attempt]); err != nil {
			return llm.Response{}, err
		}
	}
}

// stream runs one provider call, forwarding deltas as ephemeral events and
// cancelling the call when it produces nothing for StallTimeout.
func (t *turn) stream(ctx context.Context, req llm.Request) (llm.Response, error) {
	t.requests++
	stall := t.e.deps.StallTimeout
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer timer.Stop()
	round := t.round + 1
	resp, err := t.e.deps.Provider.Stream(sctx, req, func(d llm.Delta) {
		timer.Reset(stall)
		if d.Reasoning != "" {
			_ = t.emit(event.ReasoningDelta, event.DeltaPayload{Text: d.Reasoning, Round: round})
		}
		if d.Text != "" {
			_ = t.emit(event.AssistantDelta, event.DeltaPayload{Text: d.Text, Round: round})
		}
	})
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(sctx), errStalled) {
		err = &provider.Error{Provider: t.e.deps.Provider.Name(), Kind: provider.Transient,
			Message: fmt.Sprintf("no output for %s", stall), Err: errStalled}
	}
	if resp.Usage != nil {
		t.usage = t.usage.Add(*resp.Usage)
	}
	return resp, err
}

func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
