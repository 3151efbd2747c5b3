package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"

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
	overflowed bool       // an overflow already forced a compaction this turn
	prevUsage  *llm.Usage // the previous request's usage, for calibration
	prevAt     int        // history length at that request
	compacted  bool       // a compaction happened since (no calibration across it)
	truncated  bool       // a tool result was truncated since (idem)
	quiet      bool       // a summary is being streamed: no deltas to show
	sys        int        // the system prompt's estimated tokens
	overBudget bool       // the kept tail alone exceeds the limit: cut large results when sending
	auditErr   error
	risks      map[string]effect.Risk // by call (id, name, arguments): see risk
}

func newTurn(e *Engine, s *session) *turn { return &turn{e: e, s: s} }

// emit records an event and remembers an audit failure, which ends the turn.
func (t *turn) emit(typ event.Type, payload any) error {
	_, err := t.recordEvent(typ, payload)
	return err
}

// recordedEvent is recordEvent returning the whole event.
func (t *turn) recordedEvent(typ event.Type, payload any) (event.Event, error) {
	if t.auditErr != nil {
		return event.Event{}, t.auditErr
	}
	ev, err := t.e.emit(t.s, typ, payload)
	if err != nil {
		t.auditErr = err
	}
	return ev, err
}

// recordEvent is emit returning the payload as recorded, secrets masked: the
// history keeps what the log keeps, so a restored session and a live one
// send the model the same messages.
func (t *turn) recordEvent(typ event.Type, payload any) (any, error) {
	if t.auditErr != nil {
		return nil, t.auditErr
	}
	ev, err := t.recordedEvent(typ, payload)
	if err != nil {
		return nil, err
	}
	return ev.Payload, nil
}

// outcome is how a turn ended.
type outcome struct {
	reason    string
	answer    string
	truncated bool
	err       error // returned by Submit
}

func (t *turn) run(ctx context.Context, in Input) error {
	if err := t.start(in); err != nil {
		if errors.Is(err, errInputTooLong) {
			// Every turn that began ends with one TurnCompleted, even one
			// refused before the model saw it.
			if aerr := t.emit(event.TurnCompleted, event.TurnCompletedPayload{Reason: event.StopError}); aerr != nil {
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
		if err := t.emit(event.Error, errorPayload(out.err)); err != nil {
			return err
		}
	}
	err := t.emit(event.TurnCompleted, event.TurnCompletedPayload{
		Reason: out.reason, Answer: out.answer, Rounds: t.round, Requests: t.requests,
		Usage: t.usage, Truncated: out.truncated, ContextScale: t.scale(),
	})
	if err != nil {
		return err
	}
	return out.err
}

// start opens the session if needed and records the user's message.
func (t *turn) start(in Input) error {
	d := t.e.deps
	if !t.s.started {
		if err := t.emit(event.SessionStarted, t.e.sessionStarted()); err != nil {
			return err
		}
		for _, down := range d.UnavailableMCP {
			if err := t.emit(event.McpServerDown, down); err != nil {
				return err
			}
		}
		t.s.started, t.s.current = true, t.e.defaultCandidate()
	}
	for _, c := range t.s.dangling {
		err := t.emit(event.ToolResult, event.ToolResultPayload{CallID: c.ID, Name: c.Name,
			Content: danglingCallAnswer, IsError: true, Synthetic: true, Risk: string(t.risk(c))})
		if err != nil {
			return err
		}
	}
	t.s.dangling = nil
	if err := t.e.checkInput(in); err != nil {
		if aerr := t.emit(event.Error, event.ErrorPayload{Kind: "input", Message: err.Error()}); aerr != nil {
			return aerr
		}
		return err
	}
	rec, err := t.recordedEvent(event.UserMessage, event.UserMessagePayload{
		Text: in.Text, Typed: in.Typed, Skill: in.Skill, SkillSHA256: in.SkillSHA256,
	})
	if err != nil {
		return err
	}
	// The history keeps the masked text, as the log does; the model reads
	// what the user typed, secrets included, for this turn only.
	stored, live := rec.Payload.(event.UserMessagePayload).Text, in.Text
	t.s.pointLen[rec.Seq], t.s.prompts[rec.Seq] = len(t.s.messages), stored
	if t.s.note != "" {
		// A code rewind's note goes with the next message the model reads;
		// the event keeps the user's words alone, and Restore joins the
		// note the same way.
		stored, live, t.s.note = joinNote(t.s.note, stored), joinNote(t.s.note, live), ""
	}
	t.userAt, t.userLive = len(t.s.messages), live
	t.s.messages = append(t.s.messages, llm.Message{Role: llm.RoleUser, Content: stored})
	t.classify(in.Text, "user")
	return t.auditErr
}

// loop runs rounds until a stop condition of seed 000 holds.
func (t *turn) loop(ctx context.Context) outcome {
	max := t.e.deps.MaxIterations
	for t.round < max {
		if ctx.Err() != nil {
			return t.rescue(ctx)
		}
		resp, err := t.send(ctx)
		if t.auditErr != nil {
			return outcome{}
		}
		if err != nil {
			return t.failed(ctx, err)
		}
		if out, done := t.analyze(ctx, resp); done {
			return out
		}
	}
	if ctx.Err() != nil {
		return t.rescue(ctx)
	}
	return t.synthesize(ctx, event.StopMaxIterations, t.e.closingInstruction())
}

// request builds the next round's request from the history.
func (t *turn) request() llm.Request {
	msgs := make([]llm.Message, 0, len(t.s.messages)+len(t.extra)+1)
	msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: t.e.deps.SystemPrompt})
	current := t.userAt
	if current < 0 {
		current = 0 // this turn's message was summarised: what remains is this turn's
	}
	msgs = append(msgs, t.asSent(t.s.messages, current)...)
	if t.userAt >= 0 && t.userAt < len(t.s.messages) {
		msgs[1+t.userAt].Content = t.userLive
	}
	msgs = append(msgs, t.extra...)
	return llm.Request{Messages: msgs, Tools: t.e.deps.Tools.Definitions()}
}

// failed handles a provider error that retries did not cure.
func (t *turn) failed(ctx context.Context, err error) outcome {
	if ctx.Err() != nil {
		return t.rescue(ctx)
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

// rescue ends a cancelled turn: a short synthesis when tool results exist,
// run on a fresh context since the turn's own is already done.
func (t *turn) rescue(ctx context.Context) outcome {
	cause := ctx.Err()
	if !t.haveResults {
		return outcome{reason: event.StopCancelled, err: cause}
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.e.deps.RescueTimeout)
	defer cancel()
	out := t.synthesize(rctx, event.StopCancelled, t.e.rescueInstruction())
	if out.reason == event.StopError && out.err != nil {
		// The turn still ends as cancelled; the failed rescue is reported.
		_ = t.emit(event.Error, errorPayload(out.err))
	}
	out.reason, out.err = event.StopCancelled, cause
	return out
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
