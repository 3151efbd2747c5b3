package session

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
)

// Permission requests on PostgreSQL (see approval.go): each one ends in a
// transaction that holds its row FOR UPDATE, so that of racing answers and
// withdrawals, from any replicas, the first ends it and the others then
// read it ended.

// OpenApproval stores a pending permission request of this process's turn
// (see Store).
func (s *Postgres) OpenApproval(ctx context.Context, a Approval) error {
	what := fmt.Sprintf("open permission request %s", a.ID)
	switch {
	case a.SessionID == "":
		return fmt.Errorf("%s: no session id", what)
	case a.Number > math.MaxInt64:
		return fmt.Errorf("%s: number %d is out of range", what, a.Number)
	case a.ID != approvalID(a.SessionID, a.Number):
		// The id names the session (see SQLite.OpenApproval).
		return fmt.Errorf("%s: the id of request %d of session %s is %q", what, a.Number, a.SessionID, approvalID(a.SessionID, a.Number))
	}
	// One statement: the session's row is what the foreign key checks, and
	// the primary key refuses a second request of that id.
	tag, err := s.pool.Exec(ctx, `INSERT INTO approvals
		(id, session_id, number, call_id, tool, summary, risk, sandboxed, requested_at, host, pid, state)
		SELECT $1, id, $3, $4, $5, $6, $7, $8, `+nowSQL(9)+`, $10, $11, 'pending' FROM sessions WHERE id = $2`,
		a.ID, a.SessionID, int64(a.Number), a.CallID, a.Tool, a.Summary, a.Risk, a.Sandboxed, s.nowArg(), s.host, s.pid)
	switch {
	case pgCode(err) == pgUniqueViolation:
		return &approvalError{msg: fmt.Sprintf("permission request %s already exists", a.ID), err: ErrExists}
	case pgCode(err) == pgForeignKeyViolation:
		return fmt.Errorf("%s: session %s: %w", what, a.SessionID, ErrNotFound) // deleted meanwhile
	case err != nil:
		return s.dbErr(what, err)
	case tag.RowsAffected() == 0:
		return fmt.Errorf("%s: session %s: %w", what, a.SessionID, ErrNotFound)
	}
	return nil
}

// pgForeignKeyViolation is the SQLSTATE of a row whose parent is gone.
const pgForeignKeyViolation = "23503"

// AnswerApproval ends a pending request with the user's answer (see Store
// and SQLite.AnswerApproval).
func (s *Postgres) AnswerApproval(ctx context.Context, id string, ans Answer, by string) (Approval, error) {
	if by == "" {
		by = "user"
	}
	return s.endApproval(ctx, "answer permission request "+id, id, func(a Approval) (Approval, bool, error) {
		if a.State != ApprovalPending || !a.Live {
			return a, false, notPending(a)
		}
		a.State, a.Answer, a.By = ApprovalAnswered, ans, by
		return a, true, nil
	})
}

// WithdrawApproval ends a pending request without an answer (see Store).
func (s *Postgres) WithdrawApproval(ctx context.Context, id, by string) (Approval, error) {
	what := "withdraw permission request " + id
	if by == "" {
		return Approval{}, fmt.Errorf("%s: no reason given", what)
	}
	return s.endApproval(ctx, what, id, func(a Approval) (Approval, bool, error) {
		if a.State != ApprovalPending {
			return a, false, nil
		}
		a.State, a.By = ApprovalWithdrawn, by
		return a, true, nil
	})
}

// endApproval reads a request, locked, and stores what end makes of it
// (see SQLite.endApproval).
func (s *Postgres) endApproval(ctx context.Context, what, id string, end func(Approval) (Approval, bool, error)) (Approval, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return Approval{}, s.dbErr(what, err)
	}
	defer rollback(tx)
	a, err := scanPgApproval(tx.QueryRow(ctx, `SELECT `+pgApprovalColumns+pgApprovalFrom+` WHERE a.id = $2 FOR UPDATE OF a`,
		s.nowArg(), id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Approval{}, approvalNotFound(id)
	}
	if err != nil {
		return Approval{}, s.dbErr(what, err)
	}
	a, change, err := end(a)
	if err != nil || !change {
		return a, err
	}
	var ended int64
	err = tx.QueryRow(ctx, `UPDATE approvals SET state = $1, allow = $2, remember = $3, network = $4, reason = $5,
		ended_by = $6, ended_at = `+nowSQL(7)+` WHERE id = $8 AND state = 'pending' RETURNING ended_at`,
		string(a.State), a.Answer.Allow, a.Answer.Remember, a.Answer.Network, a.Answer.Reason, a.By, s.nowArg(), id).Scan(&ended)
	if err != nil {
		// No row cannot happen under the row lock; never report an end
		// that was not stored.
		return Approval{}, s.dbErr(what, err)
	}
	// Delivered at the commit, to every process listening (ApprovalEnded).
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, s.approvalChannel(), id); err != nil {
		return Approval{}, s.dbErr(what, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return Approval{}, s.commitErr(what, err)
	}
	a.Ended = fromNanos(ended)
	return a, nil
}

