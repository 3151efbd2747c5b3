package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"
)

// An approval row is a permission request of a running turn, kept in the
// database rather than in the memory of the process whose turn asked, so
// that any process (another replica, the CLI next to a server) can answer
// it, and so that the process that continues a killed session finds the
// requests left pending. Each row ends once: answered or withdrawn, under
// the write lock, so that of a racing answer and a timeout exactly one
// counts and both sides see which.

// ApprovalState is where a permission request stands.
type ApprovalState string

// The states of a permission request: pending until it is answered or
// withdrawn, never both, never twice.
const (
	ApprovalPending   ApprovalState = "pending"
	ApprovalAnswered  ApprovalState = "answered"
	ApprovalWithdrawn ApprovalState = "withdrawn"
)

// Answer is a user's reply to a permission request.
type Answer struct {
	Allow, Remember, Network bool
	Reason                   string
}

// Approval is a permission request of a running turn and, once it ended, how.
type Approval struct {
	ID        string // "<session id>/<number>", as PermissionRequested's id
	SessionID string
	Number    uint64

	CallID, Tool, Summary, Risk string
	Sandboxed                   bool
	Requested                   time.Time

	State  ApprovalState
	Answer Answer // when State is answered
	// By is who ended it: the answer's author ("user" by default), or why
	// it was withdrawn ("timeout", "cancelled", "interrupted").
	By    string
	Ended time.Time // when it was answered or withdrawn

	// Host and PID are those of the process whose turn asked (this
	// process, at OpenApproval).
	Host string
	PID  int
	// Live: that process is alive and still holds the session's lease
	// (see lease.go; computed when read).
	Live bool
}

// approvalError is one of the package's errors, said about a permission
// request rather than a session.
type approvalError struct {
	msg string
	err error
}

func (e *approvalError) Error() string { return e.msg }
func (e *approvalError) Unwrap() error { return e.err }

func approvalNotFound(id string) error {
	return &approvalError{msg: fmt.Sprintf("permission request %s not found", id), err: ErrNotFound}
}

// notPending says why a request cannot be answered: it ended, or the turn
// that asked is gone and nobody waits for the answer.
func notPending(a Approval) error {
	at := func(t time.Time) string { return t.Local().Format(time.RFC3339) }
	var msg string
	switch a.State {
	case ApprovalAnswered:
		verdict := "deny"
		if a.Answer.Allow {
			verdict = "allow"
		}
		msg = fmt.Sprintf("permission request %s was already answered (%s) by %s at %s", a.ID, verdict, a.By, at(a.Ended))
	case ApprovalWithdrawn:
		msg = fmt.Sprintf("permission request %s was already withdrawn (%s) at %s", a.ID, a.By, at(a.Ended))
	default:
		msg = fmt.Sprintf("permission request %s: the turn that asked is no longer running (pid %d on host %s)", a.ID, a.PID, a.Host)
	}
	return &approvalError{msg: msg, err: ErrNotPending}
}

// approvalID is the id of a session's permission request number n.
func approvalID(sessionID string, n uint64) string { return fmt.Sprintf("%s/%d", sessionID, n) }

// OpenApproval stores a pending permission request of this process's turn
// (see Store).
func (s *SQLite) OpenApproval(ctx context.Context, a Approval) error {
	what := fmt.Sprintf("open permission request %s", a.ID)
	switch {
	case a.SessionID == "":
		return fmt.Errorf("%s: no session id", what)
	case a.Number > math.MaxInt64:
		return fmt.Errorf("%s: number %d is out of range", what, a.Number)
	case a.ID != approvalID(a.SessionID, a.Number):
		// The id names the session: one that named another would let an
		// answer meant for one session reach another's turn.
		return fmt.Errorf("%s: the id of request %d of session %s is %q", what, a.Number, a.SessionID, approvalID(a.SessionID, a.Number))
	}
	tx, err := s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE
	if err != nil {
		return s.dbErr(what, err)
	}
	defer tx.Rollback()
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, a.SessionID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s: session %s: %w", what, a.SessionID, ErrNotFound)
	}
	if err != nil {
		return s.dbErr(what, err)
	}
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM approvals WHERE id = ?`, a.ID).Scan(&one)
	if err == nil {
		return &approvalError{msg: fmt.Sprintf("permission request %s already exists", a.ID), err: ErrExists}
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return s.dbErr(what, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO approvals
		(id, session_id, number, call_id, tool, summary, risk, sandboxed, requested_at, host, pid, state)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.SessionID, a.Number, a.CallID, a.Tool, a.Summary, a.Risk, a.Sandboxed, nanos(s.now()),
		s.host, s.pid, string(ApprovalPending)); err != nil {
		return s.dbErr(what, err)
	}
	if err := tx.Commit(); err != nil {
		return s.dbErr(what, err)
	}
	return nil
}

// AnswerApproval ends a pending request with the user's answer (see
// Store). It is refused while nobody waits for it: the request ended, or
// the turn that asked no longer runs.
func (s *SQLite) AnswerApproval(ctx context.Context, id string, ans Answer, by string) (Approval, error) {
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
// A request that ended already is left as it is and returned: the waiter
// honours an answer that came first.
func (s *SQLite) WithdrawApproval(ctx context.Context, id, by string) (Approval, error) {
	what := "withdraw permission request " + id
	if by == "" {
		return Approval{}, fmt.Errorf("%s: no reason given", what)
	}
	// Not checked against the lease: the process that continues a killed
	// session withdraws the requests its dead turn left pending.
	return s.endApproval(ctx, what, id, func(a Approval) (Approval, bool, error) {
		if a.State != ApprovalPending {
			return a, false, nil
		}
		a.State, a.By = ApprovalWithdrawn, by
		return a, true, nil
	})
}

// endApproval reads a request and stores what end makes of it, in one
// write transaction: BEGIN IMMEDIATE takes the write lock before the read,
// so two ends of one request, from any process, never both see it
// pending. end returns the row to store and whether to store it, or the
// row as it is and why it is left so.
func (s *SQLite) endApproval(ctx context.Context, what, id string, end func(Approval) (Approval, bool, error)) (Approval, error) {
	tx, err := s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE
	if err != nil {
		return Approval{}, s.dbErr(what, err)
	}
	defer tx.Rollback()
	a, err := s.scanApproval(tx.QueryRowContext(ctx, `SELECT `+approvalColumns+approvalFrom+` WHERE a.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Approval{}, approvalNotFound(id)
	}
	if err != nil {
		return Approval{}, s.dbErr(what, err)
	}
	a, change, err := end(a)
	if err != nil || !change {
		return a, err
	}
	a.Ended = fromNanos(nanos(s.now()))
	res, err := tx.ExecContext(ctx, `UPDATE approvals SET state = ?, allow = ?, remember = ?, network = ?, reason = ?,
		ended_by = ?, ended_at = ? WHERE id = ? AND state = ?`,
		string(a.State), a.Answer.Allow, a.Answer.Remember, a.Answer.Network, a.Answer.Reason, a.By, nanos(a.Ended),
		id, string(ApprovalPending))
	if err != nil {
		return Approval{}, s.dbErr(what, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		// Cannot happen under the write lock; never report an end that
		// was not stored.
		return Approval{}, fmt.Errorf("%s: the request changed while it was being ended (%d rows, %v)", what, n, err)
	}
	if err := tx.Commit(); err != nil {
		return Approval{}, s.dbErr(what, err)
	}
	return a, nil
}

