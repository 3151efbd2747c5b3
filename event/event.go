// Package event owns the typed events the engine emits, their payloads, the
// persistence decision of each type, and the sinks that persist them.
//
// Every event of a session carries a sequence number: persisted events are
// numbered 1, 2, 3… without gaps, so a gap in a stored log means loss.
// Ephemeral events (streaming deltas) are never persisted and carry seq 0.
//
// The audit sink (AuditSink) writes each session's audit log, record N
// holding the event of seq N+1, in a chain keyed with the at-rest key. A
// Write returns once the record is with the operating system (and on disk
// when it must be: see Write); it fails, and every later one with it, when
// the file is no longer the one at its path. A log is continued only once
// the whole of it verifies against the heads the session store recorded
// (VerifyAudit), so that a log deleted, cut short, rolled back, replaced or
// rewritten without the key is found. The format, byte for byte, is at the
// top of audit.go.
package event

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Type names an event. The names are part of Moteur's public contract.
type Type string

// Event is one thing that happened in a session.
type Event struct {
	Seq       uint64    `json:"seq"`
	Type      Type      `json:"type"`
	SessionID string    `json:"session_id"`
	Time      time.Time `json:"time"`
	// ParentCallID is set on the events of a sub-agent: the call that
	// started it.
	ParentCallID string `json:"parent_call_id,omitempty"`
	// Ephemeral marks events that are delivered but never persisted.
	Ephemeral bool `json:"ephemeral,omitempty"`
	// Payload is the type's payload struct (a pointer-free value such as
	// UserMessagePayload); json.RawMessage for a type this version does not
	// know.
	Payload any `json:"payload"`
}

// wireEvent is Event with the payload left undecoded.
type wireEvent struct {
	Seq          uint64          `json:"seq"`
	Type         Type            `json:"type"`
	SessionID    string          `json:"session_id"`
	Time         time.Time       `json:"time"`
	ParentCallID string          `json:"parent_call_id,omitempty"`
	Ephemeral    bool            `json:"ephemeral,omitempty"`
	Payload      json.RawMessage `json:"payload"`
}

// UnmarshalJSON decodes the payload into the struct its type names, so that a
// log written by one process reads back as the same typed events. An unknown
// type keeps its payload as json.RawMessage: newer logs stay readable.
func (e *Event) UnmarshalJSON(b []byte) error {
	var w wireEvent
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("event: %w", err)
	}
	if w.Type == "" {
		return fmt.Errorf("event: missing type")
	}
	*e = Event{Seq: w.Seq, Type: w.Type, SessionID: w.SessionID, Time: w.Time,
		ParentCallID: w.ParentCallID, Ephemeral: w.Ephemeral}
	p, err := decodePayload(w.Type, w.Payload)
	if err != nil {
		return fmt.Errorf("event %d (%s): %w", w.Seq, w.Type, err)
	}
	e.Payload = p
	return nil
}

// Decode parses one event from its JSON form.
func Decode(b []byte) (Event, error) {
	var e Event
	err := json.Unmarshal(b, &e)
	// Syntax errors are found before UnmarshalJSON runs: name them here.
	if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
		err = fmt.Errorf("event: %w", err)
	}
	return e, err
}
