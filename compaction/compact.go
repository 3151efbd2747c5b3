package compaction

import (
	"context"
	"fmt"

	"github.com/moteur/moteur/llm"
)

// Defaults of Config.
const (
	defaultThreshold        = 0.8
	defaultKeepRecentTokens = 20000
	defaultSummaryTokens    = 2000
	minCompletionBudget     = 4096
	// minGain: a compaction that frees less than this share of the history
	// costs a summary request and loses detail for nothing.
	minGain = 0.05
	// summaryOverhead covers the markers of the summary message.
	summaryOverhead = 40
)

// Reasons recorded in Result.Reason.
const (
	ReasonThreshold = "threshold" // the estimate passed the threshold
	ReasonOverflow  = "overflow"  // the provider rejected the context (force)
	ReasonNothing   = "nothing to compact"
	ReasonLowGain   = "less than 5% would be freed"
)

// Config sizes a Compactor. Zero fields take the documented defaults.
type Config struct {
	// Window is the model's context window in tokens. With Window ≤ 0 the
	// window is unknown: Due never fires and Compact runs only when asked.
	Window int
	// Threshold is the share of the window past which Due fires (0: 0.8).
	Threshold float64
	// CompletionBudget is kept free for the answer: the limit is the lower of
	// Window×Threshold and Window−CompletionBudget. 0: max(4096, Window/8),
	// capped at Window/4 so that a small window keeps room for the prompt.
	CompletionBudget int
	// KeepRecentTokens is the budget of the verbatim tail (0: min(20000,
	// Window/4), or 20000 with an unknown window).
	KeepRecentTokens int
	// SummaryTokens is the summary's budget (0: 2000, capped at Window/8).
	SummaryTokens int
	// Estimator counts tokens; nil: a fresh one. Share the session's so that
	// its calibration applies.
	Estimator *Estimator
}

// Result is the outcome of Compact.
type Result struct {
	// Messages is the new history, system prompt excluded. Unless Skipped,
	// it is exactly [SummaryMessage(Summary)] followed by old[Replaced:]:
	// Compact edits no kept message, so Restore can replay it.
	Messages []llm.Message
	// Replaced counts the leading messages of the old history the summary
	// replaced (a previous summary message included).
	Replaced int
	Summary  string
	// TokensBefore and TokensAfter are estimates of the history, system
	// prompt excluded.
	TokensBefore, TokensAfter int
	// Reason says why compaction ran (ReasonThreshold, ReasonOverflow) or,
	// when Skipped, why it did not.
	Reason    string
	SplitTurn bool
	Degraded  bool
	// Skipped is true when the history was left unchanged; Messages is then
	// the old history.
	Skipped bool
	// OverBudget is true when the new history still exceeds the limit
	// (a kept tail that the pairing rule cannot shorten). The engine should
	// then send Estimator.TruncateToolResults(Messages, ResultCap(Window)):
	// a request-time view, recorded nowhere, so Restore stays exact.
	OverBudget bool
}

// Compactor decides when to compact and compacts. It holds no per-history
// state, so one may serve a session for its whole life.
type Compactor struct {
	cfg Config
	est *Estimator
}

// New returns a Compactor with cfg's defaults applied.
func New(cfg Config) *Compactor {
	if cfg.Threshold <= 0 || cfg.Threshold > 1 {
		cfg.Threshold = defaultThreshold
	}
	if cfg.Window > 0 && cfg.CompletionBudget <= 0 {
		cfg.CompletionBudget = min(max(minCompletionBudget, cfg.Window/8), cfg.Window/4)
	}
	if cfg.KeepRecentTokens <= 0 {
		cfg.KeepRecentTokens = defaultKeepRecentTokens
		if cfg.Window > 0 {
			cfg.KeepRecentTokens = min(defaultKeepRecentTokens, cfg.Window/4)
		}
	}
	if cfg.SummaryTokens <= 0 {
		cfg.SummaryTokens = defaultSummaryTokens
		if cfg.Window > 0 {
			cfg.SummaryTokens = min(defaultSummaryTokens, max(cfg.Window/8, 256))
		}
	}
	if cfg.Estimator == nil {
		cfg.Estimator = NewEstimator()
	}
	return &Compactor{cfg: cfg, est: cfg.Estimator}
}

