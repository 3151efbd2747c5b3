// Package rag is the quick-answer pipeline of seed 000 ("RAG classique"):
// the question (rewritten to stand alone when there is a conversation and
// a model), one retrieval over the knowledge bases (hybrid, reranked, MMR:
// package kb), the passages put in a context under their aliases (cN), and
// one generation that cites them. With a web searcher (Config.Web), the
// web is searched for the same question in parallel with the retrieval,
// and its results join the context after the passages, cited wN in the
// same alias table; a web search that fails or is refused leaves the
// passages to answer alone, with a warning. With no model configured,
// when no configured model may receive the passages (classified content
// and no local model), or when the models fail (retried as the engine
// retries, then given up with a warning), provider/extractive answers by
// quoting the passages and web results.
//
// The pipeline reports what it does as events (UserMessage,
// KnowledgeRetrieved with the passages and web results, AssistantDelta,
// AssistantMessage with its citations, TurnCompleted), like a turn of the
// agent loop, so the same renderers and stores serve both modes. A
// Pipeline is safe for concurrent use (its WebSearcher must be too).
package rag

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/provider/extractive"
	"github.com/moteur/moteur/routing"
)

// Searcher finds passages (*kb.Store).
type Searcher interface {
	Search(ctx context.Context, q kb.Query) (kb.Result, error)
}

// Config configures a Pipeline. Store is required; zero values are
// defaults.
type Config struct {
	Store Searcher
	// Bases are the knowledge bases searched; empty means all.
	Bases []string
	// Mode is the search mode; "" is hybrid.
	Mode kb.Mode
	// Passages is how many passages the generation reads; 0 means 6.
	Passages int
	// Router holds the models to answer with, in order; nil means no
	// model: the extractive provider answers.
	Router *routing.Router
	// Outbound checks every request before it is sent; nil checks nothing
	// (tests).
	Outbound *policy.Outbound
	Lang     i18n.Lang
	// MaxTokens caps the answer; 0 means 2048 (seed 000's quick-answer
	// default).
	MaxTokens int
	// Temperature is sent with the answer's generation when set (nil: the
	// server's default); NoThinking asks for thinking off there. A custom
	// agent's temperature and reasoning effort come here. The rewrite of
	// a follow-up question keeps its own settings (200 tokens, thinking
	// off, the server's temperature): it is a reformulation, not the
	// answer.
	Temperature *float64
	NoThinking  bool
	// NoCitations leaves the citation rule out of the generation's prompt
	// (a custom agent whose citation_enabled is false).
	NoCitations bool
	// Instructions are added to the quick answer's system prompt (a custom
	// agent's system_prompt); they never replace it.
	Instructions string
	// RetryDelays are the waits before each retry of a transient failure
	// of a model, as the engine's Deps.RetryDelays (nil: DefaultRetryDelays;
	// empty: no retry).
	RetryDelays []time.Duration
	// Web searches the web beside the knowledge bases, its results cited
	// wN beside the passages' cN; nil: no web results.
	Web WebSearcher
}

// Defaults.
const (
	DefaultPassages  = 6
	DefaultMaxTokens = 2048
)

// DefaultRetryDelays are the engine's: a model that failed transiently is
// tried again after 1 s, then after 2 s.
var DefaultRetryDelays = []time.Duration{time.Second, 2 * time.Second}

// Pipeline answers questions from knowledge bases.
type Pipeline struct {
	cfg Config
}

