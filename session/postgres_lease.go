package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgHolder is a lease row as a writer reads it, locked.
type pgHolder struct {
	holder
	token int64
	live  bool // not expired, by the reader's clock
}

// qReadLease reads a session's lease ($1) and whether it is live by the
// clock of $2 (nowArg). Writers add FOR SHARE, which locks the row until
// their transaction ends: an Acquire that would take it over (an UPDATE of
// the row) waits for the writer to commit, and a writer that comes after
// it reads the new holder, so that nothing is written on the strength of a
// lease that was taken over meanwhile. Writers of one session share the
// lock; Delete takes it FOR UPDATE. Locks are always taken lease first,
// session second, so that no two transactions wait on each other.
var qReadLease = `SELECT host, pid, token, acquired_at, expires_at >= ` + nowSQL(2) + `
	FROM leases WHERE session_id = $1`

// scanHolder reads the row of qReadLease; ok is false when there is none.
func scanHolder(row pgx.Row) (h pgHolder, ok bool, err error) {
	err = row.Scan(&h.host, &h.pid, &h.token, &h.acquired, &h.live)
	if errors.Is(err, pgx.ErrNoRows) {
		return h, false, nil
	}
	return h, err == nil, err
}

// checkHolder decides whether this Store may write to a session whose
// lease row is h (ok: there is one), read and locked in the writing
// transaction. A Store that holds a lease of the session needs the row to
// still carry its fencing token; any other Store, that no other live
// process holds the session.
func (s *Postgres) checkHolder(sessionID string, h pgHolder, ok bool) error {
	s.mu.Lock()
	mine := s.leases[sessionID]
	s.mu.Unlock()
	if mine != nil {
		if !ok || h.token != mine.token {
			return &fencedError{id: sessionID, token: mine.token, h: h, taken: ok}
		}
		return nil
	}
	if ok && h.live && !s.self(h.host, h.pid) {
		return &inUseError{id: sessionID, h: h.holder}
	}
	return nil
}

// holds reports whether this Store holds the lease of token.
func (s *Postgres) holds(sessionID string, token int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.leases[sessionID]
	return l != nil && l.token == token
}

// fencedError is ErrInUse for a Store whose own lease was lost: it expired
// and another took it over (and may have released it since).
type fencedError struct {
	id    string
	token int64
	h     pgHolder
	taken bool // the row is another lease's; false: there is none
}

func (e *fencedError) Error() string {
	msg := fmt.Sprintf("session %s: this store's lease (fencing token %d) expired and was taken over", e.id, e.token)
	if e.taken {
		msg += fmt.Sprintf(" by pid %d on host %s at %s", e.h.pid, e.h.host, fromNanos(e.h.acquired).Local().Format(time.RFC3339))
	}
	return msg + "; nothing is written through it: release it and acquire the session again"
}

func (e *fencedError) Unwrap() error { return ErrInUse }

// Acquire takes the session's lease for this process (see Store): the
// lease row is created, or taken over when it expired, in one statement;
// the fencing token comes from the lease_tokens sequence.
func (s *Postgres) Acquire(ctx context.Context, sessionID string) (Lease, error) {
	if sessionID == "" {
		return nil, errors.New("acquire: no session id")
	}
	what := fmt.Sprintf("session %s: acquire", sessionID)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, s.dbErr(what, err)
	}
	defer rollback(tx)
	// ON CONFLICT … DO UPDATE locks the existing row even when its WHERE
	// keeps it (a live lease), so the holder read next is the one that
	// refused this Acquire.
	var token int64
	err = tx.QueryRow(ctx, `INSERT INTO leases AS l (session_id, host, pid, token, acquired_at, heartbeat_at, expires_at)
		SELECT $1, $2, $3, nextval('lease_tokens'), now.t, now.t, now.t + $4
		FROM (SELECT `+nowSQL(5)+` AS t) AS now
		ON CONFLICT (session_id) DO UPDATE SET host = excluded.host, pid = excluded.pid, token = excluded.token,
			acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at
		WHERE l.expires_at < excluded.acquired_at
		RETURNING token`, sessionID, s.host, s.pid, s.ttl.Nanoseconds(), s.nowArg()).Scan(&token)
	if errors.Is(err, pgx.ErrNoRows) {
		h, ok, err := scanHolder(tx.QueryRow(ctx, qReadLease, sessionID, s.nowArg()))
		if err != nil || !ok {
			// The row was locked by the statement above: it cannot have
			// gone.
			return nil, s.dbErr(what, fmt.Errorf("lease row of a live holder not found: %v", err))
		}
		return nil, &inUseError{id: sessionID, h: h.holder, self: s.self(h.host, h.pid)}
	}
	if err != nil {
		return nil, s.dbErr(what, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, s.commitErr(what, err)
	}
	l := &pgLease{s: s, id: sessionID, token: token}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_, _ = s.pool.Exec(context.Background(), `DELETE FROM leases WHERE session_id = $1 AND token = $2`, sessionID, token)
		return nil, fmt.Errorf("%s: the store is closed", what)
	}
	// Replaces a lease of this Store that was taken over: its Release
	// leaves this one alone.
	s.leases[sessionID] = l
	s.mu.Unlock()
	var hb context.Context
	hb, l.stop = context.WithCancel(context.Background())
	l.done = make(chan struct{})
	go l.heartbeat(hb)
	return l, nil
}

// pgLease is a lease this Store holds, or held until it was taken over.
type pgLease struct {
	s     *Postgres
	id    string
	token int64
	stop  context.CancelFunc
	done  chan struct{} // closed when the heartbeat goroutine returns

	once sync.Once
	err  error
}

// heartbeat pushes the lease's expiry back every TTL/3 until stopped, or
// until it finds that the row no longer has its token.
func (l *pgLease) heartbeat(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(l.s.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		tag, err := l.s.pool.Exec(ctx, `UPDATE leases SET heartbeat_at = now.t, expires_at = now.t + $3
			FROM (SELECT `+nowSQL(4)+` AS t) AS now WHERE session_id = $1 AND token = $2`,
			l.id, l.token, l.s.ttl.Nanoseconds(), l.s.nowArg())
		if err != nil {
			continue // the server is away or we are stopping: try again at the next tick
		}
		if tag.RowsAffected() == 0 {
			return // taken over: nothing left to refresh
		}
	}
}

// Release stops the heartbeat and deletes the lease row if it still has
// this lease's token. It is idempotent.
func (l *pgLease) Release() error {
	l.once.Do(func() {
		l.stop()
		<-l.done
		if _, err := l.s.pool.Exec(context.Background(), `DELETE FROM leases WHERE session_id = $1 AND token = $2`,
			l.id, l.token); err != nil {
			l.err = l.s.dbErr(fmt.Sprintf("session %s: release lease", l.id), err)
		}
		l.s.mu.Lock()
		if l.s.leases[l.id] == l {
			delete(l.s.leases, l.id)
		}
		l.s.mu.Unlock()
	})
	return l.err
}
