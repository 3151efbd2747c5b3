package engine

import (
	"context"
	"errors"

	"github.com/moteur/moteur/compaction"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
)

// DefaultCompactionThreshold is the fraction of the window past which the
// history is compacted (seed 003).
const DefaultCompactionThreshold = 0.8

// compactor is the session's context manager, made on first use: its
// estimator carries the session's calibration.
func (t *turn) compactor() *compaction.Compactor {
	if t.child != nil {
		return t.child.compactorOf(t.e)
	}
	s := t.s
	if s.compactor == nil {
		if s.estimator == nil {
			s.estimator = compaction.NewEstimator()
		}
		s.compactor = compaction.New(compaction.Config{Window: t.e.deps.ContextWindow,
			Threshold: t.e.deps.CompactionThreshold, Estimator: s.estimator})
	}
	return s.compactor
}

// send runs one round's request, compacting the history first when it
// passes the threshold; a context-overflow answer forces one compaction
// and one retry.
func (t *turn) send(ctx context.Context) (llm.Response, error) {
	if err := t.manage(ctx, false); err != nil {
		return llm.Response{}, err
	}
	at := len(t.conv().history)
	resp, err := t.think(ctx, t.request())
	if err != nil && provider.IsContextOverflow(err) && !t.overflowed && ctx.Err() == nil {
		t.overflowed = true
		if cerr := t.manage(ctx, true); cerr != nil {
			return llm.Response{}, errors.Join(err, cerr)
		}
		at = len(t.conv().history)
		resp, err = t.think(ctx, t.request())
	}
	if err == nil && resp.Usage != nil {
		t.calibrate(at, *resp.Usage)
	}
	return resp, err
}

// calibrate measures the estimator against the provider between two
// requests of this turn (seed 000's calibration and its exclusions).
func (t *turn) calibrate(at int, u llm.Usage) {
	if t.prevUsage != nil && at > t.prevAt && !t.compacted {
		t.compactor() // the estimator exists
		t.estimator().Calibrate(compaction.Sample{ReportedDelta: u.PromptTokens - t.prevUsage.PromptTokens,
			Added: t.conv().history[t.prevAt:at], Truncated: t.truncated})
	}
	t.prevUsage, t.prevAt, t.compacted, t.truncated = &u, at, false, false
}

// manage compacts the history when it is due (or forced by an overflow)
// and records the compaction, which the state applies.
func (t *turn) manage(ctx context.Context, force bool) error {
	c := t.compactor()
	st := t.conv()
	if !force && !c.Due(st.history, t.sysTokens(), st.lastUsage, st.usageAt) {
		return nil
	}
	res, err := t.compact(ctx, force, false)
	if err != nil || !res.Skipped {
		return err
	}
	// Nothing could be summarised away (the excess is this turn's own):
	// cut the largest results in what is sent instead.
	t.overBudget = c.Estimate(st.history, t.sysTokens(), st.lastUsage, st.usageAt) > c.Limit()
	return nil
}

// compact runs the PreCompact hooks, summarises the history and records
// the compaction, unless the compactor skipped it (res.Skipped, nothing
// recorded). manual is a compaction the user asked for between turns
// (Engine.Compact): the hooks' trigger and the record's reason say so.
func (t *turn) compact(ctx context.Context, force, manual bool) (compaction.Result, error) {
	c := t.compactor()
	st := t.conv()
	trigger := "auto"
	if manual {
		trigger = "manual"
	}
	hookContext := t.preCompact(ctx, trigger)
	if t.auditErr != nil {
		return compaction.Result{}, t.auditErr
	}
	res, err := c.Compact(ctx, st.history, t.summarize, force)
	if err != nil || res.Skipped {
		return res, err
	}
	reason := res.Reason
	if manual {
		reason = event.CompactManual
	}
	_, err = t.emit(event.ContextCompacted, event.ContextCompactedPayload{
		Summary: res.Summary, Replaced: res.Replaced, TokensBefore: res.TokensBefore, TokensAfter: res.TokensAfter,
		Reason: reason, SplitTurn: res.SplitTurn, Degraded: res.Degraded, HookContext: hookContext,
	})
	if err != nil {
		return res, err
	}
	if t.userAt >= res.Replaced {
		t.userAt = t.userAt - res.Replaced + 1
	} else {
		t.userAt = -1 // summarised: the live text is no longer sent
	}
	t.compacted, t.overBudget = true, res.OverBudget
	t.compactions++
	return res, nil
}

// summarize asks the session's provider for a summary, without streaming
// it to the interfaces as an answer.
func (t *turn) summarize(ctx context.Context, prompt []llm.Message) (string, error) {
	t.quiet = true
	defer func() { t.quiet = false }()
	resp, err := t.think(ctx, llm.Request{Messages: prompt, ToolChoice: llm.ToolChoiceNone, NoThinking: true})
	return resp.Text, err
}

// sysTokens estimates the system prompt once per turn.
func (t *turn) sysTokens() int {
	if t.sys == 0 {
		t.compactor()
		t.sys = t.estimator().Text(t.system())
	}
	return t.sys
}

// scale is the session's calibration, recorded with each TurnCompleted so
// that Restore reuses it (0 when never measured).
func (t *turn) scale() float64 {
	est := t.s.estimator
	if est == nil || est.Scale() == 1 {
		return 0
	}
	return est.Scale()
}
