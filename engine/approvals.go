package engine

import (
	"context"
	"sync"
	"time"
)

// approvalPoll is how often a waiting request looks for an answer given
// by another process (through the store); an answer given through this
// Engine's Respond wakes it at once.
const approvalPoll = 100 * time.Millisecond

// request is a permission request as it waits for an answer.
type request struct {
	id, session, callID, tool, summary, risk string
	number                                   uint64
	sandboxed                                bool
}

// approvalBackend keeps the requests and their answers: in memory, or in
// the store, where another process can answer them. Every method is safe
// for concurrent use; of the answers and withdrawals of one request,
// exactly one takes effect.
type approvalBackend interface {
	// open records a pending request.
	open(ctx context.Context, r request) error
	// answer answers a pending request: ErrUnknownPermission (wrapped)
	// when it is unknown, already answered or withdrawn.
	answer(ctx context.Context, id string, r Reply) error
	// answered returns the answer given, if any.
	answered(ctx context.Context, id string) (Reply, bool, error)
	// withdraw ends a pending request unanswered (by: timeout, cancelled,
	// interrupted). When an answer came first it returns that answer.
	withdraw(ctx context.Context, id, by string) (Reply, bool, error)
	// shared reports whether another process may answer (waits poll).
	shared() bool
}

// endedNotifier is an approval backend that tells when a request ends in
// another process: ended's channel is closed then (nil: it cannot tell).
type endedNotifier interface {
	ended(id string) (ch <-chan struct{}, stop func())
}

// approvals is where the Engine's permission requests wait for their
// answers. wake signals a waiting turn of this Engine at once when
// Respond answered it.
type approvals struct {
	backend approvalBackend
	mu      sync.Mutex
	wake    map[string]chan struct{}
}

func newApprovals(store Store) approvals {
	var b approvalBackend = newMemApprovals()
	if sb, ok := storeApprovalsOf(store); ok {
		b = sb
	}
	return approvals{backend: b, wake: map[string]chan struct{}{}}
}

// open records r as pending, ready to be woken.
func (a *approvals) open(ctx context.Context, r request) error {
	a.mu.Lock()
	a.wake[r.id] = make(chan struct{}, 1)
	a.mu.Unlock()
	if err := a.backend.open(ctx, r); err != nil {
		a.forget(r.id)
		return err
	}
	return nil
}

// respond answers id and wakes its waiter when it is this Engine's.
func (a *approvals) respond(ctx context.Context, id string, r Reply) error {
	if err := a.backend.answer(ctx, id, r); err != nil {
		return err
	}
	a.mu.Lock()
	ch := a.wake[id]
	a.mu.Unlock()
	if ch != nil {
		select {
		case ch <- struct{}{}:
		default: // already signalled
		}
	}
	return nil
}

// wait returns the answer to id, or ends the request unanswered when the
// timeout or ctx comes first (by says which; an answer that raced them is
// still honoured).
func (a *approvals) wait(ctx context.Context, id string, timeout time.Duration) (Reply, string) {
	defer a.forget(id)
	a.mu.Lock()
	wake := a.wake[id]
	a.mu.Unlock()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var poll <-chan time.Time
	if a.backend.shared() {
		t := time.NewTicker(approvalPoll)
		defer t.Stop()
		poll = t.C
	}
	// An answer given in another process wakes the wait at once when the
	// store tells (endedNotifier); the poll remains for what it misses.
	var ended <-chan struct{}
	if n, ok := a.backend.(endedNotifier); ok {
		var stop func()
		ended, stop = n.ended(id)
		defer stop()
	}
	by := ""
wait:
	for {
		select {
		case <-wake:
		case <-ended:
			ended = nil // closed: once is enough
		case <-poll:
		case <-timer.C:
			by = "timeout"
			break wait
		case <-ctx.Done():
			by = "cancelled"
			break wait
		}
		if _, ok, err := a.backend.answered(context.WithoutCancel(ctx), id); err == nil && ok {
			break wait
		}
	}
	// Ending the request takes the answer when one came first, whatever
	// woke the wait.
	r, ok, err := a.backend.withdraw(context.WithoutCancel(ctx), id, orDefault(by, "answered"))
	if err == nil && ok {
		return r, "user"
	}
	return Reply{}, orDefault(by, "cancelled")
}

// withdraw ends a request that no turn waits for any more.
func (a *approvals) withdraw(id, by string) {
	_, _, _ = a.backend.withdraw(context.Background(), id, by)
}

func (a *approvals) forget(id string) {
	a.mu.Lock()
	delete(a.wake, id)
	a.mu.Unlock()
}
