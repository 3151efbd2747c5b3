package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/routing"
)

// errStalled is the cancellation cause of a stream that went silent.
var errStalled = errors.New("stream stalled")

// think sends one request to the session's candidates in order: each is
// checked by Outbound first (a refused one is skipped, and when every one
// is refused nothing is sent), retried on transient failures after the
// configured delays, and left for the next one once its retries are spent.
// A cancellation interrupts a wait at once.
func (t *turn) think(ctx context.Context, req llm.Request) (llm.Response, error) {
	req = t.e.withOptions(req)
	var lastErr error
	for _, c := range t.candidates() {
		if err := t.checkOutbound(destination(c), req.Messages); err != nil {
			lastErr = firstOf(lastErr, err)
			continue
		}
		if err := t.use(c, lastErr); err != nil {
			return llm.Response{}, err
		}
		resp, err := t.retrying(ctx, c, req)
		if err == nil || ctx.Err() != nil || !provider.IsTransient(err) {
			return resp, err
		}
		lastErr = err
	}
	if lastErr == nil {
		// A refusal like Outbound's: the session's content (a classified
		// file, a marking a tool found) may only go to a local provider.
		lastErr = fmt.Errorf("%w: no provider may receive this session's content: it is sensitive and no local provider is configured", policy.ErrRefused)
	}
	return llm.Response{}, lastErr
}

// withOptions sets the agent's request options (Deps.Temperature,
// MaxTokens, NoThinking) on req where req sets none: a request with its own
// budget keeps it.
func (e *Engine) withOptions(req llm.Request) llm.Request {
	d := &e.deps
	if req.Temperature == nil && d.Temperature != nil {
		v := *d.Temperature
		req.Temperature = &v
	}
	if req.MaxTokens == 0 {
		req.MaxTokens = d.MaxTokens
	}
	req.NoThinking = req.NoThinking || d.NoThinking
	return req
}

// firstOf keeps the first refusal: it names the rule of the preferred
// provider.
func firstOf(prev, err error) error {
	if prev != nil {
		return prev
	}
	return err
}

// retrying sends req to one candidate, retrying transient failures.
func (t *turn) retrying(ctx context.Context, c routing.Candidate, req llm.Request) (llm.Response, error) {
	delays := t.e.deps.RetryDelays
	for attempt := 0; ; attempt++ {
		resp, err := t.stream(ctx, c.Provider, req)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return llm.Response{}, ctx.Err()
		}
		if !provider.IsTransient(err) || attempt >= len(delays) {
			return llm.Response{}, err
		}
		if _, aerr := t.emit(event.ProviderRetry, event.ProviderRetryPayload{
			Attempt: attempt + 1, DelayMS: delays[attempt].Milliseconds(), Error: err.Error(),
		}); aerr != nil {
			return llm.Response{}, t.auditErr
		}
		if err := sleep(ctx, delays[attempt]); err != nil {
			return llm.Response{}, err
		}
	}
}

// stream runs one provider call, forwarding deltas as ephemeral events and
// cancelling the call when it produces nothing for StallTimeout.
func (t *turn) stream(ctx context.Context, p provider.Provider, req llm.Request) (llm.Response, error) {
	t.requests++
	stall := t.e.deps.StallTimeout
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer timer.Stop()
	round := t.round + 1
	resp, err := p.Stream(sctx, req, func(d llm.Delta) {
		timer.Reset(stall)
		if t.quiet {
			return
		}
		if d.Reasoning != "" {
			_, _ = t.emit(event.ReasoningDelta, event.DeltaPayload{Text: d.Reasoning, Round: round})
		}
		if d.Text != "" {
			_, _ = t.emit(event.AssistantDelta, event.DeltaPayload{Text: d.Text, Round: round})
		}
	})
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(sctx), errStalled) {
		err = &provider.Error{Provider: p.Name(), Kind: provider.Transient,
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
