package session

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"
)

// A lease row names the process that may append to a session: its host and
// pid, a token unique to the Acquire, and a heartbeat the holder refreshes
// every TTL/3. A holder is live unless its heartbeat is older than the TTL or
// it ran on this host under a pid that no longer exists. Hosts compare their
// clocks through heartbeats, so the TTL must exceed their skew.

// holder is a lease row.
type holder struct {
	host      string
	pid       int
	token     string
	acquired  int64
	heartbeat int64
}

// holderOf reads the lease of a session; ok is false when there is none.
func (s *SQLite) holderOf(ctx context.Context, tx *sql.Tx, sessionID string) (h holder, ok bool, err error) {
	err = s.txStmt(ctx, tx, qSelectLease).QueryRowContext(ctx, sessionID).
		Scan(&h.host, &h.pid, &h.token, &h.acquired, &h.heartbeat)
	if errors.Is(err, sql.ErrNoRows) {
		return h, false, nil
	}
	return h, err == nil, err
}

// live reports whether the holder may still be running.
func (s *SQLite) live(h holder) bool {
	if s.now().Sub(fromNanos(h.heartbeat)) > s.ttl {
		return false
	}
	if h.host == s.host && h.pid != s.pid && !processAlive(h.pid) {
		return false
	}
	return true
}

// self reports whether the holder is this process.
func (s *SQLite) self(h holder) bool { return h.host == s.host && h.pid == s.pid }

// checkLease refuses to write to a session that another live process holds.
func (s *SQLite) checkLease(ctx context.Context, tx *sql.Tx, sessionID string) error {
	h, ok, err := s.holderOf(ctx, tx, sessionID)
	if err != nil {
		return s.dbErr(fmt.Sprintf("session %s: read lease", sessionID), err)
	}
	if ok && !s.self(h) && s.live(h) {
		return &inUseError{id: sessionID, h: h}
	}
	return nil
}

// inUseError is ErrInUse with the holder.
type inUseError struct {
	id   string
	h    holder
	self bool
}

func (e *inUseError) Error() string {
	who := "another process"
	if e.self {
		who = "this process"
	}
	return fmt.Sprintf("session %s is in use by %s (pid %d on host %s since %s)",
		e.id, who, e.h.pid, e.h.host, fromNanos(e.h.acquired).Local().Format(time.RFC3339))
}

func (e *inUseError) Unwrap() error { return ErrInUse }

// HeldByThisProcess reports whether err is Acquire's refusal because this
// process already holds the session's lease (through this Store or
// another): a caller that only needs the process to hold it may go on.
func HeldByThisProcess(err error) bool {
	var iu *inUseError
	return errors.As(err, &iu) && iu.self
}

// Acquire takes the session's lease for this process.
func (s *SQLite) Acquire(ctx context.Context, sessionID string) (Lease, error) {
	if sessionID == "" {
		return nil, errors.New("acquire: no session id")
	}
	var tok [16]byte
	_, _ = rand.Read(tok[:]) // never fails (crypto/rand)
	l := &sqliteLease{s: s, id: sessionID, token: hex.EncodeToString(tok[:])}
	what := fmt.Sprintf("session %s: acquire", sessionID)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, s.dbErr(what, err)
	}
	defer tx.Rollback()
	h, ok, err := s.holderOf(ctx, tx, sessionID)
	if err != nil {
		return nil, s.dbErr(what, err)
	}
	if ok && s.live(h) {
		return nil, &inUseError{id: sessionID, h: h, self: s.self(h)}
	}
	now := nanos(s.now())
	if _, err := tx.ExecContext(ctx, `INSERT INTO leases (session_id, host, pid, token, acquired_at, heartbeat_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_id) DO UPDATE SET host = excluded.host, pid = excluded.pid, token = excluded.token,
			acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at`,
		sessionID, s.host, s.pid, l.token, now, now); err != nil {
		return nil, s.dbErr(what, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, s.dbErr(what, err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = l.drop()
		return nil, fmt.Errorf("%s: the store is closed", what)
	}
	s.leases[l] = struct{}{}
	s.mu.Unlock()
	var hb context.Context
	hb, l.stop = context.WithCancel(context.Background())
	l.done = make(chan struct{})
	go l.heartbeat(hb)
	return l, nil
}

// sqliteLease is a lease this process holds.
type sqliteLease struct {
	s     *SQLite
	id    string
	token string
	stop  context.CancelFunc
	done  chan struct{} // closed when the heartbeat goroutine returns

	once sync.Once
	err  error
}

// heartbeat refreshes the lease every TTL/3 until stopped, or until it finds
// that another process took the lease over.
func (l *sqliteLease) heartbeat(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(l.s.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		res, err := l.s.stmts[qHeartbeat].ExecContext(ctx, nanos(l.s.now()), l.id, l.token)
		if err != nil {
			continue // busy or stopping: try again at the next tick
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return // taken over: nothing left to refresh
		}
	}
}

// Release stops the heartbeat and deletes the lease, unless another process
// has taken it over since. It is idempotent.
func (l *sqliteLease) Release() error {
	l.once.Do(func() {
		l.stop()
		<-l.done
		l.err = l.drop()
		l.s.mu.Lock()
		delete(l.s.leases, l)
		l.s.mu.Unlock()
	})
	return l.err
}

// drop deletes the lease row if it is still this lease's.
func (l *sqliteLease) drop() error {
	if _, err := l.s.w.ExecContext(context.Background(), `DELETE FROM leases WHERE session_id = ? AND token = ?`,
		l.id, l.token); err != nil {
		return l.s.dbErr(fmt.Sprintf("session %s: release lease", l.id), err)
	}
	return nil
}