// Config returns the configuration with its defaults applied.
func (c *Compactor) Config() Config { return c.cfg }

// Limit returns the token count past which Due fires, or 0 with an unknown
// window.
func (c *Compactor) Limit() int {
	if c.cfg.Window <= 0 {
		return 0
	}
	return min(int(float64(c.cfg.Window)*c.cfg.Threshold), c.cfg.Window-c.cfg.CompletionBudget)
}

// Estimate returns the current size of the context. The provider's count is
// preferred: with usage (the last response's) and since (how many leading
// messages of history that request and its answer cover), it is
// usage.PromptTokens + usage.CompletionTokens + the estimate of
// history[since:]. Without usage, or when since does not fit history (a
// compaction happened since), it is sys + the estimate of the whole history,
// which the per-message cache makes cheap after the first call.
func (c *Compactor) Estimate(history []llm.Message, sys int, usage *llm.Usage, since int) int {
	if usage != nil && usage.PromptTokens > 0 && since >= 0 && since <= len(history) {
		return usage.PromptTokens + usage.CompletionTokens + c.est.sum(history[since:])
	}
	return sys + c.est.Messages(history)
}

// Due reports whether history (system prompt excluded; sys is the estimate of
// the system prompt and tool definitions) passes the limit. See Estimate for
// usage and since.
func (c *Compactor) Due(history []llm.Message, sys int, usage *llm.Usage, since int) bool {
	limit := c.Limit()
	if limit <= 0 || c.bound(history, sys, usage, since) <= limit {
		return false // far from the limit: no need to tokenize
	}
	return c.Estimate(history, sys, usage, since) > limit
}

// bound is at least Estimate, by the length of the text (Estimator.bound).
func (c *Compactor) bound(history []llm.Message, sys int, usage *llm.Usage, since int) int {
	if usage != nil && usage.PromptTokens > 0 && since >= 0 && since <= len(history) {
		return usage.PromptTokens + usage.CompletionTokens + c.est.bound(history[since:])
	}
	return sys + c.est.bound(history) + perConversationTail
}

// Compact summarises the oldest part of history and keeps the most recent
// messages verbatim. It does not re-check the threshold: the caller compacts
// when Due says so, or with force after the provider rejected the context as
// too long, in which case the kept tail is halved since the estimate was
// evidently low.
//
// The result is Skipped, history unchanged, when nothing can be compacted or
// when less than 5% would be freed. A summarizer that fails twice yields a
// Degraded archive instead of an error; the error returned is the context's,
// when the turn was cancelled during the summary.
func (c *Compactor) Compact(ctx context.Context, history []llm.Message, summarize Summarizer, force bool) (Result, error) {
	before := c.est.Messages(history)
	reason := ReasonThreshold
	keep := c.cfg.KeepRecentTokens
	if force {
		reason = ReasonOverflow
		keep /= 2
	}
	skip := func(why string) (Result, error) {
		return Result{Messages: history, TokensBefore: before, TokensAfter: before, Reason: why, Skipped: true}, nil
	}

	start, previous := 0, ""
	if len(history) > 0 {
		if s, ok := ParseSummaryMessage(history[0]); ok {
			start, previous = 1, s
		}
	}
	cut, ok := c.findCut(history, start, keep)
	if !ok {
		return skip(ReasonNothing)
	}
	tail := history[cut:]
	projected := c.est.sum(tail) + c.cfg.SummaryTokens + summaryOverhead + perMessageOverhead + perConversationTail
	if float64(before-projected) < minGain*float64(before) {
		return skip(ReasonLowGain)
	}

	files := newFileOps()
	files.parse(previous)
	files.collect(history[start:cut])
	previous = stripFiles(previous)

	summary, split, err := c.summarise(ctx, history, start, cut, previous, files, summarize)
	degraded := false
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("compaction: %w", err)
		}
		summary = c.degraded(previous, history[start:cut], c.cfg.SummaryTokens, c.resultCap(), err)
		degraded = true
	}
	if fs := files.section(); fs != "" {
		summary += "\n\n" + fs
	}

	msgs := make([]llm.Message, 0, 1+len(tail))
	msgs = append(msgs, SummaryMessage(summary))
	msgs = append(msgs, tail...)
	after := c.est.Messages(msgs)
	if float64(before-after) < minGain*float64(before) {
		return skip(ReasonLowGain)
	}
	limit := c.Limit()
	return Result{
		Messages: msgs, Replaced: cut, Summary: summary,
		TokensBefore: before, TokensAfter: after, Reason: reason,
		SplitTurn: split, Degraded: degraded,
		OverBudget: limit > 0 && after > limit,
	}, nil
}

