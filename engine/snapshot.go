package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	storage "github.com/moteur/moteur/session"
)

// A snapshot is the encoding of a session's state at a seq, kept by the
// store beside the events, so that continuing a long session reads the
// latest snapshot and the events after it instead of all of them. It is a
// cache: the events stay the truth. One that does not decode, fails its
// checksum, describes an impossible state or was taken at an event the
// store no longer holds there is set aside, the state is rebuilt from the
// events, and the next turn records a Warning saying so.

// DefaultSnapshotEvery is how many events may follow a session's last
// snapshot before the end of a turn writes a new one (a compaction writes
// one at the end of its turn whatever the count).
const DefaultSnapshotEvery = 500

// snapshotVersion is the encoding's version. Version 2 (the rewind points
// inside the state's JSON) is still read; another is rebuilt from the
// events.
const snapshotVersion = 3

// snapshotStore is implemented by stores that keep snapshots
// (session.Store).
type snapshotStore interface {
	SaveSnapshot(ctx context.Context, sessionID string, snap storage.Snapshot) error
	LatestSnapshot(ctx context.Context, sessionID string) (storage.Snapshot, bool, error)
}

// snapshotHeader is the first line of the stored form: the version and
// the SHA-256 of what follows the line. Then come a line of the state's
// JSON, without its rewind points, and a line of the points, a JSON array
// that is not decoded before a rewind reads them (checkpoint.FromSplit):
// they are one per turn since the session began, nearly all of a long
// session's snapshot, and a turn only appends to them. The state is not
// nested in the header, so that reading a snapshot scans it once.
type snapshotHeader struct {
	V   int    `json:"v"`
	Sum string `json:"sha256"`
}

// stateJSON is the encoding of a state.
type stateJSON struct {
	Session     string               `json:"session"`
	Seq         uint64               `json:"seq"`
	Last        mark                 `json:"last"`
	PermSeq     uint64               `json:"perm_seq,omitempty"`
	Remote      bool                 `json:"remote,omitempty"`
	Sensitive   bool                 `json:"sensitive,omitempty"`
	Note        string               `json:"note,omitempty"`
	History     []llm.Message        `json:"history"`
	Rewind      checkpoint.StateData `json:"rewind"`
	PointLen    map[uint64]int       `json:"point_len,omitempty"`
	Prompts     map[uint64]string    `json:"prompts,omitempty"`
	CompactedAt uint64               `json:"compacted_at,omitempty"`
	Scale       float64              `json:"scale,omitempty"`
	LastUsage   *llm.Usage           `json:"last_usage,omitempty"`
	UsageAt     int                  `json:"usage_at,omitempty"`
	Round       *roundJSON           `json:"round,omitempty"`
	Aliases     []cite.Ref           `json:"aliases,omitempty"`
}

type roundJSON struct {
	Calls []llm.ToolCall `json:"calls"`
	// Results are by call index; a call without one has a zero message.
	Results     []llm.Message  `json:"results"`
	Asked       []askedRequest `json:"asked,omitempty"`
	Interrupted bool           `json:"interrupted,omitempty"`
}

// encode is the snapshot of st.
func (st *state) encode() ([]byte, error) {
	rewind, points, err := st.rewind.Split()
	if err != nil {
		return nil, fmt.Errorf("session %s: encode the rewind points at seq %d: %w", st.id, st.seq, err)
	}
	j := stateJSON{Session: st.id, Seq: st.seq, Last: st.last, PermSeq: st.permSeq, Remote: st.remote,
		Sensitive: st.sensitive, Note: st.note, History: st.history, Rewind: rewind, PointLen: st.pointLen,
		Prompts: st.prompts, CompactedAt: st.compactedAt, Scale: st.scale, LastUsage: st.lastUsage,
		UsageAt: st.usageAt, Aliases: st.aliases.Refs()}
	if r := st.round; r != nil {
		j.Round = &roundJSON{Calls: r.calls, Results: r.results, Asked: r.asked, Interrupted: r.interrupted}
	}
	raw, err := json.Marshal(j)
	if err != nil {
		return nil, fmt.Errorf("session %s: encode the state at seq %d: %w", st.id, st.seq, err)
	}
	// json.Marshal escapes every newline: the line ends are the sections'.
	raw = append(append(raw, '\n'), points...)
	sum := sha256.Sum256(raw)
	head, err := json.Marshal(snapshotHeader{V: snapshotVersion, Sum: hex.EncodeToString(sum[:])})
	if err != nil {
		return nil, err
	}
	return append(append(head, '\n'), raw...), nil
}

