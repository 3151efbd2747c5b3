package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"slices"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider"
)

// turn is the state of one turn of the loop (seed 000's AgentState).
type turn struct {
	e *Engine
	s *session

	round        int // rounds consumed so far
	requests     int
	usage        llm.Usage
	emptyRetries int
	lengthRounds int
	lastNoTool   string // text of the previous round when it had no tool call
	repeats      int
	haveResults  bool          // some tool result exists in this turn
	extra        []llm.Message // transient messages (nudges), never kept in history
	userAt       int           // index in the history of this turn's user message (-1: summarised)
	userLive     string        // that message as typed, unmasked

	// Context management (context.go).
	overflowed  bool       // an overflow already forced a compaction this turn
	prevUsage   *llm.Usage // the previous request's usage, for calibration
	prevAt      int        // history length at that request
	compacted   bool       // a compaction happened since (no calibration across it)
	compactions int        // compactions recorded this turn
	truncated   bool       // a tool result was truncated since (idem)
	quiet       bool       // a summary is being streamed: no deltas to show
	sys         int        // the system prompt's estimated tokens
	overBudget  bool       // the kept tail alone exceeds the limit: cut large results when sending
	auditErr    error
	risks       map[riskKey]effect.Risk // by call (id, name, arguments): see risk
	clean       []cleanMessage          // what the last passing outbound check read (outbound.go)
	sent        []llm.Message           // the last request's messages (request)

	// child is set on a sub-agent's loop (subagent.go).
	child *subAgent
	// Hooks (hooks.go): the SessionStart context waiting for the user
	// message, and whether a Stop hook already sent the agent back.
	startContext   string
	stopHookActive bool
}

func newTurn(e *Engine, s *session) *turn { return &turn{e: e, s: s} }

// emit records an event of the turn and returns it as recorded, secrets
// masked: the state it changed (the history the model reads back) is the
// one the log keeps. An audit failure is remembered, and ends the turn.
func (t *turn) emit(typ event.Type, payload any) (event.Event, error) {
	if t.auditErr != nil {
		return event.Event{}, t.auditErr
	}
	ev, err := t.e.emitAs(t.s, t.child, typ, payload)
	if err != nil {
		t.auditErr = err
	}
	return ev, err
}

// outcome is how a turn ended.
type outcome struct {
	reason    string
	answer    string
	truncated bool
	err       error // returned by Submit
}

func (t *turn) run(ctx context.Context, in Input) error {
	if err := t.start(ctx, in); err != nil {
		if errors.Is(err, ErrPromptBlocked) {
			if _, aerr := t.emit(event.TurnCompleted, event.TurnCompletedPayload{Reason: StopBlocked, ContextScale: t.scale()}); aerr != nil {
				return aerr
			}
		}
		if errors.Is(err, errInputTooLong) {
			// Every turn that began ends with one TurnCompleted, even one
			// refused before the model saw it.
			if _, aerr := t.emit(event.TurnCompleted, event.TurnCompletedPayload{Reason: event.StopError, ContextScale: t.scale()}); aerr != nil {
				return aerr
			}
		}
		return err
	}
	out := t.loop(ctx)
	if t.auditErr != nil {
		return t.auditErr
	}
	if out.reason == event.StopError && out.err != nil {
		if _, err := t.emit(event.Error, errorPayload(out.err)); err != nil {
			return err
		}
	}
	_, err := t.emit(event.TurnCompleted, event.TurnCompletedPayload{
		Reason: out.reason, Answer: out.answer, Rounds: t.round, Requests: t.requests,
		Usage: t.usage, Truncated: out.truncated, ContextScale: t.scale(),
	})
	if err != nil {
		return err
	}
	return out.err
}

