package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/moteur/moteur/event"
)

// Append stores events of one session in one transaction (see Store).
func (s *Postgres) Append(ctx context.Context, events ...event.Event) error {
	return s.AppendWithHeads(ctx, events, nil)
}

// errCreateRace: the transaction that would create a session lost the
// race to create it to another writer, and is retried to tell that writer's
// seqs.
var errCreateRace = errors.New("session created meanwhile")

// AppendWithHeads stores events of one session, each with the head of the
// audit chain after it, in one transaction (see Store).
func (s *Postgres) AppendWithHeads(ctx context.Context, events []event.Event, heads [][]byte) error {
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
	// A retry finds the session that another writer created, which then
	// exists for good or until Delete: a few rounds are enough.
	for range 3 {
		if err = s.appendTx(ctx, b); !errors.Is(err, errCreateRace) {
			return err
		}
	}
	return fmt.Errorf("session %s: append: the session was created and deleted under this append, again and again", b.sessionID)
}

// appendTx is one attempt at an Append: four round trips (BEGIN, the locked
// reads, the writes, COMMIT).
func (s *Postgres) appendTx(ctx context.Context, b batch) error {
	id := b.sessionID
	what := fmt.Sprintf("session %s: append", id)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.dbErr(what, err)
	}
	defer rollback(tx)
	// The lease first, the session second (see qReadLease).
	reads := &pgx.Batch{}
	reads.Queue(qReadLease+` FOR SHARE`, id, s.nowArg())
	reads.Queue(`SELECT title, project_root, agent, created_at, updated_at, last_seq, events
		FROM sessions WHERE id = $1 FOR NO KEY UPDATE`, id)
	br := tx.SendBatch(ctx, reads)
	h, leased, err := scanHolder(br.QueryRow())
	if err != nil {
		br.Close()
		return s.appendErr(what, err)
	}
	var sum summary
	var created, updated int64
	exists := true
	err = br.QueryRow().Scan(&sum.Title, &sum.ProjectRoot, &sum.Agent, &created, &updated, &sum.LastSeq, &sum.Events)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		exists = false
	case err != nil:
		br.Close()
		return s.appendErr(what, err)
	}
	if err := br.Close(); err != nil {
		return s.appendErr(what, err)
	}
	if err := s.checkHolder(id, h, leased); err != nil {
		return err
	}
	sum.Created, sum.Updated = fromNanos(created), fromNanos(updated)
	if b.first != sum.LastSeq+1 {
		return seqConflict(id, sum.LastSeq+1, b.first)
	}
	for i, e := range b.events {
		sum.add(e, b.data[i])
	}
	writes := &pgx.Batch{}
	if exists {
		writes.Queue(`UPDATE sessions SET title = $1, project_root = $2, agent = $3, updated_at = $4, last_seq = $5, events = $6
			WHERE id = $7`, sum.Title, sum.ProjectRoot, sum.Agent, nanos(sum.Updated), int64(sum.LastSeq), sum.Events, id)
	} else {
		queueInsertSession(writes, id, sum, sum.Agent, "", 0)
	}
	queueInsertEvents(writes, id, b.events, b.data, b.heads)
	if err := tx.SendBatch(ctx, writes).Close(); err != nil {
		if !exists && pgCode(err) == pgUniqueViolation {
			return errCreateRace
		}
		if pgCode(err) == pgUniqueViolation {
			// Cannot happen while the session's row is locked; the
			// primary key stands guard all the same.
			return fmt.Errorf("session %s: %w: seqs %d…%d are stored already: %v", id, ErrSeqConflict, b.first, sum.LastSeq, err)
		}
		return s.appendErr(what, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return s.commitErr(what, err)
	}
	return nil
}

// appendErr is dbErr for an append that failed before its commit: when
// the connection is lost, PostgreSQL rolls the transaction back, and the
// caller may say that nothing of it was stored.
func (s *Postgres) appendErr(what string, err error) error {
	if connLost(err) {
		return fmt.Errorf("%s: the connection to PostgreSQL was lost before the commit; nothing of this append was stored: %w", what, err)
	}
	return s.dbErr(what, err)
}

// queueInsertSession queues the insert of a session's row.
func queueInsertSession(b *pgx.Batch, id string, sum summary, agent, parent string, forkSeq uint64) {
	b.Queue(`INSERT INTO sessions (id, title, project_root, agent, parent_id, fork_seq, created_at, updated_at, last_seq, events)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		id, sum.Title, sum.ProjectRoot, agent, parent, int64(forkSeq), nanos(sum.Created), nanos(sum.Updated), int64(sum.LastSeq), sum.Events)
}

// queueInsertEvents queues the insert of rows that are known to be new,
// in one statement whatever their number, with their audit heads (nil:
// NULL).
func queueInsertEvents(b *pgx.Batch, id string, events []event.Event, data, heads [][]byte) {
	seqs := make([]int64, len(events))
	types := make([]string, len(events))
	times := make([]int64, len(events))
	texts := make([]string, len(events))
	for i, e := range events {
		seqs[i], types[i], times[i], texts[i] = int64(e.Seq), string(e.Type), nanos(e.Time), string(data[i])
	}
	b.Queue(`INSERT INTO events (session_id, seq, type, time, data, audit_mac)
		SELECT $1, u.* FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::bytea[]) AS u`,
		id, seqs, types, times, texts, heads)
}
