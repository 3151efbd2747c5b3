package session

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/moteur/moteur/event"
)

// This file holds what every back end shares: the checks of an Append and
// the little interpretation of events that storage needs.

// batch is a checked Append: events of one session with consecutive seqs,
// each with its JSON encoding.
type batch struct {
	sessionID string
	first     uint64
	events    []event.Event
	data      [][]byte
	heads     [][]byte // the audit head of each event, nil for none
}

// checkBatch checks events for Append and encodes them. It does not know
// the stored LastSeq: the back end checks the first seq against it.
func checkBatch(events []event.Event) (batch, error) {
	b := batch{sessionID: events[0].SessionID, first: events[0].Seq, events: events, data: make([][]byte, len(events))}
	if b.sessionID == "" {
		return b, fmt.Errorf("append: event seq %d has no session id", events[0].Seq)
	}
	for i, e := range events {
		if e.SessionID != b.sessionID {
			return b, fmt.Errorf("session %s: append: one call holds events of sessions %q and %q; append each session on its own",
				b.sessionID, b.sessionID, e.SessionID)
		}
		if e.Type == "" {
			return b, fmt.Errorf("session %s: append: event seq %d has no type", b.sessionID, e.Seq)
		}
		if spec, _ := event.SpecOf(e.Type); e.Ephemeral || !spec.Persisted {
			return b, fmt.Errorf("session %s: append: event seq %d (%s) is ephemeral and is never persisted", b.sessionID, e.Seq, e.Type)
		}
		// The first seq is checked by the back end against the stored
		// LastSeq (seq 0 never matches it).
		if want := b.first + uint64(i); e.Seq != want {
			return b, seqConflict(b.sessionID, want, e.Seq)
		}
		if e.Seq > math.MaxInt64 {
			return b, fmt.Errorf("session %s: append: seq %d is out of range", b.sessionID, e.Seq)
		}
		d, err := json.Marshal(e)
		if err != nil {
			return b, fmt.Errorf("session %s: append: encode event seq %d (%s): %w", b.sessionID, e.Seq, e.Type, err)
		}
		b.data[i] = d
	}
	return b, nil
}

func seqConflict(sessionID string, want, got uint64) error {
	return fmt.Errorf("session %s: %w: expected seq %d, got %d", sessionID, ErrSeqConflict, want, got)
}

// summary is what a store keeps about a session beside its events: Info
// without the fields that no event sets.
type summary struct {
	Title, ProjectRoot, Agent string
	Created, Updated          time.Time
	Events                    int
	LastSeq                   uint64
}

// add accounts for one more event, data being its JSON encoding.
func (s *summary) add(e event.Event, data []byte) {
	if s.Events == 0 {
		s.Created = e.Time
	}
	s.Updated = e.Time
	s.Events++
	s.LastSeq = e.Seq
	switch e.Type {
	case event.UserMessage:
		if s.Title == "" {
			if p, ok := payloadOf[event.UserMessagePayload](e, data); ok && !p.Blocked {
				s.Title = titleOf(p.Text)
			}
		}
	case event.SessionStarted:
		if s.ProjectRoot == "" || s.Agent == "" {
			if p, ok := payloadOf[event.SessionStartedPayload](e, data); ok {
				s.ProjectRoot = cmp.Or(s.ProjectRoot, p.ProjectRoot)
				s.Agent = cmp.Or(s.Agent, p.Agent)
			}
		}
	}
}

// payloadOf returns e's payload as a P, decoding data when the caller built
// the event with another representation (a pointer, raw JSON).
func payloadOf[P any](e event.Event, data []byte) (P, bool) {
	switch p := e.Payload.(type) {
	case P:
		return p, true
	case *P:
		if p != nil {
			return *p, true
		}
	}
	var zero P
	d, err := event.Decode(data)
	if err != nil {
		return zero, false
	}
	p, ok := d.Payload.(P)
	return p, ok
}

// maxTitle is the most runes a title has, "…" included.
const maxTitle = 80

// titleOf makes a title of a user message: its first non-blank line,
// trimmed, cut to maxTitle runes with "…".
func titleOf(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.IndexAny(text, "\r\n"); i >= 0 {
		text = strings.TrimSpace(text[:i])
	}
	if utf8.RuneCountInString(text) <= maxTitle {
		return text
	}
	r := []rune(text)[:maxTitle-1]
	return strings.TrimRightFunc(string(r), unicode.IsSpace) + "…"
}