// start opens the session if needed, ends what a stopped process left
// waiting, and records the user's message.
func (t *turn) start(ctx context.Context, in Input) error {
	if err := t.open(ctx); err != nil {
		return err
	}
	if err := t.finishStopped(); err != nil {
		return err
	}
	if err := t.e.checkInput(in); err != nil {
		if _, aerr := t.emit(event.Error, event.ErrorPayload{Kind: "input", Message: err.Error()}); aerr != nil {
			return aerr
		}
		return err
	}
	st := t.s.st
	note := st.note
	hookContext, blocked, reason := t.promptSubmit(ctx, in.Text)
	if t.auditErr != nil {
		return t.auditErr
	}
	_, err := t.emit(event.UserMessage, event.UserMessagePayload{
		Text: in.Text, Typed: in.Typed, Skill: in.Skill, SkillSHA256: in.SkillSHA256,
		HookContext: hookContext, Blocked: blocked,
	})
	if err != nil {
		return err
	}
	if blocked {
		// Recorded, never sent: the user reads why.
		if _, err := t.emit(event.Warning, event.WarningPayload{Kind: "hook", Message: reason}); err != nil {
			return err
		}
		return fmt.Errorf("%w: %s", ErrPromptBlocked, reason)
	}
	t.s.hookContext = ""
	// The history keeps the masked text, as the log does (a hook's context
	// and a code rewind's note joined to it); the model reads what the
	// user typed, secrets included, for this turn only.
	live := joinContext(in.Text, hookContext)
	if note != "" {
		live = joinNote(note, live)
	}
	t.userAt, t.userLive = len(st.history)-1, live
	t.classify(in.Text, "user")
	return t.auditErr
}

// open records, the first time this Engine runs a turn of the session,
// what it runs the session with (SessionStarted, then the MCP servers that
// are down), and brings the process's view of the session in line with its
// state.
func (t *turn) open(ctx context.Context) error {
	s := t.s
	t.compactor() // the estimator exists
	s.estimator.SetScale(orOne(s.st.scale))
	if s.started {
		return nil
	}
	if _, err := t.emit(event.SessionStarted, t.e.sessionStarted()); err != nil {
		return err
	}
	for _, down := range t.e.deps.UnavailableMCP {
		if _, err := t.emit(event.McpServerDown, down); err != nil {
			return err
		}
	}
	s.started, s.current = true, t.e.defaultCandidate()
	for _, w := range s.notes {
		if _, err := t.emit(event.Warning, w); err != nil {
			return err
		}
	}
	s.notes = nil
	t.sessionStart(ctx)
	return t.auditErr
}

// finishStopped ends what a process that stopped mid-turn left open: each
// permission request still waiting is resolved as interrupted (and
// withdrawn from the approvals), then each call without a result gets its
// synthetic answer, so the log shows what the model was told.
func (t *turn) finishStopped() error {
	st := t.s.st
	if st.round == nil {
		return nil
	}
	for _, a := range slices.Clone(st.round.asked) {
		t.e.approvals.withdraw(a.ID, resolvedInterrupted)
		_, err := t.emit(event.PermissionResolved, event.PermissionResolvedPayload{
			ID: a.ID, CallID: a.CallID, Tool: st.round.tool(a.CallID), By: resolvedInterrupted,
		})
		if err != nil {
			return err
		}
	}
	answer := st.unfinishedAnswer()
	for _, c := range st.unanswered() {
		_, err := t.emit(event.ToolResult, event.ToolResultPayload{CallID: c.ID, Name: c.Name,
			Content: answer, IsError: true, Synthetic: true, Risk: string(t.risk(c))})
		if err != nil {
			return err
		}
	}
	return nil
}

func orOne(scale float64) float64 {
	if scale <= 0 {
		return 1
	}
	return scale
}

// loop runs rounds until a stop condition of seed 000 holds.
func (t *turn) loop(ctx context.Context) outcome {
	max := t.e.deps.MaxIterations
	for t.round < max {
		if ctx.Err() != nil {
			return cancelled(ctx)
		}
		resp, err := t.send(ctx)
		if t.auditErr != nil {
			return outcome{}
		}
		if err != nil {
			return t.failed(ctx, err)
		}
		if out, done := t.analyze(ctx, resp); done {
			if t.sendBack(ctx, out) {
				continue
			}
			return out
		}
	}
	if ctx.Err() != nil {
		return cancelled(ctx)
	}
	return t.synthesize(ctx, event.StopMaxIterations, t.e.closingInstruction())
}