// decodeState reads a snapshot of session id taken at seq.
func decodeState(id string, seq uint64, data []byte) (*state, error) {
	line, raw, ok := bytes.Cut(data, []byte{'\n'})
	var h snapshotHeader
	if !ok {
		return nil, errors.New("it has no header line")
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, fmt.Errorf("its header does not decode: %w", err)
	}
	if h.V != snapshotVersion && h.V != 2 {
		return nil, fmt.Errorf("version %d, this engine reads 2 and %d", h.V, snapshotVersion)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != h.Sum {
		return nil, errors.New("its checksum does not match its content")
	}
	var points []byte
	if h.V == snapshotVersion {
		if raw, points, ok = bytes.Cut(raw, []byte{'\n'}); !ok {
			return nil, errors.New("it has no line of rewind points")
		}
	}
	var j stateJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("state does not decode: %w", err)
	}
	var rewind *checkpoint.State
	var err error
	if h.V == snapshotVersion {
		rewind, err = checkpoint.FromSplit(j.Rewind, points)
	} else {
		rewind, err = checkpoint.FromData(j.Rewind)
	}
	if err != nil {
		return nil, err
	}
	if j.Session != id || j.Seq != seq {
		return nil, fmt.Errorf("it describes session %q at seq %d", j.Session, j.Seq)
	}
	st := newState(id)
	st.seq, st.last, st.permSeq, st.remote, st.sensitive, st.note = j.Seq, j.Last, j.PermSeq, j.Remote, j.Sensitive, j.Note
	st.history, st.rewind, st.compactedAt, st.scale = j.History, rewind, j.CompactedAt, j.Scale
	st.lastUsage, st.usageAt = j.LastUsage, j.UsageAt
	if j.PointLen != nil {
		st.pointLen = j.PointLen
	}
	if j.Prompts != nil {
		st.prompts = j.Prompts
	}
	st.aliases.Add(j.Aliases...)
	if r := j.Round; r != nil {
		st.round = &round{calls: r.Calls, results: r.Results, asked: r.Asked, interrupted: r.Interrupted}
	}
	if err := st.valid(); err != nil {
		return nil, err
	}
	return st, nil
}

// valid refuses a decoded state that no events could have produced.
func (st *state) valid() error {
	n := len(st.history)
	for seq, at := range st.pointLen {
		// A point before the last compaction holds a length of the
		// history it summarised: only a code rewind goes back to it.
		if seq > st.seq || at < 0 || seq >= st.compactedAt && at > n {
			return fmt.Errorf("rewind point at seq %d holds %d messages of %d", seq, at, n)
		}
		if _, ok := st.prompts[seq]; !ok {
			return fmt.Errorf("rewind point at seq %d has no prompt", seq)
		}
	}
	if len(st.prompts) != len(st.pointLen) {
		return fmt.Errorf("%d prompts for %d rewind points", len(st.prompts), len(st.pointLen))
	}
	if st.usageAt < 0 || st.usageAt > n || st.compactedAt > st.seq {
		return fmt.Errorf("usage at %d of %d messages, compaction at seq %d of %d", st.usageAt, n, st.compactedAt, st.seq)
	}
	for i, m := range st.history {
		switch m.Role {
		case llm.RoleUser, llm.RoleAssistant, llm.RoleTool:
		default:
			return fmt.Errorf("message %d has role %q", i, m.Role)
		}
	}
	if r := st.round; r != nil {
		if len(r.calls) == 0 || len(r.results) != len(r.calls) {
			return fmt.Errorf("a round of %d calls with %d results", len(r.calls), len(r.results))
		}
		for i, m := range r.results {
			if m.Role == "" {
				continue
			}
			if m.ToolCallID != r.calls[i].ID {
				return fmt.Errorf("the result of call %q answers %q", r.calls[i].ID, m.ToolCallID)
			}
			r.got++
		}
		if r.got == len(r.calls) {
			return fmt.Errorf("a round whose %d calls all have results", r.got)
		}
		for _, a := range r.asked {
			if r.index(a.CallID) < 0 {
				return fmt.Errorf("a request for %q, no call of the round", a.CallID)
			}
		}
	}
	return nil
}

