package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/compaction"
	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
	"github.com/moteur/moteur/routing"
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

	followers followers
	approvals approvals
}

// session is one conversation as this Engine holds it: its state, which
// only the events write (state.apply), and what this process keeps for
// running its turns.
type session struct {
	id string
	// turn holds one token: a turn takes it, so turns are serialised while
	// a waiting Submit can still give up when its context ends.
	turn chan struct{}

	// emitMu orders the session's events; st changes under it only.
	emitMu sync.Mutex
	st     *state

	// Fields below are this process's, touched only by the goroutine
	// holding turn.
	started bool              // this Engine recorded its SessionStarted
	current routing.Candidate // the provider the last request went to
	// warned: the jurisdiction warning was given (never restored); a
	// session's sub-agents run at once, so it is atomic.
	warned    atomic.Bool
	compactor *compaction.Compactor
	estimator *compaction.Estimator // carries the session's calibration
	snapAt    uint64                // seq of the last snapshot written or read
	// notes are warnings to record once the turn has begun (a snapshot
	// that did not match its events).
	notes []event.WarningPayload
	// askMu makes the permission requests of the session's sub-agents,
	// which run at once, wait for the user one at a time, each numbered
	// after the last.
	askMu sync.Mutex
	// hookContext is what SessionStart hooks said, waiting for the next
	// user message that is not blocked (which records it).
	hookContext string
}

// sensitive reports whether classified content entered the session; a
// sub-agent's event may make it so while its siblings run.
func (s *session) sensitive() bool {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	return s.st.sensitive
}

func newSession(st *state) *session {
	return &session{id: st.id, turn: make(chan struct{}, 1), st: st}
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
	if d.Tools == nil {
		d.Tools = tools.NewRegistry(tools.Config{})
	}
	if d.SnapshotEvery <= 0 {
		d.SnapshotEvery = DefaultSnapshotEvery
	}
	if d.ApprovalTimeout <= 0 {
		d.ApprovalTimeout = DefaultApprovalTimeout
	}
	if d.Mode == "" && d.Permissions != nil {
		d.Mode = d.Permissions.Mode()
	}
	if d.Sandbox == nil {
		d.Sandbox = sandboxOf(d.Tools)
	}
	e := &Engine{deps: d, sessions: map[string]*session{}, profile: profile.Get(d.Profile)}
	e.approvals = newApprovals(d.Store)
	if e.outbound = d.Outbound; e.outbound == nil {
		out, err := defaultOutbound(d, e.profile)
		if err != nil {
			return nil, err
		}
		e.outbound = out
	}
	return e, nil
}

// sandboxOf is what the first tool (by name) that isolates its calls says
// of its sandbox, nil when none does.
func sandboxOf(reg *tools.Registry) *effect.Sandbox {
	for _, name := range reg.Names() {
		if tool, ok := reg.Lookup(name); ok {
			if iso, ok := tool.(tools.Isolated); ok {
				sb := iso.Sandbox()
				return &sb
			}
		}
	}
	return nil
}

// defaultOutbound builds the pre-send check from Deps when none is given:
// the organisation's hosts, the allowlists, the profile's demands and the
// classification rules (built-in markings always apply).
func defaultOutbound(d Deps, p profile.Profile) (*policy.Outbound, error) {
	c, err := classify.New(d.Classify)
	if err != nil {
		return nil, fmt.Errorf("engine: classification rules: %w", err)
	}
	return d.Policy.Outbound(d.Allowlists, p, c)
}

func (e *Engine) now() time.Time { return e.deps.Now() }

// session returns the session id, new in this Engine when it has no state
// of it yet: the turn then reads it back from Deps.Store (catchUp).
func (e *Engine) session(id string) *session {
	e.sessMu.Lock()
	defer e.sessMu.Unlock()
	s, ok := e.sessions[id]
	if !ok {
		s = newSession(newState(id))
		e.sessions[id] = s
	}
	return s
}

// take waits for the session's turn and returns the session holding it.
// A session that EndSession took out of memory while this waited is taken
// again, so that one session never has two turns at once.
func (e *Engine) take(ctx context.Context, id string) (*session, error) {
	for {
		s := e.session(id)
		select {
		case s.turn <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.existing(id) == s {
			return s, nil
		}
		<-s.turn
	}
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
	s, err := e.take(ctx, sessionID)
	if err != nil {
		return err
	}
	defer func() { <-s.turn }()
	if e.failed.Load() {
		return ErrAuditFailure
	}
	unlease, err := e.lease(ctx, sessionID)
	if err != nil {
		return err
	}
	defer unlease()
	if err := e.catchUp(ctx, s); err != nil {
		return err
	}
	t := newTurn(e, s)
	err = t.run(ctx, in)
	if t.auditErr == nil {
		e.snapshot(s, t.compactions > 0)
	}
	return err
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
