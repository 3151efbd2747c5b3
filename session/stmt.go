package session

import (
	"context"
	"database/sql"
	"errors"
)

// The statements of Append's path (and of Acquire's), prepared once on the
// writer connection: SQLite spends longer parsing them than running them.
const (
	qSelectLease = `SELECT host, pid, token, acquired_at, heartbeat_at FROM leases WHERE session_id = ?`
	qSelectHead  = `SELECT title, project_root, agent, created_at, updated_at, last_seq, events FROM sessions WHERE id = ?`
	qUpdateHead  = `UPDATE sessions SET title = ?, project_root = ?, agent = ?, updated_at = ?, last_seq = ?, events = ? WHERE id = ?`
	qInsertHead  = `INSERT INTO sessions (id, title, project_root, agent, parent_id, fork_seq, created_at, updated_at, last_seq, events)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qInsertEvent = `INSERT INTO events (session_id, seq, type, time, data, audit_mac) VALUES (?, ?, ?, ?, ?, ?)`
	qHeartbeat   = `UPDATE leases SET heartbeat_at = ? WHERE session_id = ? AND token = ?`
)

var preparedQueries = []string{qSelectLease, qSelectHead, qUpdateHead, qInsertHead, qInsertEvent, qHeartbeat}

// prepareStatements prepares preparedQueries on the writer.
func (s *SQLite) prepareStatements(ctx context.Context) error {
	s.stmts = make(map[string]*sql.Stmt, len(preparedQueries))
	for _, q := range preparedQueries {
		st, err := s.w.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		s.stmts[q] = st
	}
	return nil
}

// closeStmts closes what prepare prepared.
func (s *SQLite) closeStmts() error {
	var errs []error
	for _, st := range s.stmts {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

// txStmt is the prepared statement q bound to tx. The writer has one
// connection, so q is already prepared on the transaction's connection.
func (s *SQLite) txStmt(ctx context.Context, tx *sql.Tx, q string) *sql.Stmt {
	return tx.StmtContext(ctx, s.stmts[q])
}