// Approval returns one permission request (see Store).
func (s *SQLite) Approval(ctx context.Context, id string) (Approval, error) {
	a, err := s.scanApproval(s.r.QueryRowContext(ctx, `SELECT `+approvalColumns+approvalFrom+` WHERE a.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Approval{}, approvalNotFound(id)
	}
	if err != nil {
		return Approval{}, s.dbErr("read permission request "+id, err)
	}
	return a, nil
}

// PendingApprovals returns the pending requests of a session, or of every
// session for "", oldest first (see Store).
func (s *SQLite) PendingApprovals(ctx context.Context, sessionID string) ([]Approval, error) {
	if sessionID == "" {
		return s.queryApprovals(ctx, s.r, "pending permission requests",
			`SELECT `+approvalColumns+approvalFrom+` WHERE a.state = ? ORDER BY a.requested_at, a.session_id, a.number`,
			string(ApprovalPending))
	}
	// The session's existence and its requests, of one snapshot.
	what := fmt.Sprintf("session %s: pending permission requests", sessionID)
	tx, _, err := s.readLastSeq(ctx, what, sessionID)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return s.queryApprovals(ctx, tx, what,
		`SELECT `+approvalColumns+approvalFrom+` WHERE a.session_id = ? AND a.state = ? ORDER BY a.requested_at, a.number`,
		sessionID, string(ApprovalPending))
}

// queryer is what *sql.DB and *sql.Tx share.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryApprovals reads the approvals a query selects.
func (s *SQLite) queryApprovals(ctx context.Context, q queryer, what, query string, args ...any) ([]Approval, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.dbErr(what, err)
	}
	defer rows.Close()
	out := []Approval{}
	for rows.Next() {
		a, err := s.scanApproval(rows)
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

// approvalColumns are an approval's columns and its session's lease (NULL
// when there is none), so that Live is computed from the same read.
const (
	approvalColumns = `a.id, a.session_id, a.number, a.call_id, a.tool, a.summary, a.risk, a.sandboxed, a.requested_at,
		a.host, a.pid, a.state, a.allow, a.remember, a.network, a.reason, a.ended_by, a.ended_at,
		l.host, l.pid, l.heartbeat_at`
	approvalFrom = ` FROM approvals a LEFT JOIN leases l ON l.session_id = a.session_id`
)

// scanApproval reads the approvalColumns of a row and computes Live.
func (s *SQLite) scanApproval(row interface{ Scan(...any) error }) (Approval, error) {
	var a Approval
	var state string
	var requested, ended int64
	var leaseHost sql.NullString
	var leasePID, heartbeat sql.NullInt64
	err := row.Scan(&a.ID, &a.SessionID, &a.Number, &a.CallID, &a.Tool, &a.Summary, &a.Risk, &a.Sandboxed, &requested,
		&a.Host, &a.PID, &state, &a.Answer.Allow, &a.Answer.Remember, &a.Answer.Network, &a.Answer.Reason, &a.By, &ended,
		&leaseHost, &leasePID, &heartbeat)
	if err != nil {
		return Approval{}, err
	}
	a.State = ApprovalState(state)
	a.Requested, a.Ended = fromNanos(requested), fromNanos(ended)
	// Live as checkLease judges a holder: the asker must be the holder,
	// and the holder must be live.
	if leaseHost.Valid && leaseHost.String == a.Host && int(leasePID.Int64) == a.PID {
		a.Live = s.live(holder{host: a.Host, pid: a.PID, heartbeat: heartbeat.Int64})
	}
	return a, nil
}
