package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/compaction"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
	"github.com/moteur/moteur/routing"
	storage "github.com/moteur/moteur/session"
	"github.com/moteur/moteur/tools"
)

// Engine runs agent turns. See the package documentation for its
// concurrency and delivery guarantees.
type Engine struct {
	deps     Deps
	outbound *policy.Outbound
	profile  profile.Profile
	failed   atomic.Bool

	subsMu sync.RWMutex
	subs   []chan event.Event

	sessMu   sync.Mutex
	sessions map[string]*session

	approvalsMu sync.Mutex
	approvals   map[string]chan Reply // pending PermissionRequested, by id
}

// session is the in-memory state of one conversation.
type session struct {
	id string
	// turn holds one token: a turn takes it, so turns are serialised while
	// a waiting Submit can still give up when its context ends.
	turn chan struct{}

	emitMu sync.Mutex
	seq    uint64

	// Fields below are touched only by the goroutine holding turn.
	started   bool
	messages  []llm.Message     // history, system prompt excluded
	permSeq   uint64            // last permission-request number
	sensitive bool              // classified content entered the session
	note      string            // a code rewind's note, joined to the next user message
	current   routing.Candidate // the provider the last request went to
	warned    bool              // the jurisdiction warning was given (never restored)
	// Rewind state, updated under emitMu as events are recorded (live) or
	// replayed (Restore).
	rewind      *checkpoint.State
	pointLen    map[uint64]int    // history length before each point's user message
	prompts     map[uint64]string // each point's prompt
	compactedAt uint64            // seq of the last compaction (the conversation cannot go back past it)

	compactor *compaction.Compactor
	estimator *compaction.Estimator // carries the session's calibration
	lastUsage *llm.Usage            // the provider's count at the last request
	usageAt   int                   // history length at that request
	// dangling lists calls Restore found unanswered at the end of the log;
	// the next turn records their synthetic answers, so the log shows what
	// the model was told.
	dangling []llm.ToolCall
	// aliases are the short ids the model reads for knowledge bases,
	// documents and chunks; rebuilt from ToolResult references.
	aliases *cite.Table
}

func newSession(id string) *session {
	return &session{id: id, turn: make(chan struct{}, 1), pointLen: map[uint64]int{}, prompts: map[uint64]string{},
		rewind: &checkpoint.State{}, aliases: cite.NewTable()}
}

// New returns an engine. Without a provider (none in Deps.Provider nor a
// Router) it still rewinds, follows sessions and answers approvals, and
// SubmitInput fails with ErrNoProvider.
func New(d Deps) (*Engine, error) {
	if d.Provider == nil && d.Router != nil {
		d.Provider = d.Router.Default().Provider
	}
	if d.MaxIterations <= 0 {
		d.MaxIterations = DefaultMaxIterations
	}
	d.Lang = d.Lang.Normalize()
	if d.SystemPrompt == "" {
		d.SystemPrompt = i18n.SystemPrompt(d.Lang)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.ContextWindow <= 0 {
		d.ContextWindow = DefaultContextWindow
	}
	if d.StallTimeout <= 0 {
		d.StallTimeout = DefaultStallTimeout
	}
	if d.RetryDelays == nil {
		d.RetryDelays = []time.Duration{time.Second, 2 * time.Second}
	}
	if d.MaxParallelTools <= 0 {
		d.MaxParallelTools = DefaultMaxParallelTools
	}
	if d.CompactionThreshold <= 0 {
		d.CompactionThreshold = DefaultCompactionThreshold
	}
	if d.RescueTimeout <= 0 {
		d.RescueTimeout = DefaultRescueTimeout
	}
	if d.Tools == nil {
		d.Tools = tools.NewRegistry(tools.Config{})
	}
	if d.ApprovalTimeout <= 0 {
		d.ApprovalTimeout = DefaultApprovalTimeout
	}
	e := &Engine{deps: d, sessions: map[string]*session{}, approvals: map[string]chan Reply{}, profile: profile.Get(d.Profile)}
	if e.outbound = d.Outbound; e.outbound == nil {
		out, err := defaultOutbound(d, e.profile)
		if err != nil {
			return nil, err
		}
		e.outbound = out
	}
	return e, nil
}

// defaultOutbound builds the pre-send check from Deps when none is given:
// the organisation's hosts, the allowlists, the profile's demands and the
// classification rules (built-in markings always apply).
func defaultOutbound(d Deps, p profile.Profile) (*policy.Outbound, error) {
	c, err := classify.New(d.Classify)
	if err != nil {
		return nil, fmt.Errorf("engine: classification rules: %w", err)
	}
	cfg := policy.OutboundConfig{Allowlists: d.Allowlists, Classifier: c,
		RequireAllowlist: p.RequireAllowlist, LocalOnly: p.LocalOnly}
	if d.Policy != nil {
		cfg.OrgHosts, cfg.OrgPath = d.Policy.AllowedHosts, d.Policy.Path
	}
	return policy.NewOutbound(cfg)
}

func (e *Engine) now() time.Time { return e.deps.Now() }

// session returns the state of session id, read back from Deps.Store when
// this engine has none yet.
func (e *Engine) session(ctx context.Context, id string) (*session, error) {
	e.sessMu.Lock()
	defer e.sessMu.Unlock()
	if s, ok := e.sessions[id]; ok {
		return s, nil
	}
	s := newSession(id)
	if e.deps.Store != nil {
		evs, err := e.deps.Store.LoadFrom(ctx, id, 0)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return nil, fmt.Errorf("session %s: %w", id, err)
		}
		if len(evs) > 0 {
			if s, err = rebuilt(id, evs); err != nil {
				return nil, err
			}
		}
	}
	e.sessions[id] = s
	return s, nil
}

// Submit runs one turn with input as the user's message.
func (e *Engine) Submit(ctx context.Context, sessionID, input string) error {
	return e.SubmitInput(ctx, sessionID, Input{Text: input})
}

// SubmitInput runs one complete turn and blocks until it ends: the turn
// completed, the provider failed, the context was cancelled, or the audit
// log failed. It returns nil when the turn delivered an answer, the
// context's error when it was cancelled, ErrAuditFailure (wrapped) when a
// sink failed, and the provider's error when the turn could not answer.
func (e *Engine) SubmitInput(ctx context.Context, sessionID string, in Input) error {
	if e.failed.Load() {
		return ErrAuditFailure
	}
	if e.deps.Provider == nil {
		return ErrNoProvider
	}
	if strings.TrimSpace(sessionID) == "" {
		return errors.New("engine: empty session id")
	}
	if strings.TrimSpace(in.Text) == "" {
		return ErrEmptyInput
	}
	s, err := e.session(ctx, sessionID)
	if err != nil {
		return err
	}
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.turn }()
	if e.failed.Load() {
		return ErrAuditFailure
	}
	t := newTurn(e, s)
	return t.run(ctx, in)
}

// errInputTooLong wraps the rejection of an input larger than the window.
var errInputTooLong = errors.New("input too long")

func (e *Engine) checkInput(in Input) error {
	est := estimateTokens(in.Text)
	if limit := e.deps.ContextWindow * 3 / 4; est > limit {
		return fmt.Errorf("%w: about %d tokens, more than the %d that fit the model's %d-token context window",
			errInputTooLong, est, limit, e.deps.ContextWindow)
	}
	return nil
}