// request builds the next round's request from the history.
//
// A round's request is the previous one and the messages the round added:
// when the previous request's messages begin the new one unchanged, the new
// one extends them in the same array rather than copying the history
// again. Nothing a request was given is ever written again: the new
// messages go past its end, and each request's slice ends at its length
// (an append by whoever holds it copies), so a provider that keeps a
// request sees it as it was sent.
func (t *turn) request() llm.Request {
	history := t.conv().history
	current := t.userAt
	if current < 0 {
		current = 0 // this turn's message was summarised: what remains is this turn's
	}
	sent := t.asSent(history, current)
	n := 1 + len(sent) + len(t.extra)
	at := func(i int) llm.Message {
		switch {
		case i == 0:
			return llm.Message{Role: llm.RoleSystem, Content: t.system()}
		case i <= len(sent):
			m := sent[i-1]
			if i-1 == t.userAt {
				m.Content = t.userLive
			}
			return m
		}
		return t.extra[i-1-len(sent)]
	}
	prev := t.sent
	k := len(prev)
	if k == 0 || k > n || cap(prev) < n || !samePrefix(prev, at) {
		prev, k = make([]llm.Message, 0, n+requestHeadroom), 0
	}
	msgs := prev[:n]
	for i := k; i < n; i++ {
		msgs[i] = at(i)
	}
	t.sent = msgs
	return llm.Request{Messages: msgs[:n:n], Tools: t.definitions()}
}

// requestHeadroom is the room a new request array keeps for the messages
// of the rounds after it (a round adds an answer and its results).
const requestHeadroom = 16

// samePrefix reports whether prev holds the first len(prev) messages at
// gives, as they are now.
func samePrefix(prev []llm.Message, at func(int) llm.Message) bool {
	for i := range prev {
		m := at(i)
		p := &prev[i]
		if p.Role != m.Role || p.Content != m.Content || p.Reasoning != m.Reasoning || p.ToolCallID != m.ToolCallID ||
			p.Name != m.Name || p.Remote != m.Remote || !sameCalls(p.ToolCalls, m.ToolCalls) {
			return false
		}
	}
	return true
}

// failed handles a provider error that retries did not cure.
func (t *turn) failed(ctx context.Context, err error) outcome {
	if ctx.Err() != nil {
		return cancelled(ctx)
	}
	if errors.Is(err, policy.ErrRefused) {
		// A refused send stays refused: no synthesis is attempted.
		return outcome{reason: event.StopError, err: err}
	}
	if t.haveResults {
		return t.synthesize(ctx, event.StopProviderError, t.e.closingInstruction())
	}
	return outcome{reason: event.StopError, err: fmt.Errorf("provider: %w", err)}
}

// cancelled ends a turn whose context is done (Ctrl-C, a stop, a
// shutdown) at once: no further request goes to the model, not even a
// closing synthesis, since whoever cancelled wants the model stopped now.
// The record stays whole: every call that ran has its result (one cut short
// says it was cancelled), a request in flight leaves no answer, and the
// caller's TurnCompleted says cancelled.
func cancelled(ctx context.Context) outcome {
	return outcome{reason: event.StopCancelled, err: ctx.Err()}
}

func errorPayload(err error) event.ErrorPayload {
	p := event.ErrorPayload{Kind: "provider", Message: err.Error()}
	if errors.Is(err, policy.ErrRefused) {
		p.Kind = "outbound"
	}
	var pe *provider.Error
	if errors.As(err, &pe) {
		p.Status, p.Transient = pe.Status, pe.Kind == provider.Transient
	}
	return p
}
