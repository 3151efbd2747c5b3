package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Snapshot is a session's state as the engine reduced it from its events up
// to Seq included. The store keeps Data as given and never interprets it:
// the engine, which wrote it, decides whether it can still read it.
type Snapshot struct {
	Seq  uint64
	Data []byte
	// Created is set by the store when saved (its clock seam).
	Created time.Time
}

// keptSnapshots is how many snapshots of a session are kept, the most
// recent by seq: the latest, and the one before in case the engine finds
// the latest unreadable.
const keptSnapshots = 2

// SaveSnapshot stores a snapshot of a session (see Store). It takes no
// lease and writes no event: a snapshot is a cache that any process may
// write, and the events it was reduced from stay the truth.
func (s *SQLite) SaveSnapshot(ctx context.Context, sessionID string, snap Snapshot) error {
	what := fmt.Sprintf("session %s: save snapshot at seq %d", sessionID, snap.Seq)
	data := snap.Data
	if data == nil {
		data = []byte{} // NOT NULL: an empty state is still a state
	}
	tx, err := s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE
	if err != nil {
		return s.dbErr(what, err)
	}
	defer tx.Rollback()
	var last uint64
	err = tx.QueryRowContext(ctx, `SELECT last_seq FROM sessions WHERE id = ?`, sessionID).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
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
	if _, err := tx.ExecContext(ctx, `INSERT INTO snapshots (session_id, seq, data, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (session_id, seq) DO UPDATE SET data = excluded.data, created_at = excluded.created_at`,
		sessionID, snap.Seq, data, nanos(s.now())); err != nil {
		return s.dbErr(what, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM snapshots WHERE session_id = ? AND seq NOT IN
		(SELECT seq FROM snapshots WHERE session_id = ? ORDER BY seq DESC LIMIT ?)`,
		sessionID, sessionID, keptSnapshots); err != nil {
		return s.dbErr(what, err)
	}
	if err := tx.Commit(); err != nil {
		return s.dbErr(what, err)
	}
	return nil
}

// LatestSnapshot returns the session's snapshot of the highest seq (see
// Store).
func (s *SQLite) LatestSnapshot(ctx context.Context, sessionID string) (snap Snapshot, ok bool, err error) {
	what := fmt.Sprintf("session %s: latest snapshot", sessionID)
	tx, last, err := s.readLastSeq(ctx, what, sessionID)
	if err != nil {
		return Snapshot{}, false, err
	}
	defer tx.Rollback()
	var created int64
	err = tx.QueryRowContext(ctx, `SELECT seq, data, created_at FROM snapshots WHERE session_id = ? ORDER BY seq DESC LIMIT 1`,
		sessionID).Scan(&snap.Seq, &snap.Data, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Snapshot{}, false, nil
	}
	if err != nil {
		return Snapshot{}, false, s.dbErr(what, err)
	}
	// Events are never removed but by Delete, which removes the snapshots
	// too: a snapshot ahead of the log is a damaged database, and a state
	// the engine must not resume from.
	if snap.Seq > last {
		return Snapshot{}, false, fmt.Errorf("%s: the snapshot is of seq %d, the session ends at seq %d", what, snap.Seq, last)
	}
	if snap.Data == nil {
		snap.Data = []byte{}
	}
	snap.Created = fromNanos(created)
	return snap, true, nil
}
