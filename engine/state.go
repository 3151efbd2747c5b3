package engine

import (
	"fmt"
	"slices"

	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/compaction"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
)

// state is a session as its persisted events describe it. apply is the one
// writer of every field: the live path calls it on each event right after
// the sinks persisted it, and Restore, the catch-up from Deps.Store and a
// snapshot's tail call it on stored events. So the state is a pure function
// of the events, whichever process or Engine ran the turns, and a snapshot
// (snapshot.go) is only its encoding.
type state struct {
	id   string
	seq  uint64
	last mark // the event at seq, which a snapshot is checked against

	permSeq   uint64 // the highest permission-request number
	remote    bool   // the current provider is not local
	sensitive bool   // classified content entered the session
	note      string // a code rewind's note, joined to the next user message
	history   []llm.Message

	// Rewind state.
	rewind *checkpoint.State
	// pointLen and prompts are, for each point since the last compaction
	// (the ones the conversation can go back to), the history's length
	// before its user message and its prompt as recorded. The older
	// points stay in rewind, for the files.
	pointLen    map[uint64]int
	prompts     map[uint64]string
	compactedAt uint64 // seq of the last compaction

	// Context management: the calibration of the last TurnCompleted, and
	// the provider's count for the last recorded answer (the request that
	// produced it held the history's first usageAt messages).
	scale     float64
	lastUsage *llm.Usage
	usageAt   int

	// round holds the calls of the last assistant message until each has
	// its result: the results join the history together, in call order.
	round *round
	// aliases are the short ids the model reads for knowledge bases,
	// documents and chunks; tools give new ones while they run, and the
	// references their results record make them the state's.
	aliases *cite.Table
}

// mark identifies an event: a snapshot records the one it was taken at,
// and is trusted only when the store still holds that event there.
type mark struct {
	Type event.Type `json:"type"`
	Time int64      `json:"time"` // UnixNano
}

func markOf(ev event.Event) mark { return mark{Type: ev.Type, Time: ev.Time.UnixNano()} }

// round is the calls of one assistant message waiting for their results.
type round struct {
	calls []llm.ToolCall // in call order
	// results holds the result of calls[i] at i once it came (Role set);
	// got counts them.
	results []llm.Message
	got     int
	// asked are the permission requests of the round not resolved yet, in
	// the order they were asked.
	asked []askedRequest
	// interrupted: a request of the round was ended by the process that
	// found it left open by a process that stopped.
	interrupted bool
}

// askedRequest is a permission request waiting for an answer.
type askedRequest struct {
	ID     string `json:"id"`
	CallID string `json:"call_id"`
}

func newState(id string) *state {
	return &state{id: id, rewind: &checkpoint.State{}, pointLen: map[uint64]int{}, prompts: map[uint64]string{},
		aliases: cite.NewTable()}
}

// apply folds the session's next persisted event into the state. An event
// that cannot follow the state (another session's, a seq out of order, a
// compaction or rewind out of range) is an error, and changes nothing but
// what it was checked against.
func (st *state) apply(ev event.Event) error {
	if ev.SessionID != st.id {
		return fmt.Errorf("belongs to session %q", ev.SessionID)
	}
	if ev.Seq <= st.seq {
		return fmt.Errorf("seq %d after %d: the log is out of order", ev.Seq, st.seq)
	}
	if err := st.check(ev); err != nil {
		return err
	}
	st.seq, st.last = ev.Seq, markOf(ev)
	if ev.ParentCallID != "" {
		st.applyChild(ev)
		return nil
	}
	st.rewind.Apply(ev)
	st.aliases.Add(event.References(ev)...)
	switch p := ev.Payload.(type) {
	case event.SessionStartedPayload:
		st.remote = !p.Local
	case event.ProviderSelectedPayload:
		st.remote = !p.Local
	case event.UserMessagePayload:
		st.user(ev.Seq, p)
	case event.AssistantMessagePayload:
		st.assistant(p)
	case event.ToolResultPayload:
		st.toolResult(p)
	case event.ContextCompactedPayload:
		st.compacted(ev.Seq, p)
	case event.RewoundPayload:
		st.rewound(p)
	case event.PermissionRequestedPayload:
		st.permSeq = max(st.permSeq, p.Number)
		if st.round != nil && st.round.index(p.CallID) >= 0 {
			st.round.asked = append(st.round.asked, askedRequest{ID: p.ID, CallID: p.CallID})
		}
	case event.PermissionResolvedPayload:
		if r := st.round; r != nil {
			r.asked = slices.DeleteFunc(r.asked, func(a askedRequest) bool { return a.ID == p.ID })
			r.interrupted = r.interrupted || p.By == resolvedInterrupted
		}
	case event.SessionClassifiedPayload:
		st.sensitive = true
	case event.TurnCompletedPayload:
		// Every TurnCompleted records the calibration then in force (0:
		// never measured); those of earlier versions have none.
		st.scale = p.ContextScale
	}
	return nil
}

// check refuses, before anything changes, the events whose numbers do not
// fit the history.
func (st *state) check(ev event.Event) error {
	if ev.ParentCallID != "" {
		return nil
	}
	switch p := ev.Payload.(type) {
	case event.ContextCompactedPayload:
		if p.Replaced < 0 || p.Replaced > len(st.history) {
			return fmt.Errorf("compaction replaces %d messages of %d", p.Replaced, len(st.history))
		}
	case event.RewoundPayload:
		switch p.Mode {
		case string(RewindCode):
		case string(RewindConversation), string(RewindBoth):
			if p.Length < 0 || p.Length > len(st.history) {
				return fmt.Errorf("rewind to %d messages of %d", p.Length, len(st.history))
			}
		default:
			return fmt.Errorf("unknown rewind mode %q", p.Mode)
		}
	}
	return nil
}

