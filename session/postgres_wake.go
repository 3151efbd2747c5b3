package session

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// The end of a permission request (an answer, a withdrawal) and each
// append of events are notified by PostgreSQL at their commit, on the
// schema's approval and events channels: a turn waiting on one replica
// learns of an answer given on another at once, and a follower of a
// session running on another replica of its new events, instead of at
// their next look in the store. Notifications are not stored: whoever
// waits still looks in the store now and then (the engine polls), which
// catches what was notified while this Store was not listening.

// approvalChannel is the notification channel of the schema's request
// ends; the payload is the request's id.
func (s *Postgres) approvalChannel() string { return "moteur_approval:" + s.schema }

// eventsChannel is the notification channel of the schema's appends; the
// payload is the session's id.
func (s *Postgres) eventsChannel() string { return "moteur_events:" + s.schema }

// notifyWaiters are the waiters of one channel of one Store, by payload,
// and the connection that listens for them, opened on the first wait and
// closed by Close. A wait is woken once: the waiter asks again for the
// next.
type notifyWaiters struct {
	mu        sync.Mutex
	waiters   map[string]map[*waiter]struct{} // by key: request or session id
	listening bool
	cancel    context.CancelFunc
}

// ApprovalEnded returns a channel closed when the permission request id
// ends, in any process, and a func that stops the wait (call it when done).
// ok is false when this Store cannot listen (the connection failed): the
// caller then only looks in the store. A request that ended before the
// call may not close the channel: look in the store once after calling.
func (s *Postgres) ApprovalEnded(id string) (ended <-chan struct{}, stop func(), ok bool) {
	return s.ends.wait(s, s.approvalChannel(), id, nil)
}

// SessionAppended returns a channel closed when events of session id past
// seen() are appended, in any process, and a func that stops the wait.
// seen is called from another goroutine, at each append notified: it
// tells the last seq the caller has, so that appends it already knows of
// (its own process's, delivered live) do not wake it. ok is false when
// this Store cannot listen: the caller then only looks in the store. An
// append committed before the call may not close the channel: read the
// store once after calling.
func (s *Postgres) SessionAppended(id string, seen func() uint64) (appended <-chan struct{}, stop func(), ok bool) {
	return s.appends.wait(s, s.eventsChannel(), id, seen)
}

// waiter is one wait: ch is closed when a notification of its key comes
// with a seq past seen() (nil seen: any notification).
type waiter struct {
	ch   chan struct{}
	seen func() uint64
}

// wait registers a waiter of id on channel, listening first if need be.
func (e *notifyWaiters) wait(s *Postgres, channel, id string, seen func() uint64) (<-chan struct{}, func(), bool) {
	if !e.listen(s, channel) {
		return nil, func() {}, false
	}
	w := &waiter{ch: make(chan struct{}), seen: seen}
	e.mu.Lock()
	if e.waiters[id] == nil {
		e.waiters[id] = map[*waiter]struct{}{}
	}
	e.waiters[id][w] = struct{}{}
	e.mu.Unlock()
	return w.ch, func() {
		e.mu.Lock()
		if _, waiting := e.waiters[id][w]; waiting {
			delete(e.waiters[id], w)
			if len(e.waiters[id]) == 0 {
				delete(e.waiters, id)
			}
		}
		e.mu.Unlock()
	}, true
}

// listen starts listening on the first call, and reports whether it does.
func (e *notifyWaiters) listen(s *Postgres, channel string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.listening {
		return true
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return false
	}
	ctx, cancel := context.WithCancel(context.Background())
	start, cancelStart := context.WithTimeout(ctx, 10*time.Second)
	defer cancelStart()
	conn, err := s.listenOn(start, channel)
	if err != nil {
		cancel()
		return false
	}
	e.waiters, e.listening, e.cancel = map[string]map[*waiter]struct{}{}, true, cancel
	go e.relay(ctx, s, channel, conn)
	return true
}

// relay wakes the waiters of each notified id until ctx ends, listening
// again after a lost connection.
func (e *notifyWaiters) relay(ctx context.Context, s *Postgres, channel string, conn *pgx.Conn) {
	for {
		_ = s.relayNotifications(ctx, conn, e.wake)
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

// wake closes the channels waiting for the payload's key, "ID" or "ID
// SEQ": those without seen, and those whose seen() is before SEQ.
func (e *notifyWaiters) wake(payload string) {
	id, seqText, _ := strings.Cut(payload, " ")
	seq, _ := strconv.ParseUint(seqText, 10, 64)
	e.mu.Lock()
	defer e.mu.Unlock()
	for w := range e.waiters[id] {
		if w.seen == nil || seq == 0 || w.seen() < seq {
			close(w.ch)
			delete(e.waiters[id], w)
		}
	}
	if len(e.waiters[id]) == 0 {
		delete(e.waiters, id)
	}
}

// stop ends the listening, if it started.
func (e *notifyWaiters) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cancel != nil {
		e.cancel()
	}
}
