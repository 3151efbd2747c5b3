package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Stops cross replicas through PostgreSQL's LISTEN/NOTIFY: a stop asked of
// one process reaches the process whose turn holds the session's lease,
// on whatever host it runs. A notification is not stored: a process that
// is not listening when it is sent never sees it, which is right for a
// stop (the turn it was meant for is then gone too, or will be taken over
// by a process that never started it).

// stopChannel is the notification channel of the schema's stops: schemas
// in one database do not hear each other's.
func (s *Postgres) stopChannel() string { return "moteur_stop:" + s.schema }

// NotifyStop asks the process holding a live lease of session sessionID to
// stop its turn. sent is false, with a nil error, when no process holds
// one (no turn runs anywhere): the lease is checked and the notification
// sent in one statement.
func (s *Postgres) NotifyStop(ctx context.Context, sessionID string) (sent bool, err error) {
	tag, err := s.pool.Exec(ctx, `SELECT pg_notify($1, session_id) FROM leases
		WHERE session_id = $2 AND expires_at >= `+nowSQL(3), s.stopChannel(), sessionID, s.nowArg())
	if err != nil {
		return false, s.dbErr("stop session "+sessionID, err)
	}
	return tag.RowsAffected() > 0, nil
}

// stopRetry is how long ListenStops waits before listening again after
// its connection was lost.
const stopRetry = time.Second

// ListenStops listens for the stops other processes ask of this one
// (NotifyStop) and calls stop with each session's id, on a goroutine of its
// own, until ctx ends; stop must not block. It returns once it listens, so
// that no stop sent after it returned is missed, or with the error that
// kept it from listening. A connection lost later is listened on again
// after stopRetry (stops sent meanwhile are lost).
func (s *Postgres) ListenStops(ctx context.Context, stop func(sessionID string)) error {
	conn, err := s.listenOn(ctx, s.stopChannel())
	if err != nil {
		return s.dbErr("listen for stops", err)
	}
	go s.relayForever(ctx, s.stopChannel(), conn, stop)
	return nil
}

// relayForever calls fn with the payload of each notification on channel,
// starting with conn, until ctx ends; a lost connection is listened on
// again after stopRetry (what is notified meanwhile is lost).
func (s *Postgres) relayForever(ctx context.Context, channel string, conn *pgx.Conn, fn func(string)) {
	for {
		_ = s.relayNotifications(ctx, conn, fn) // lost, or ctx ended
		for conn = nil; conn == nil; {
			t := time.NewTimer(stopRetry)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			conn, _ = s.listenOn(ctx, channel)
		}
	}
}

// listenOn takes a connection out of the pool and listens on channel:
// returned to the pool, it would pass its LISTEN on to whoever used it
// next.
func (s *Postgres) listenOn(ctx context.Context, channel string) (*pgx.Conn, error) {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	conn := pc.Hijack()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// relayNotifications calls fn with the payload of each notification on
// conn until it fails or ctx ends, then closes it.
func (s *Postgres) relayNotifications(ctx context.Context, conn *pgx.Conn, fn func(string)) error {
	defer conn.Close(context.Background())
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil
			}
			return fmt.Errorf("listen on %s: %w", conn.Config().Database, err)
		}
		fn(n.Payload)
	}
}