// resume reads the latest snapshot of a session this Engine has no state
// of, and the events after it: ok when the store keeps one that matches
// its events. A snapshot set aside leaves a note for the turn to record.
// The caller holds the session's turn and emitMu.
func (e *Engine) resume(ctx context.Context, s *session) (st *state, tail []event.Event, ok bool) {
	ss, isSS := e.deps.Store.(snapshotStore)
	if !isSS {
		return nil, nil, false
	}
	snap, found, err := ss.LatestSnapshot(ctx, s.id)
	if err != nil || !found {
		return nil, nil, false // none, or reading the events will say what is wrong
	}
	st, err = decodeState(s.id, snap.Seq, snap.Data)
	if err == nil {
		// From the snapshot's own event, which must still be there.
		tail, err = e.deps.Store.LoadFrom(ctx, s.id, snap.Seq-1)
	}
	if err == nil {
		err = matches(st, tail)
	}
	if err != nil {
		s.notes = append(s.notes, event.WarningPayload{Kind: "snapshot", Message: fmt.Sprintf(
			"session %s: the snapshot at seq %d was set aside (%v): the state was rebuilt from the events", s.id, snap.Seq, err)})
		return nil, nil, false
	}
	s.snapAt = snap.Seq
	return st, tail[1:], true
}

// matches checks that the store still holds, at the snapshot's seq, the
// event the snapshot was taken at (the first of tail).
func matches(st *state, tail []event.Event) error {
	if len(tail) == 0 || tail[0].Seq != st.seq {
		return fmt.Errorf("the session has no event at seq %d", st.seq)
	}
	if got := markOf(tail[0]); got != st.last {
		return fmt.Errorf("it was taken at a %s of %d, the store holds a %s of %d there",
			st.last.Type, st.last.Time, got.Type, got.Time)
	}
	return nil
}

// snapshot stores the session's state when enough events followed the
// last snapshot, or force (a compaction). A failure only warns: the events
// are the truth. The caller holds the session's turn.
func (e *Engine) snapshot(s *session, force bool) {
	ss, ok := e.deps.Store.(snapshotStore)
	if !ok || s.st.seq == 0 || s.st.seq == s.snapAt {
		return
	}
	if !force && s.st.seq-s.snapAt < uint64(e.deps.SnapshotEvery) {
		return
	}
	data, err := s.st.encode()
	if err == nil {
		err = ss.SaveSnapshot(context.Background(), s.id, storage.Snapshot{Seq: s.st.seq, Data: data})
	}
	if err != nil {
		s.emitMu.Lock()
		e.deliver(s, event.Event{Type: event.Warning, SessionID: s.id, Time: e.now(), Ephemeral: true,
			Payload: event.WarningPayload{Kind: "snapshot", Message: fmt.Sprintf("session %s: snapshot at seq %d not saved: %v", s.id, s.st.seq, err)}})
		s.emitMu.Unlock()
		return
	}
	s.snapAt = s.st.seq
}