// New checks cfg and returns a Pipeline.
func New(cfg Config) (*Pipeline, error) {
	if cfg.Store == nil {
		return nil, errors.New("quick answer: no knowledge base store")
	}
	if cfg.Passages <= 0 {
		cfg.Passages = DefaultPassages
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	return &Pipeline{cfg: cfg}, nil
}

// Emit receives the pipeline's events: a payload of the event package and
// whether it is ephemeral (a streamed delta). An error recording a persisted
// event stops the pipeline before anything more happens, above all before
// anything is sent to a model: what is not in the audit log must not occur.
type Emit func(t event.Type, payload any, ephemeral bool) error

// ErrRecord wraps the error of an Emit that failed to record an event.
var ErrRecord = errors.New("recording the quick answer's events")

// recorder keeps the first failure of an Emit, and whether any event was
// to be recorded.
type recorder struct {
	emit Emit
	err  error
	// persisted counts the persisted events emitted.
	persisted int
}

func (r *recorder) event(t event.Type, payload any, ephemeral bool) {
	if r.err != nil {
		return
	}
	if !ephemeral {
		r.persisted++
	}
	if err := r.emit(t, payload, ephemeral); err != nil && !ephemeral {
		r.err = fmt.Errorf("%w: %w", ErrRecord, err)
	}
}

// Answer is the outcome of one question.
type Answer struct {
	Text string
	// Query is what was searched (the question or its rewrite).
	Query string
	// Citations are the passages and web results the text cites; Sources
	// all those it was given, passages first.
	Citations []cite.Ref
	Sources   []cite.Ref
	Provider  string
	Model     string
	// Extractive reports that no model wrote the answer.
	Extractive bool
	Usage      llm.Usage
}

// Ask answers question, given the conversation so far (history, possibly
// empty), reporting events to emit (nil: none).
func (p *Pipeline) Ask(ctx context.Context, question string, history []llm.Message, emit Emit, opts ...Option) (Answer, error) {
	if emit == nil {
		emit = func(event.Type, any, bool) error { return nil }
	}
	c := call{aliases: cite.NewTable()}
	for _, o := range opts {
		o(&c)
	}
	rec := &recorder{emit: emit}
	a, err := p.ask(ctx, question, history, c, rec)
	if err == nil {
		err = rec.err
	}
	if err != nil {
		// A question that failed before anything was recorded (its
		// search, for a first question) leaves no trace: no turn began.
		if !errors.Is(err, ErrRecord) && rec.persisted > 0 {
			p.fail(rec, err)
		}
		return Answer{}, fmt.Errorf("quick answer: %w", err)
	}
	return a, nil
}

// Option overrides a setting for one question.
type Option func(*call)

type call struct {
	aliases     *cite.Table
	sensitive   bool
	retryDelays []time.Duration
}

// WithRetryDelays replaces Config.RetryDelays for one question (nil: keep
// them).
func WithRetryDelays(d []time.Duration) Option {
	return func(c *call) {
		if d != nil {
			c.retryDelays = d
		}
	}
}

// WithSensitive says that the session is sensitive already (classified
// content entered it): only local models may answer.
func WithSensitive(sensitive bool) Option {
	return func(c *call) { c.sensitive = c.sensitive || sensitive }
}

// WithAliases gives the passages their aliases in t, the table of the
// session the question belongs to: an alias the conversation already used
// keeps its meaning, new passages get the next numbers.
func WithAliases(t *cite.Table) Option {
	return func(c *call) {
		if t != nil {
			c.aliases = t
		}
	}
}

// ask records the question, searches, records what was found, then
// generates. A first question (no history: no rewrite goes to a model) is
// recorded once its search succeeded, so that a question that could not
// be searched stores nothing — for a new session, no session at all;
// unless the web is searched too: the query then leaves the machine, and
// what is not in the audit log must not occur.
func (p *Pipeline) ask(ctx context.Context, question string, history []llm.Message, c call, rec *recorder) (Answer, error) {
	late := len(history) == 0 && p.cfg.Web == nil
	if !late {
		rec.event(event.UserMessage, event.UserMessagePayload{Text: question}, false)
		if rec.err != nil {
			return Answer{}, rec.err
		}
	}
	query := p.rewrite(ctx, question, history, rec)
	webCtx, cancelWeb := context.WithCancel(ctx)
	defer cancelWeb()
	web := p.startWeb(webCtx, query, c)
	res, err := p.cfg.Store.Search(ctx, kb.Query{Text: query, Mode: p.cfg.Mode, Bases: p.cfg.Bases, Limit: p.cfg.Passages})
	if err != nil {
		cancelWeb()
		_, _ = web.wait() // nothing outlives the question
		return Answer{}, err
	}
	webResults, webErr := web.wait()
	if late {
		rec.event(event.UserMessage, event.UserMessagePayload{Text: question}, false)
	}
	ctxt := newContext(res, c.aliases)
	ctxt.addWeb(webResults, p.cfg.Lang)
	rec.event(event.KnowledgeRetrieved, ctxt.retrieved(query, res), false)
	if webErr != nil && ctx.Err() == nil {
		p.webFailed(webErr, rec)
	}
	if !c.sensitive {
		c.sensitive = p.classify(ctxt, rec)
	}
	if rec.err != nil {
		return Answer{}, rec.err
	}
	hint := ""
	if res.Hint != "" {
		hint = i18n.NoPassageHint(p.cfg.Lang, res.RerankRejected)
	}
	a, err := p.generate(ctx, question, history, ctxt, hint, c, rec)
	if err != nil {
		return Answer{}, err
	}
	a.Query, a.Sources = query, ctxt.all()
	a.Citations = ctxt.cited(a.Text)
	rec.event(event.AssistantMessage, event.AssistantMessagePayload{Text: a.Text, Finish: llm.FinishStop, Round: 1,
		Usage: usagePtr(a.Usage), Provider: a.Provider, Model: a.Model, Citations: refs(a.Citations),
		Synthetic: a.Extractive}, false)
	rec.event(event.TurnCompleted, event.TurnCompletedPayload{Reason: event.StopNatural, Answer: a.Text, Rounds: 1,
		Usage: a.Usage}, false)
	return a, nil
}

// fail records the error and closes the turn, as every turn ends: with a
// TurnCompleted saying how.
func (p *Pipeline) fail(rec *recorder, err error) {
	kind, reason := "internal", event.StopError
	var pe *provider.Error
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		kind, reason = "cancelled", event.StopCancelled
	case errors.As(err, &pe):
		// As the loop ends a turn whose provider failed before any tool
		// result: reason error, the error returned to the caller.
		kind = "provider"
	}
	ep := event.ErrorPayload{Message: err.Error(), Kind: kind}
	if pe != nil {
		ep.Transient, ep.Status = pe.Kind == provider.Transient, pe.Status
	}
	rec.event(event.Error, ep, false)
	rec.event(event.TurnCompleted, event.TurnCompletedPayload{Reason: reason}, false)
}

func usagePtr(u llm.Usage) *llm.Usage {
	if u == (llm.Usage{}) {
		return nil
	}
	return &u
}

// extractiveProvider answers without a model.
func (p *Pipeline) extractiveProvider() *extractive.Provider {
	return extractive.New(extractive.Config{Lang: string(p.cfg.Lang.Normalize())})
}

// classify makes the session sensitive when a passage carries a
// classification marking or comes from a document under a classified path,
// and records it (SessionClassified): the answer,
// which may quote the passage without its marking, must never reach a
// remote model, now or when the session is continued.
func (p *Pipeline) classify(ctxt *passages, rec *recorder) bool {
	for i, s := range ctxt.prompt {
		marking := ctxt.classified[i]
		if marking == "" && p.cfg.Outbound != nil {
			if m, ok := p.cfg.Outbound.Classify(s.Title + "\n" + s.Headings + "\n" + s.Text); ok {
				marking = m.Marking
			}
		}
		if marking != "" {
			rec.event(event.SessionClassified, event.SessionClassifiedPayload{Marking: marking,
				Source: "knowledge base passage " + ctxt.sources[i].Alias + " (" + ctxt.sources[i].Title + ")"}, false)
			return true
		}
	}
	return false
}
