package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SaveSnapshot stores a snapshot of a session (see Store and
// SQLite.SaveSnapshot). The session's row is held FOR KEY SHARE: appends go
// on, a Delete waits.
func (s *Postgres) SaveSnapshot(ctx context.Context, sessionID string, snap Snapshot) error {
	what := fmt.Sprintf("session %s: save snapshot at seq %d", sessionID, snap.Seq)
	data := snap.Data
	if data == nil {
		data = []byte{} // NOT NULL: an empty state is still a state
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.dbErr(what, err)
	}
	defer rollback(tx)
	var last uint64
	err = tx.QueryRow(ctx, `SELECT last_seq FROM sessions WHERE id = $1 FOR KEY SHARE`, sessionID).Scan(&last)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	if err != nil {
		return s.dbErr(what, err)
	}
	switch {
	case snap.Seq == 0:
		return fmt.Errorf("%s: a snapshot is of seq 1 or more", what)
	case snap.Seq > last:
		return fmt.Errorf("%s: the session ends at seq %d", what, last)
	}
	writes := &pgx.Batch{}
	writes.Queue(`INSERT INTO snapshots (session_id, seq, data, created_at) VALUES ($1, $2, $3, `+nowSQL(4)+`)
		ON CONFLICT (session_id, seq) DO UPDATE SET data = excluded.data, created_at = excluded.created_at`,
		sessionID, int64(snap.Seq), data, s.nowArg())
	writes.Queue(`DELETE FROM snapshots WHERE session_id = $1 AND seq NOT IN
		(SELECT seq FROM snapshots WHERE session_id = $1 ORDER BY seq DESC LIMIT $2)`, sessionID, keptSnapshots)
	if err := tx.SendBatch(ctx, writes).Close(); err != nil {
		return s.dbErr(what, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return s.commitErr(what, err)
	}
	return nil
}

// LatestSnapshot returns the session's snapshot of the highest seq (see
// Store), read with the session's last_seq in one statement.
func (s *Postgres) LatestSnapshot(ctx context.Context, sessionID string) (snap Snapshot, ok bool, err error) {
	what := fmt.Sprintf("session %s: latest snapshot", sessionID)
	var last uint64
	var seq, created *int64
	var data []byte
	err = s.pool.QueryRow(ctx, `SELECT s.last_seq, sn.seq, sn.data, sn.created_at FROM sessions s
		LEFT JOIN LATERAL (SELECT seq, data, created_at FROM snapshots WHERE session_id = s.id ORDER BY seq DESC LIMIT 1) sn ON true
		WHERE s.id = $1`, sessionID).Scan(&last, &seq, &data, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return Snapshot{}, false, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	if err != nil {
		return Snapshot{}, false, s.dbErr(what, err)
	}
	if seq == nil {
		return Snapshot{}, false, nil
	}
	snap.Seq = uint64(*seq)
	// A snapshot ahead of the log is a damaged database (see
	// SQLite.LatestSnapshot).
	if snap.Seq > last {
		return Snapshot{}, false, fmt.Errorf("%s: the snapshot is of seq %d, the session ends at seq %d", what, snap.Seq, last)
	}
	snap.Data = data
	if snap.Data == nil {
		snap.Data = []byte{}
	}
	snap.Created = fromNanos(*created)
	return snap, true, nil
}
