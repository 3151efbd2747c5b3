package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/moteur/moteur/llm"
)

// ErrNothingToCompact: the history is empty, or too short for a summary to
// free anything; nothing was recorded.
var ErrNothingToCompact = errors.New("nothing to compact")

// CompactResult is what a compaction asked for with Compact did, as its
// ContextCompacted event records it.
type CompactResult struct {
	// Replaced counts the messages the summary replaced.
	Replaced int
	// TokensBefore and TokensAfter estimate the history, system prompt
	// excluded.
	TokensBefore, TokensAfter int
	// Degraded: the summary could not be had; an archive of the messages
	// stands in for it.
	Degraded bool
}

// Compact summarises the session's history now, between turns, as a turn
// does when the history outgrows the window: the same PreCompact hooks
// (trigger "manual"), the same summary request through the session's
// providers and their outbound checks, recorded as ContextCompacted with
// Reason event.CompactManual, which the state, and so Restore, applies as
// any other. It is forced, as after an overflow: the threshold is not
// asked. It never waits for a turn: ErrTurnInProgress while one runs. An
// empty or tiny history gives ErrNothingToCompact before anything is run
// or recorded.
func (e *Engine) Compact(ctx context.Context, sessionID string) (CompactResult, error) {
	if e.failed.Load() {
		return CompactResult{}, ErrAuditFailure
	}
	if e.deps.Provider == nil {
		return CompactResult{}, ErrNoProvider
	}
	s, release, err := e.hold(ctx, sessionID, true)
	if err != nil {
		return CompactResult{}, err
	}
	defer release()
	if e.failed.Load() {
		return CompactResult{}, ErrAuditFailure
	}
	t := newTurn(e, s)
	// The compactor's estimate runs with the session's calibration, as
	// the turn's does (open sets it again).
	t.compactor()
	s.estimator.SetScale(orOne(s.st.scale))
	if !t.compactable(ctx) {
		return CompactResult{}, fmt.Errorf("session %s: %w", sessionID, ErrNothingToCompact)
	}
	if err := t.open(ctx); err != nil {
		return CompactResult{}, err
	}
	res, err := t.compact(ctx, true, true)
	if t.auditErr == nil {
		e.snapshot(s, t.compactions > 0)
	}
	switch {
	case err != nil:
		return CompactResult{}, fmt.Errorf("compact session %s: %w", sessionID, err)
	case res.Skipped:
		// The summary came back too long to free anything.
		return CompactResult{}, fmt.Errorf("session %s: %w (%s)", sessionID, ErrNothingToCompact, res.Reason)
	}
	return CompactResult{Replaced: res.Replaced, TokensBefore: res.TokensBefore, TokensAfter: res.TokensAfter,
		Degraded: res.Degraded}, nil
}

// compactable reports whether a forced compaction would summarise
// anything. The compactor itself is asked, with a summarizer that ends it
// at once, so that its own rules (a cut the pairing rule allows, enough
// to gain) decide, with no hook run, no request sent and nothing recorded.
func (t *turn) compactable(ctx context.Context) bool {
	st := t.conv()
	if len(st.history) == 0 {
		return false
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	asked := false
	probe := func(context.Context, []llm.Message) (string, error) {
		asked = true
		cancel()
		return "", pctx.Err()
	}
	_, _ = t.compactor().Compact(pctx, st.history, probe, true)
	return asked
}