// resultCap is the per-result cap of transcripts given to the summarizer.
func (c *Compactor) resultCap() int {
	if c.cfg.Window <= 0 {
		return minResultTokens
	}
	return ResultCap(c.cfg.Window)
}

// promptBudget is how much transcript one summary request may carry: the
// window less the summary's answer and the instructions around it. 0 means
// unbounded (unknown window).
func (c *Compactor) promptBudget() int {
	if c.cfg.Window <= 0 {
		return 0
	}
	return max(c.cfg.Window-2*c.cfg.SummaryTokens-1024, 1024)
}

// summarise asks for the summary of history[start:cut]. When the cut splits
// a turn, the turn's beginning is summarised by a second request with its own
// instructions, so the kept end of the turn reads in context; the history
// before the turn (merged with the previous summary) is summarised as usual,
// or is the previous summary itself when nothing else precedes the turn.
func (c *Compactor) summarise(ctx context.Context, history []llm.Message, start, cut int, previous string, files fileOps, summarize Summarizer) (string, bool, error) {
	s, split := turnStart(history, start, cut)
	if !split {
		s = cut
	}
	if split && s == start && previous != "" {
		// The turn began before the previous compaction: there is no
		// history of its own to summarise, and concatenating a turn summary
		// to the previous one would grow at each compaction of a long turn.
		// One request merges the previous summary with the turn so far.
		text, err := c.request(ctx, history[start:cut], previous, files, false, summarize, turnNote)
		return text, true, err
	}
	summary := previous
	if s > start {
		text, err := c.request(ctx, history[start:s], previous, files, false, summarize, "")
		if err != nil {
			return "", split, err
		}
		summary = text
	}
	if !split {
		return summary, false, nil
	}
	turn, err := c.request(ctx, history[s:cut], "", files, true, summarize, "")
	if err != nil {
		return "", true, err
	}
	if summary == "" {
		return turnHeading + turn, true, nil
	}
	return summary + "\n\n---\n\n" + turnHeading + turn, true, nil
}

const (
	turnHeading = "## Turn Context (split turn)\n\n"
	turnNote    = "the last messages above are the beginning of the current turn, whose end is kept verbatim after the summary: say what the turn asked for and what was done so far."
)

// request builds one summary prompt over msgs and asks for it. A transcript
// too long for the summarizer's own window loses its oldest messages, with a
// note saying so.
func (c *Compactor) request(ctx context.Context, msgs []llm.Message, previous string, files fileOps, turnPrefix bool, summarize Summarizer, note string) (string, error) {
	in := promptInput{previous: previous, files: files, turnPrefix: turnPrefix, budget: c.cfg.SummaryTokens}
	if note != "" {
		in.notes = append(in.notes, note)
	}
	if pb := c.promptBudget(); pb > 0 {
		var omitted int
		in.transcript, omitted = c.fit(msgs, pb-c.est.Text(previous), c.resultCap())
		if omitted > 0 {
			in.notes = append(in.notes, fmt.Sprintf("the %d oldest messages were too long to include and are omitted.", omitted))
		}
	} else {
		in.transcript, _ = c.render(msgs, c.resultCap())
	}
	text, err := ask(ctx, summarize, buildPrompt(in))
	if err != nil {
		return "", err
	}
	// A model that ignores the length asked for is cut, not trusted: the
	// summary is carried in every later request.
	text, _ = c.est.truncateText(text, 2*c.cfg.SummaryTokens)
	return text, nil
}
