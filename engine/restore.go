package engine

import (
	"errors"
	"fmt"

	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/compaction"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
)

var (
	// ErrSessionActive: Restore on a session that already has state in this
	// Engine.
	ErrSessionActive = errors.New("session already active in this process")
	// ErrInvalidLog: the events handed to Restore cannot describe a session.
	ErrInvalidLog = errors.New("invalid session log")
)

// danglingCallAnswer answers, on Restore, a call that never got a result:
// the process stopped while it ran, so whether it took effect is unknown.
const danglingCallAnswer = "No result was recorded for this call: the session stopped (crash or interruption) before the call finished. " +
	"The tool may or may not have run; check its effect before calling it again."

// Restore rebuilds the in-memory state of a session from its persisted
// events (session.Store.Load), in order, as seed 003 specifies. Call it
// before any Submit of the session; it returns ErrSessionActive when the
// session already has state in this Engine, and an error wrapping
// ErrInvalidLog when the events cannot describe a session (another
// session's event, seqs out of order, a compaction or rewind out of range).
func (e *Engine) Restore(sessionID string, events []event.Event) error {
	s, err := rebuilt(sessionID, events)
	if err != nil {
		return err
	}
	e.sessMu.Lock()
	defer e.sessMu.Unlock()
	if _, ok := e.sessions[sessionID]; ok {
		return fmt.Errorf("%w: %s", ErrSessionActive, sessionID)
	}
	e.sessions[sessionID] = s
	return nil
}

// rebuilt is the state of a session rebuilt from its events.
func rebuilt(sessionID string, events []event.Event) (*session, error) {
	r := &restorer{id: sessionID, pending: map[string]bool{}, names: map[string]string{},
		pointLen: map[uint64]int{}, prompts: map[uint64]string{}, rewind: &checkpoint.State{}, aliases: cite.NewTable()}
	for _, ev := range events {
		if err := r.apply(ev); err != nil {
			return nil, fmt.Errorf("%w: session %s, event %d (%s): %w", ErrInvalidLog, sessionID, ev.Seq, ev.Type, err)
		}
	}
	dangling := r.danglingCalls()
	r.answerDangling()

	s := newSession(sessionID)
	// started stays false: the next turn records a SessionStarted of its
	// own, saying what this process runs the session with.
	s.seq, s.permSeq, s.dangling = r.seq, r.permSeq, dangling
	s.messages, s.sensitive, s.note = r.history, r.sensitive, r.note
	s.rewind, s.pointLen, s.prompts, s.compactedAt = r.rewind, r.pointLen, r.prompts, r.compactedAt
	s.aliases = r.aliases
	if r.scale > 0 {
		s.estimator = compaction.NewEstimator()
		s.estimator.SetScale(r.scale)
	}
	return s, nil
}

// restorer replays events onto a session's state.
type restorer struct {
	id          string
	seq         uint64
	permSeq     uint64
	started     bool
	remote      bool // the current provider is not local
	sensitive   bool
	note        string // a code rewind's note, joined to the next user message
	history     []llm.Message
	rewind      *checkpoint.State
	pointLen    map[uint64]int
	prompts     map[uint64]string
	compactedAt uint64
	scale       float64
	pending     map[string]bool   // calls of the last assistant message still unanswered
	order       []string          // their ids, in call order
	names       map[string]string // tool name of each call id
	aliases     *cite.Table
}

func (r *restorer) apply(ev event.Event) error {
	if ev.SessionID != r.id {
		return fmt.Errorf("belongs to session %q", ev.SessionID)
	}
	if ev.Seq <= r.seq {
		return fmt.Errorf("seq %d after %d: the log is out of order", ev.Seq, r.seq)
	}
	r.seq = ev.Seq
	if ev.ParentCallID != "" {
		return r.applyChild(ev)
	}
	r.rewind.Apply(ev)
	r.aliases.Add(event.References(ev)...)
	switch p := ev.Payload.(type) {
	case event.SessionStartedPayload:
		r.started, r.remote = true, !p.Local
	case event.ProviderSelectedPayload:
		r.remote = !p.Local
	case event.UserMessagePayload:
		r.user(ev.Seq, p)
	case event.AssistantMessagePayload:
		r.assistant(p)
	case event.ToolResultPayload:
		r.toolResult(p)
	case event.ContextCompactedPayload:
		r.compactedAt = ev.Seq
		return r.compacted(p)
	case event.RewoundPayload:
		return r.rewound(p)
	case event.PermissionRequestedPayload:
		r.permSeq = max(r.permSeq, p.Number)
	case event.SessionClassifiedPayload:
		r.sensitive = true
	case event.TurnCompletedPayload:
		if p.ContextScale > 0 {
			r.scale = p.ContextScale
		}
	}
	return nil
}

