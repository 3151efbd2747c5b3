package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/moteur/moteur/event"
)

// Append stores events of one session in one transaction (see Store).
func (s *SQLite) Append(ctx context.Context, events ...event.Event) error {
	return s.AppendWithHeads(ctx, events, nil)
}

// AppendWithHeads stores events of one session, each with the head of the
// audit chain after it, in one transaction (see Store). nil heads store
// none, as Append.
func (s *SQLite) AppendWithHeads(ctx context.Context, events []event.Event, heads [][]byte) error {
	if len(events) == 0 {
		if len(heads) > 0 {
			return fmt.Errorf("append: %d audit heads for no event", len(heads))
		}
		return nil
	}
	b, err := checkBatch(events)
	if err != nil {
		return err
	}
	if b.heads, err = checkHeads(b, heads); err != nil {
		return err
	}
	id := b.sessionID
	what := fmt.Sprintf("session %s: append", id)
	tx, err := s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE
	if err != nil {
		return s.dbErr(what, err)
	}
	defer tx.Rollback()
	if err := s.checkLease(ctx, tx, id); err != nil {
		return err
	}
	var sum summary
	var created, updated int64
	exists := true
	err = s.txStmt(ctx, tx, qSelectHead).QueryRowContext(ctx, id).
		Scan(&sum.Title, &sum.ProjectRoot, &sum.Agent, &created, &updated, &sum.LastSeq, &sum.Events)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		exists = false
	case err != nil:
		return s.dbErr(what, err)
	}
	sum.Created, sum.Updated = fromNanos(created), fromNanos(updated)
	if b.first != sum.LastSeq+1 {
		return seqConflict(id, sum.LastSeq+1, b.first)
	}
	for i, e := range b.events {
		sum.add(e, b.data[i])
	}
	if exists {
		_, err = s.txStmt(ctx, tx, qUpdateHead).ExecContext(ctx,
			sum.Title, sum.ProjectRoot, sum.Agent, nanos(sum.Updated), sum.LastSeq, sum.Events, id)
	} else {
		err = s.insertSession(ctx, tx, id, sum, sum.Agent, "", 0)
	}
	if err != nil {
		return s.dbErr(what, err)
	}
	if err := s.insertEvents(ctx, tx, id, b.events, b.data, b.heads); err != nil {
		return s.dbErr(what, err)
	}
	if err := tx.Commit(); err != nil {
		return s.dbErr(what, err)
	}
	return nil
}

// checkHeads checks the heads of a batch: none, or one per event, each nil
// or HeadSize bytes. It returns one per event.
func checkHeads(b batch, heads [][]byte) ([][]byte, error) {
	if heads == nil {
		return make([][]byte, len(b.events)), nil
	}
	if len(heads) != len(b.events) {
		return nil, fmt.Errorf("session %s: append: %d audit heads for %d events", b.sessionID, len(heads), len(b.events))
	}
	for i, h := range heads {
		if h != nil && len(h) != HeadSize {
			return nil, fmt.Errorf("session %s: append: the audit head of seq %d is %d bytes, want %d",
				b.sessionID, b.events[i].Seq, len(h), HeadSize)
		}
	}
	return heads, nil
}

func (s *SQLite) insertSession(ctx context.Context, tx *sql.Tx, id string, sum summary, agent, parent string, forkSeq uint64) error {
	_, err := s.txStmt(ctx, tx, qInsertHead).ExecContext(ctx, id, sum.Title, sum.ProjectRoot, agent, parent, forkSeq,
		nanos(sum.Created), nanos(sum.Updated), sum.LastSeq, sum.Events)
	return err
}

// insertEvents inserts rows that are known to be new, with their audit
// heads (heads[i], nil for none): an event row is never updated.
func (s *SQLite) insertEvents(ctx context.Context, tx *sql.Tx, id string, events []event.Event, data, heads [][]byte) error {
	st := s.txStmt(ctx, tx, qInsertEvent)
	for i, e := range events {
		var head any // NULL: the event has no head
		if heads[i] != nil {
			head = heads[i]
		}
		if _, err := st.ExecContext(ctx, id, e.Seq, string(e.Type), nanos(e.Time), string(data[i]), head); err != nil {
			return fmt.Errorf("event seq %d: %w", e.Seq, err)
		}
	}
	return nil
}
