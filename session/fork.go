package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/moteur/moteur/event"
)

// Fork copies the events of src up to atSeq into the new session newID.
// Info of the fork is computed from the copied events alone (a title that
// src got after atSeq is not the fork's); its Agent is src's.
func (s *SQLite) Fork(ctx context.Context, src string, atSeq uint64, newID string) (Info, error) {
	what := fmt.Sprintf("session %s: fork at seq %d into %s", src, atSeq, newID)
	switch {
	case newID == "":
		return Info{}, fmt.Errorf("%s: no id for the fork", what)
	case atSeq == 0:
		return Info{}, fmt.Errorf("%s: the fork point must be a seq of the session (1 or more)", what)
	}
	tx, err := s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE
	if err != nil {
		return Info{}, s.dbErr(what, err)
	}
	defer tx.Rollback()
	var agent string
	var last uint64
	err = tx.QueryRowContext(ctx, `SELECT agent, last_seq FROM sessions WHERE id = ?`, src).Scan(&agent, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return Info{}, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	if err != nil {
		return Info{}, s.dbErr(what, err)
	}
	if atSeq > last {
		return Info{}, fmt.Errorf("%s: the session ends at seq %d", what, last)
	}
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, newID).Scan(&one)
	if err == nil {
		return Info{}, fmt.Errorf("%s: %w", what, ErrExists)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Info{}, s.dbErr(what, err)
	}
	if err := s.checkLease(ctx, tx, newID); err != nil {
		return Info{}, err
	}
	events, data, heads, err := s.readForFork(ctx, tx, src, atSeq, newID)
	if err != nil {
		return Info{}, err
	}
	var sum summary
	for i, e := range events {
		sum.add(e, data[i])
	}
	if err := s.insertSession(ctx, tx, newID, sum, agent, src, atSeq); err != nil {
		return Info{}, s.dbErr(what, err)
	}
	if err := s.insertEvents(ctx, tx, newID, events, data, heads); err != nil {
		return Info{}, s.dbErr(what, err)
	}
	if err := tx.Commit(); err != nil {
		return Info{}, s.dbErr(what, err)
	}
	return Info{ID: newID, Title: sum.Title, ProjectRoot: sum.ProjectRoot, Agent: agent, ParentID: src, ForkSeq: atSeq,
		Created: fromNanos(nanos(sum.Created)), Updated: fromNanos(nanos(sum.Updated)), Events: sum.Events, LastSeq: sum.LastSeq}, nil
}

// readForFork reads src's events up to atSeq, rewritten for newID: only
// session_id changes; the payload keeps its bytes. Each event must decode:
// a fork never copies a damaged event. The audit heads are copied as they
// are: the records they are the MACs of stay in src's audit log, and the
// fork's own log chains onto the head of atSeq (event/audit.go).
func (s *SQLite) readForFork(ctx context.Context, tx *sql.Tx, src string, atSeq uint64, newID string) (events []event.Event, data, heads [][]byte, err error) {
	what := fmt.Sprintf("session %s: fork", src)
	rows, err := tx.QueryContext(ctx, `SELECT seq, data, audit_mac FROM events WHERE session_id = ? AND seq <= ? ORDER BY seq`, src, atSeq)
	if err != nil {
		return nil, nil, nil, s.dbErr(what, err)
	}
	defer rows.Close()
	events = make([]event.Event, 0, atSeq)
	data = make([][]byte, 0, atSeq)
	heads = make([][]byte, 0, atSeq)
	for rows.Next() {
		var seq uint64
		var raw sql.RawBytes
		var head []byte // a copy; nil for NULL
		if err := rows.Scan(&seq, &raw, &head); err != nil {
			return nil, nil, nil, s.dbErr(what, err)
		}
		e, err := decodeStored(src, seq, raw)
		if err != nil {
			return nil, nil, nil, err
		}
		d, err := rewriteSessionID(raw, newID)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("session %s: stored event seq %d: %w", src, seq, err)
		}
		e.SessionID = newID
		events = append(events, e)
		data = append(data, d)
		heads = append(heads, head)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, nil, s.dbErr(what, err)
	}
	if uint64(len(events)) != atSeq {
		return nil, nil, nil, fmt.Errorf("session %s: %d events stored up to seq %d: the log has a gap", src, len(events), atSeq)
	}
	return events, data, heads, nil
}

// rawEvent is event.Event with the payload kept as JSON: the same fields in
// the same order (a test checks it), so that marshalling it writes what
// json.Marshal(event.Event) writes.
type rawEvent struct {
	Seq          uint64          `json:"seq"`
	Type         event.Type      `json:"type"`
	SessionID    string          `json:"session_id"`
	Time         time.Time       `json:"time"`
	ParentCallID string          `json:"parent_call_id,omitempty"`
	Ephemeral    bool            `json:"ephemeral,omitempty"`
	Payload      json.RawMessage `json:"payload"`
}

// rewriteSessionID returns the stored event data with its session id
// replaced and every other byte as it was.
func rewriteSessionID(data []byte, id string) ([]byte, error) {
	var r rawEvent
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	r.SessionID = id
	return json.Marshal(r)
}