// Approval returns one permission request (see Store).
func (s *Postgres) Approval(ctx context.Context, id string) (Approval, error) {
	a, err := scanPgApproval(s.pool.QueryRow(ctx, `SELECT `+pgApprovalColumns+pgApprovalFrom+` WHERE a.id = $2`, s.nowArg(), id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Approval{}, approvalNotFound(id)
	}
	if err != nil {
		return Approval{}, s.dbErr("read permission request "+id, err)
	}
	return a, nil
}

// PendingApprovals returns the pending requests of a session, or of every
// session for "", oldest first (see Store).
func (s *Postgres) PendingApprovals(ctx context.Context, sessionID string) ([]Approval, error) {
	if sessionID == "" {
		return s.queryApprovals(ctx, "pending permission requests",
			`SELECT `+pgApprovalColumns+pgApprovalFrom+` WHERE a.state = 'pending' ORDER BY a.requested_at, a.session_id, a.number`,
			s.nowArg())
	}
	what := fmt.Sprintf("session %s: pending permission requests", sessionID)
	out, err := s.queryApprovals(ctx, what,
		`SELECT `+pgApprovalColumns+pgApprovalFrom+` WHERE a.session_id = $2 AND a.state = 'pending' ORDER BY a.requested_at, a.number`,
		s.nowArg(), sessionID)
	if err != nil || len(out) > 0 {
		return out, err // a request is of a stored session (its foreign key)
	}
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1)`, sessionID).Scan(&exists); err != nil {
		return nil, s.dbErr(what, err)
	}
	if !exists {
		return nil, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	return out, nil
}

// queryApprovals reads the approvals a query of pgApprovalColumns selects.
func (s *Postgres) queryApprovals(ctx context.Context, what, query string, args ...any) ([]Approval, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, s.dbErr(what, err)
	}
	defer rows.Close()
	out := []Approval{}
	for rows.Next() {
		a, err := scanPgApproval(rows)
		if err != nil {
			return nil, s.dbErr(what, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, s.dbErr(what, err)
	}
	return out, nil
}

// pgApprovalColumns are an approval's columns and whether it is Live, as
// checkHolder judges a holder: the asker holds the session's lease, and the
// lease has not expired by the clock of $1 (nowArg).
const (
	pgApprovalColumns = `a.id, a.session_id, a.number, a.call_id, a.tool, a.summary, a.risk, a.sandboxed, a.requested_at,
		a.host, a.pid, a.state, a.allow, a.remember, a.network, a.reason, a.ended_by, a.ended_at,
		coalesce(l.host = a.host AND l.pid = a.pid AND l.expires_at >= coalesce($1::bigint, ` + serverNanos + `), false)`
	pgApprovalFrom = ` FROM approvals a LEFT JOIN leases l ON l.session_id = a.session_id`
)

// scanPgApproval reads the pgApprovalColumns of a row.
func scanPgApproval(row pgx.Row) (Approval, error) {
	var a Approval
	var state string
	var requested, ended int64
	err := row.Scan(&a.ID, &a.SessionID, &a.Number, &a.CallID, &a.Tool, &a.Summary, &a.Risk, &a.Sandboxed, &requested,
		&a.Host, &a.PID, &state, &a.Answer.Allow, &a.Answer.Remember, &a.Answer.Network, &a.Answer.Reason, &a.By, &ended, &a.Live)
	if err != nil {
		return Approval{}, err
	}
	a.State = ApprovalState(state)
	a.Requested, a.Ended = fromNanos(requested), fromNanos(ended)
	return a, nil
}
