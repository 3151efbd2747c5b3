package checkpoint

import (
	"path"
	"sort"
	"sync"
	"time"

	"github.com/moteur/moteur/event"
)

// Point is a rewind point: an accepted user message of the session. A
// rewind to it brings the files back to what they were when it was sent.
type Point struct {
	Seq    uint64    `json:"seq"`
	Prompt string    `json:"prompt"`
	Time   time.Time `json:"time"`
}

// Call is a call whose effects a rewind cannot undo (a shell command).
type Call struct {
	Seq    uint64 `json:"seq"`
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	// Risk is the call's risk class as its result recorded it
	// (destructive: what it destroyed is gone for good).
	Risk string `json:"risk,omitempty"`
}

// Rewind modes, as event.RewoundPayload.Mode records them.
const (
	modeCode         = "code"
	modeConversation = "conversation"
	modeBoth         = "both"
)

// write is one change of one file: by a tool call, or by a rewind that
// restored the file (call.CallID and call.Tool are then empty).
type write struct {
	call   Call
	before string // blob id of the content replaced, "" = the file was absent
	after  string // hash of the content left, "" = the file was deleted
}

// State is a session's rewind state. Feed it the session's events in
// order, live or on Restore; it is a pure function of them (no clock, no
// disk), so both ways give the same state. The zero State is ready; it is
// safe for concurrent use.
//
// What it takes from each event:
//   - UserMessage, not Blocked, of the session itself (not of a sub-agent):
//     a point;
//   - ToolResult, of the session or of a sub-agent (both wrote to the same
//     disk in this session's name): each of its Changes is a write, and
//     NotUndoable makes it a Call;
//   - Rewound, of the session itself: see rewound.
//
// Only persisted events count (Seq > 0, not Ephemeral), since only they
// are replayed; an event of another session than the first one seen, or
// whose Seq is not above the last one applied, is ignored, so feeding the
// same event twice changes nothing.
type State struct {
	mu      sync.RWMutex
	session string
	last    uint64
	points  []Point // by increasing Seq, after those of older
	// older are the points a snapshot held (FromSplit), still in their
	// JSON form: a turn only appends points and only a rewind reads them,
	// so continuing a long session need not decode one per turn since it
	// began. loadPoints decodes them when first read; olderErr is why
	// they could not be.
	older    []byte
	olderErr error
	files    map[string][]write // by path, each by increasing Seq
	calls    []Call             // by increasing Seq
}

// Apply feeds the state with the session's next event.
func (s *State) Apply(e event.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Seq == 0 || e.Ephemeral || e.Seq <= s.last {
		return
	}
	if s.session != "" && e.SessionID != s.session {
		return
	}
	s.session, s.last = e.SessionID, e.Seq
	switch p := e.Payload.(type) {
	case event.UserMessagePayload:
		if e.ParentCallID == "" && !p.Blocked {
			s.points = append(s.points, Point{Seq: e.Seq, Prompt: promptOf(p), Time: e.Time})
		}
	case event.ToolResultPayload:
		s.toolResult(e.Seq, p)
	case event.RewoundPayload:
		if e.ParentCallID == "" {
			s.rewound(e.Seq, p)
		}
	}
}

// promptOf is what the user would recognise in a list of points: what they
// typed (a skill invocation such as "/resume a") rather than the text it
// expanded to.
func promptOf(p event.UserMessagePayload) string {
	if p.Typed != "" {
		return p.Typed
	}
	return p.Text
}

func (s *State) toolResult(seq uint64, p event.ToolResultPayload) {
	call := Call{Seq: seq, CallID: p.CallID, Tool: p.Name, Risk: p.Risk}
	for _, c := range p.Changes {
		if c.Path == "" {
			continue
		}
		if s.files == nil {
			s.files = make(map[string][]write)
		}
		// Cleaned, so that "a/./b" and "a/b" are one file. A path that
		// leaves the root is kept as it is: the plan shows it and Apply
		// refuses it, rather than hiding what the agent did.
		key := path.Clean(c.Path)
		s.files[key] = append(s.files[key], write{call: call, before: c.Before, after: c.After})
	}
	if p.NotUndoable {
		s.calls = append(s.calls, call)
	}
}

// rewound records a rewind.
//
// Files (modes code and both): each file the rewind restored (status ok or
// overwritten) now holds its content at the point ToSeq — the Before of
// its first write after ToSeq, which is also that content's hash, blob ids
// being hashes. The rewind is recorded as one more write of the file, at
// the Rewound event's seq, from the content this session had left (the
// After of its last write) to that content. Nothing is erased, so:
//   - a new plan to the same point finds the file as this session left it
//     (Left = Current) and already at the point (Current = Restore): it
//     has nothing to do;
//   - a later rewind to an EARLIER point still finds the file's first write
//     after that point, an original one, and its Before: it restores the
//     older content, the file being ok since Left is the rewind's content;
//   - a later rewind to a point between ToSeq and the rewind (mode code
//     keeps those points) restores the content the rewind replaced: Apply
//     saved it in the Store before replacing it, under its hash — which is
//     the Before recorded here. For an overwritten conflict, the content
//     replaced was someone else's and this session's own last content may
//     be lost; such a rewind then fails for that file, saying so.
//
// Files skipped or failed were not touched: nothing changes for them.
//
// Points (modes conversation and both): the conversation is cut back to
// the point, so the points after it no longer exist; the point itself
// stays (rewinding to it again is still meaningful).
func (s *State) rewound(seq uint64, p event.RewoundPayload) {
	if p.Mode == modeCode || p.Mode == modeBoth {
		for _, f := range p.Files {
			if f.Status != RewoundOK && f.Status != RewoundOverwritten {
				continue
			}
			key := path.Clean(f.Path)
			ws := s.files[key]
			i := firstAfter(ws, p.ToSeq)
			if i == len(ws) {
				// No write after the point: the event names a file this
				// state never saw changed, so there is nothing to record.
				continue
			}
			s.files[key] = append(ws, write{
				call:   Call{Seq: seq},
				before: ws[len(ws)-1].after,
				after:  ws[i].before,
			})
		}
	}
	if p.Mode == modeConversation || p.Mode == modeBoth {
		s.loadPoints()
		n := sort.Search(len(s.points), func(i int) bool { return s.points[i].Seq > p.ToSeq })
		s.points = s.points[:n]
	}
}

// Points returns the session's rewind points, most recent first.
func (s *State) Points() []Point {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadPoints()
	out := make([]Point, len(s.points))
	for i, p := range s.points {
		out[len(out)-1-i] = p
	}
	return out
}

// firstAfter is the index of the first write of ws after seq (len(ws) when
// none).
func firstAfter(ws []write, seq uint64) int {
	return sort.Search(len(ws), func(i int) bool { return ws[i].call.Seq > seq })
}