// applyChild folds a sub-agent's event: only the permission counter, the
// classification and the files it wrote concern the parent session.
func (st *state) applyChild(ev event.Event) {
	switch p := ev.Payload.(type) {
	case event.ToolResultPayload:
		// A sub-agent's writes are undone with its parent's.
		st.rewind.Apply(ev)
	case event.PermissionRequestedPayload:
		st.permSeq = max(st.permSeq, p.Number)
	case event.SessionClassifiedPayload:
		st.sensitive = true
	}
}

func (st *state) user(seq uint64, p event.UserMessagePayload) {
	if p.Blocked {
		return
	}
	st.settle()
	st.pointLen[seq], st.prompts[seq] = len(st.history), p.Text
	text := joinContext(p.Text, p.HookContext)
	if st.note != "" {
		text, st.note = joinNote(st.note, text), ""
	}
	st.history = append(st.history, llm.Message{Role: llm.RoleUser, Content: text})
}

func (st *state) assistant(p event.AssistantMessagePayload) {
	st.settle()
	if p.Usage != nil {
		u := *p.Usage
		st.lastUsage, st.usageAt = &u, len(st.history)
	}
	st.history = append(st.history, llm.Message{Role: llm.RoleAssistant, Content: p.Text, Reasoning: p.Reasoning,
		ToolCalls: p.ToolCalls, Remote: st.remote})
	if len(p.ToolCalls) > 0 {
		st.round = &round{calls: p.ToolCalls, results: make([]llm.Message, len(p.ToolCalls))}
	}
}

// toolResult keeps the answer to a call of the round; once every call has
// one they join the history. A result for no waiting call (a duplicate)
// would break the pairing every server enforces, so it is left out.
func (st *state) toolResult(p event.ToolResultPayload) {
	r := st.round
	if r == nil {
		return
	}
	i := r.index(p.CallID)
	if i < 0 || r.results[i].Role != "" {
		return
	}
	r.results[i] = llm.Message{Role: llm.RoleTool, ToolCallID: p.CallID, Name: p.Name, Content: p.Content}
	if r.got++; r.got == len(r.calls) {
		st.settle()
	}
}

func (st *state) compacted(seq uint64, p event.ContextCompactedPayload) {
	summary := compaction.SummaryMessage(joinContext(p.Summary, p.HookContext))
	summary.Remote = st.remote
	st.history = append([]llm.Message{summary}, st.history[p.Replaced:]...)
	st.compactedAt, st.lastUsage = seq, nil
	// The conversation cannot go back past a compaction: the lengths and
	// prompts of the points before it are of no use any more, and a long
	// session's state stays the size of its live context.
	clear(st.pointLen)
	clear(st.prompts)
}

func (st *state) rewound(p event.RewoundPayload) {
	if p.Mode == string(RewindCode) {
		st.note = p.Note
		return
	}
	// The calls left waiting are cut off with the rest, and so are the
	// points after the one rewound to (as the rewind state drops them).
	st.round = nil
	st.history = st.history[:p.Length]
	st.lastUsage = nil
	for seq := range st.pointLen {
		if seq > p.ToSeq {
			delete(st.pointLen, seq)
			delete(st.prompts, seq)
		}
	}
}

// settle ends the round: its results join the history in call order, and a
// call without one gets the synthetic answer that says why.
func (st *state) settle() {
	if st.round != nil {
		st.history = append(st.history, st.roundMessages()...)
		st.round = nil
	}
}

// roundMessages are the round's results in call order, a synthetic answer
// standing for each missing one.
func (st *state) roundMessages() []llm.Message {
	r := st.round
	if r.got == len(r.calls) {
		return r.results
	}
	answer := st.unfinishedAnswer()
	out := make([]llm.Message, len(r.calls))
	for i, c := range r.calls {
		out[i] = r.results[i]
		if out[i].Role == "" {
			out[i] = llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: answer}
		}
	}
	return out
}

// unanswered are the calls of the round still without a result, in call
// order: a turn of this session that stopped (a crash) left them.
func (st *state) unanswered() []llm.ToolCall {
	if st.round == nil {
		return nil
	}
	var out []llm.ToolCall
	for i, c := range st.round.calls {
		if st.round.results[i].Role == "" {
			out = append(out, c)
		}
	}
	return out
}

// unfinishedAnswer is what the model reads for a call the session stopped
// before it finished. Every call of a round is decided before any runs, so
// while a request of the round waited for an answer none of them ran.
func (st *state) unfinishedAnswer() string {
	if r := st.round; r != nil && (r.interrupted || len(r.asked) > 0) {
		return notRunAnswer
	}
	return danglingCallAnswer
}

// tool is the name of the round's call callID.
func (r *round) tool(callID string) string {
	if i := r.index(callID); i >= 0 {
		return r.calls[i].Name
	}
	return ""
}

// index is the place of call callID in the round, -1 when it is not one
// of its calls.
func (r *round) index(callID string) int {
	for i, c := range r.calls {
		if c.ID == callID {
			return i
		}
	}
	return -1
}
