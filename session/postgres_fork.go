package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/moteur/moteur/event"
)

// Fork copies the events of src up to atSeq into the new session newID
// (see Store and SQLite.Fork), in one transaction that holds src's row
// FOR KEY SHARE: appends to src go on, a Delete of it waits.
func (s *Postgres) Fork(ctx context.Context, src string, atSeq uint64, newID string) (Info, error) {
	what := fmt.Sprintf("session %s: fork at seq %d into %s", src, atSeq, newID)
	switch {
	case newID == "":
		return Info{}, fmt.Errorf("%s: no id for the fork", what)
	case atSeq == 0:
		return Info{}, fmt.Errorf("%s: the fork point must be a seq of the session (1 or more)", what)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return Info{}, s.dbErr(what, err)
	}
	defer rollback(tx)
	// The new session's lease first (see qReadLease), checked once src is
	// known, so that errors come in the order SQLite gives them.
	h, leased, err := scanHolder(tx.QueryRow(ctx, qReadLease+` FOR SHARE`, newID, s.nowArg()))
	if err != nil {
		return Info{}, s.dbErr(what, err)
	}
	var agent string
	var last uint64
	err = tx.QueryRow(ctx, `SELECT agent, last_seq FROM sessions WHERE id = $1 FOR KEY SHARE`, src).Scan(&agent, &last)
	if errors.Is(err, pgx.ErrNoRows) {
		return Info{}, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	if err != nil {
		return Info{}, s.dbErr(what, err)
	}
	if atSeq > last {
		return Info{}, fmt.Errorf("%s: the session ends at seq %d", what, last)
	}
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1)`, newID).Scan(&exists); err != nil {
		return Info{}, s.dbErr(what, err)
	}
	if exists {
		return Info{}, fmt.Errorf("%s: %w", what, ErrExists)
	}
	if err := s.checkHolder(newID, h, leased); err != nil {
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
	writes := &pgx.Batch{}
	queueInsertSession(writes, newID, sum, agent, src, atSeq)
	queueInsertEvents(writes, newID, events, data, heads)
	if err := tx.SendBatch(ctx, writes).Close(); err != nil {
		if pgCode(err) == pgUniqueViolation {
			// Another fork or append created newID meanwhile.
			return Info{}, fmt.Errorf("%s: %w", what, ErrExists)
		}
		return Info{}, s.dbErr(what, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return Info{}, s.commitErr(what, err)
	}
	return Info{ID: newID, Title: sum.Title, ProjectRoot: sum.ProjectRoot, Agent: agent, ParentID: src, ForkSeq: atSeq,
		Created: fromNanos(nanos(sum.Created)), Updated: fromNanos(nanos(sum.Updated)), Events: sum.Events, LastSeq: sum.LastSeq}, nil
}

// readForFork reads src's events up to atSeq, rewritten for newID, with
// their audit heads (see SQLite.readForFork).
func (s *Postgres) readForFork(ctx context.Context, tx pgx.Tx, src string, atSeq uint64, newID string) (events []event.Event, data, heads [][]byte, err error) {
	what := fmt.Sprintf("session %s: fork", src)
	rows, err := tx.Query(ctx, `SELECT seq, data, audit_mac FROM events WHERE session_id = $1 AND seq <= $2 ORDER BY seq`, src, int64(atSeq))
	if err != nil {
		return nil, nil, nil, s.dbErr(what, err)
	}
	defer rows.Close()
	events = make([]event.Event, 0, atSeq)
	data = make([][]byte, 0, atSeq)
	heads = make([][]byte, 0, atSeq)
	for rows.Next() {
		var seq uint64
		var head []byte // a copy; nil for NULL
		if err := rows.Scan(&seq, nil, &head); err != nil {
			return nil, nil, nil, s.dbErr(what, err)
		}
		raw := rows.RawValues()[1]
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