// applyChild handles a sub-agent's event: only the permission counter and
// the classification concern the parent session.
func (r *restorer) applyChild(ev event.Event) error {
	switch p := ev.Payload.(type) {
	case event.ToolResultPayload:
		// A sub-agent's writes are undone with its parent's.
		r.rewind.Apply(ev)
	case event.PermissionRequestedPayload:
		r.permSeq = max(r.permSeq, p.Number)
	case event.SessionClassifiedPayload:
		r.sensitive = true
	}
	return nil
}

func (r *restorer) user(seq uint64, p event.UserMessagePayload) {
	if p.Blocked {
		return
	}
	r.answerDangling()
	r.pointLen[seq], r.prompts[seq] = len(r.history), p.Text
	text := joinContext(p.Text, p.HookContext)
	if r.note != "" {
		text, r.note = joinNote(r.note, text), ""
	}
	r.history = append(r.history, llm.Message{Role: llm.RoleUser, Content: text})
}

func (r *restorer) assistant(p event.AssistantMessagePayload) {
	r.answerDangling()
	r.history = append(r.history, llm.Message{Role: llm.RoleAssistant, Content: p.Text, Reasoning: p.Reasoning,
		ToolCalls: p.ToolCalls, Remote: r.remote})
	for _, c := range p.ToolCalls {
		r.pending[c.ID] = true
		r.order = append(r.order, c.ID)
		r.names[c.ID] = c.Name
	}
}

// toolResult appends the answer to a pending call; a result for no pending
// call (a duplicate) would break the pairing every server enforces, so it
// is left out.
func (r *restorer) toolResult(p event.ToolResultPayload) {
	if !r.pending[p.CallID] {
		return
	}
	delete(r.pending, p.CallID)
	r.history = append(r.history, llm.Message{Role: llm.RoleTool, ToolCallID: p.CallID, Name: p.Name, Content: p.Content})
}

// danglingCalls lists the calls of the last assistant message still
// unanswered, in call order.
func (r *restorer) danglingCalls() []llm.ToolCall {
	var out []llm.ToolCall
	for _, id := range r.order {
		if r.pending[id] {
			out = append(out, llm.ToolCall{ID: id, Name: r.names[id]})
		}
	}
	return out
}

// answerDangling gives every unanswered call of the last assistant message
// a synthetic answer, in call order.
func (r *restorer) answerDangling() {
	for _, c := range r.danglingCalls() {
		r.history = append(r.history, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: danglingCallAnswer})
	}
	clear(r.pending)
	clear(r.names)
	r.order = r.order[:0]
}

func (r *restorer) compacted(p event.ContextCompactedPayload) error {
	if p.Replaced < 0 || p.Replaced > len(r.history) {
		return fmt.Errorf("compaction replaces %d messages of %d", p.Replaced, len(r.history))
	}
	summary := compaction.SummaryMessage(joinContext(p.Summary, p.HookContext))
	summary.Remote = r.remote
	r.history = append([]llm.Message{summary}, r.history[p.Replaced:]...)
	return nil
}

func (r *restorer) rewound(p event.RewoundPayload) error {
	switch p.Mode {
	case "code":
		r.note = p.Note
	case "conversation", "both":
		if p.Length < 0 || p.Length > len(r.history) {
			return fmt.Errorf("rewind to %d messages of %d", p.Length, len(r.history))
		}
		r.answerDangling()
		r.history = r.history[:p.Length]
	default:
		return fmt.Errorf("unknown rewind mode %q", p.Mode)
	}
	return nil
}

// joinContext joins the text a hook added to a message, as the live turn
// does.
func joinContext(text, hookContext string) string {
	if hookContext == "" {
		return text
	}
	return text + "\n\n" + hookContext
}

// joinNote puts a code rewind's note before the next user message.
func joinNote(note, text string) string { return note + "\n\n" + text }
