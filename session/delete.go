package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Delete removes a session, its events, snapshots, permission requests
// and lease.
func (s *SQLite) Delete(ctx context.Context, sessionID string) error {
	what := fmt.Sprintf("session %s: delete", sessionID)
	tx, err := s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE
	if err != nil {
		return s.dbErr(what, err)
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, sessionID).Scan(&one); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
		}
		return s.dbErr(what, err)
	}
	if err := s.checkLease(ctx, tx, sessionID); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM approvals WHERE session_id = ?`,
		`DELETE FROM snapshots WHERE session_id = ?`,
		`DELETE FROM events WHERE session_id = ?`,
		`DELETE FROM sessions WHERE id = ?`,
		`DELETE FROM leases WHERE session_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, sessionID); err != nil {
			return s.dbErr(what, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.dbErr(what, err)
	}
	return nil
}
