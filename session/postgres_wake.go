package session

import (
	"context"
	"sync"
	"time"
)

// The end of a permission request (an answer, a withdrawal) is notified by
// PostgreSQL at its commit, on the schema's approval channel: a turn
// waiting on one replica learns of an answer given on another at once,
// instead of at its next look in the store. Notifications are not stored:
// whoever waits still looks in the store now and then (the engine polls),
// which catches an end notified while this Store was not listening.

// approvalChannel is the notification channel of the schema's request
// ends.
func (s *Postgres) approvalChannel() string { return "moteur_approval:" + s.schema }

// approvalEnds are the waiters of one Store's ApprovalEnded and the
// connection that listens for them, opened on the first wait and closed by
// Close.
type approvalEnds struct {
	mu        sync.Mutex
	waiters   map[string]map[chan struct{}]struct{} // by request id
	listening bool
	cancel    context.CancelFunc
}

// ApprovalEnded returns a channel closed when the permission request id
// ends, in any process, and a func that stops the wait (call it when done).
// ok is false when this Store cannot listen (the connection failed): the
// caller then only looks in the store. A request that ended before the
// call may not close the channel: look in the store once after calling.
func (s *Postgres) ApprovalEnded(id string) (ended <-chan struct{}, stop func(), ok bool) {
	if !s.ends.listen(s) {
		return nil, func() {}, false
	}
	ch := make(chan struct{})
	e := &s.ends
	e.mu.Lock()
	if e.waiters[id] == nil {
		e.waiters[id] = map[chan struct{}]struct{}{}
	}
	e.waiters[id][ch] = struct{}{}
	e.mu.Unlock()
	return ch, func() {
		e.mu.Lock()
		if _, waiting := e.waiters[id][ch]; waiting {
			delete(e.waiters[id], ch)
			if len(e.waiters[id]) == 0 {
				delete(e.waiters, id)
			}
		}
		e.mu.Unlock()
	}, true
}

// listen starts listening on the first call, and reports whether it does.
func (e *approvalEnds) listen(s *Postgres) bool {
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
	conn, err := s.listenOn(start, s.approvalChannel())
	if err != nil {
		cancel()
		return false
	}
	e.waiters, e.listening, e.cancel = map[string]map[chan struct{}]struct{}{}, true, cancel
	go s.relayForever(ctx, s.approvalChannel(), conn, e.wake)
	return true
}

// wake closes the channels waiting for id.
func (e *approvalEnds) wake(id string) {
	e.mu.Lock()
	for ch := range e.waiters[id] {
		close(ch)
	}
	delete(e.waiters, id)
	e.mu.Unlock()
}

// stop ends the listening, if it started.
func (e *approvalEnds) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cancel != nil {
		e.cancel()
	}
}
