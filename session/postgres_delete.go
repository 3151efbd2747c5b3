package session

import (
	"context"
	"fmt"
)

// Delete removes a session, its events, snapshots and permission
// requests; its lease row too, unless a live holder or this Store has it
// (a live holder can only be this process, or Delete is refused): that
// holder's Release removes it, and until then its token fences the id.
func (s *Postgres) Delete(ctx context.Context, sessionID string) error {
	what := fmt.Sprintf("session %s: delete", sessionID)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.dbErr(what, err)
	}
	defer rollback(tx)
	// FOR UPDATE, lease first then session: appends in flight finish
	// before, new ones wait and then find no session.
	h, leased, err := scanHolder(tx.QueryRow(ctx, qReadLease+` FOR UPDATE`, sessionID, s.nowArg()))
	if err != nil {
		return s.dbErr(what, err)
	}
	tag, err := tx.Exec(ctx, `SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE`, sessionID)
	if err != nil {
		return s.dbErr(what, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	if err := s.checkHolder(sessionID, h, leased); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM approvals WHERE session_id = $1`,
		`DELETE FROM snapshots WHERE session_id = $1`,
		`DELETE FROM events WHERE session_id = $1`,
		`DELETE FROM sessions WHERE id = $1`,
	} {
		if _, err := tx.Exec(ctx, q, sessionID); err != nil {
			return s.dbErr(what, err)
		}
	}
	if leased && !h.live && !s.holds(sessionID, h.token) {
		if _, err := tx.Exec(ctx, `DELETE FROM leases WHERE session_id = $1 AND token = $2`, sessionID, h.token); err != nil {
			return s.dbErr(what, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return s.commitErr(what, err)
	}
	return nil
}
