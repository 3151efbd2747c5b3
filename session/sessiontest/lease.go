package sessiontest

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/session"
)

// acquire takes a lease, failing the test on an error; it is released when
// the test ends.
func acquire(t *testing.T, s session.Store, id string) session.Lease {
	t.Helper()
	l, err := s.Acquire(context.Background(), id)
	must(t, err, "acquire "+id)
	t.Cleanup(func() { _ = l.Release() })
	return l
}

// wantInUse fails unless err is ErrInUse naming the holder p.
func wantInUse(t *testing.T, err error, id string, p Process, what string) {
	t.Helper()
	wantIs(t, err, session.ErrInUse, what)
	re := fmt.Sprintf(`^session %s is in use by another process \(pid %d on host %s since \S+\)$`,
		regexp.QuoteMeta(id), p.PID, regexp.QuoteMeta(p.Host))
	if !regexp.MustCompile(re).MatchString(err.Error()) {
		t.Fatalf("%s: message %q does not match %s", what, err, re)
	}
}

func testLeaseExclusive(t *testing.T, h *harness) {
	ctx := context.Background()
	a, b := h.main(), h.store(liveOther())
	appendOK(t, a, notes("l", 1, 1)...)
	la := acquire(t, a, "l")
	_, err := b.Acquire(ctx, "l")
	wantInUse(t, err, "l", thisProcess(), "second acquire")
	wantInUse(t, b.Append(ctx, notes("l", 2, 2)...), "l", thisProcess(), "append by another process")
	wantInUse(t, b.Delete(ctx, "l"), "l", thisProcess(), "delete by another process")
	appendOK(t, a, notes("l", 2, 2)...)
	sameJSON(t, load(t, b, "l"), notes("l", 1, 2)) // reading needs no lease

	must(t, la.Release(), "release")
	must(t, la.Release(), "release twice")
	lb := acquire(t, b, "l")
	_, err = a.Acquire(ctx, "l")
	wantInUse(t, err, "l", liveOther(), "acquire held by the other")
	appendOK(t, b, notes("l", 3, 3)...)
	must(t, lb.Release(), "release")

	// A lease may be taken before the session exists.
	acquire(t, a, "fresh")
	wantInUse(t, b.Append(ctx, notes("fresh", 1, 1)...), "fresh", thisProcess(), "append to a new session held by another")
	appendOK(t, a, notes("fresh", 1, 1)...)
	// Leases are per session.
	acquire(t, b, "other")
}

func testLeaseSameProcess(t *testing.T, h *harness) {
	ctx := context.Background()
	a, again := h.main(), h.main()
	l := acquire(t, a, "s")
	_, err := a.Acquire(ctx, "s")
	wantIs(t, err, session.ErrInUse, "acquire twice in one Store")
	_, err = again.Acquire(ctx, "s")
	wantIs(t, err, session.ErrInUse, "acquire in a second Store of the process")
	appendOK(t, again, notes("s", 1, 1)...) // the process holds it
	must(t, l.Release(), "release")
	acquire(t, again, "s")
}

func testLeaseDeadPID(t *testing.T, h *harness) {
	if h.opts.NoPIDCheck {
		testLeaseDeadPIDExpiry(t, h)
		return
	}
	ctx := context.Background()
	dead := thisProcess()
	dead.PID = deadPID
	d, a, b := h.store(dead), h.main(), h.store(liveOther())
	ld := acquire(t, d, "x")
	// A dead holder blocks nothing…
	appendOK(t, a, notes("x", 1, 1)...)
	// …and its lease is taken over.
	acquire(t, b, "x")
	must(t, ld.Release(), "release a lease taken over")
	_, err := a.Acquire(ctx, "x")
	wantInUse(t, err, "x", liveOther(), "acquire after a takeover")
}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func testLeaseStale(t *testing.T, h *harness) {
	ctx := context.Background()
	// A TTL of an hour: no heartbeat fires during the test, the clock alone
	// decides.
	const ttl = time.Hour
	c := &clock{t: time.Now()}
	remote := remoteProcess()
	remote.Now, remote.LeaseTTL = c.Now, ttl
	self := thisProcess()
	self.Now, self.LeaseTTL = c.Now, ttl
	r, a := h.store(remote), h.store(self)
	lr := acquire(t, r, "st")
	_, err := a.Acquire(ctx, "st")
	wantInUse(t, err, "st", remote, "a remote holder with a fresh heartbeat")
	c.advance(ttl - time.Minute)
	_, err = a.Acquire(ctx, "st")
	wantInUse(t, err, "st", remote, "a remote holder within the TTL")
	c.advance(2 * time.Minute)
	acquire(t, a, "st")
	// The former holder's Release leaves the new lease alone.
	must(t, lr.Release(), "release a lease taken over")
	third := remoteProcess()
	third.Host, third.Now, third.LeaseTTL = "third.invalid", c.Now, ttl
	_, err = h.store(third).Acquire(ctx, "st")
	wantInUse(t, err, "st", self, "acquire after the former holder released")
}

func testLeaseHeartbeat(t *testing.T, h *harness) {
	ctx := context.Background()
	// Heartbeats every 400ms; the lease goes stale only if none lands for
	// 1.2s, which leaves a loaded machine some slack.
	const ttl = 1200 * time.Millisecond
	remote := remoteProcess()
	remote.LeaseTTL = ttl
	self := thisProcess()
	self.LeaseTTL = ttl
	r, a := h.store(remote), h.store(self)
	lr := acquire(t, r, "hb")
	time.Sleep(5 * ttl / 2) // the heartbeat keeps the lease fresh
	_, err := a.Acquire(ctx, "hb")
	wantInUse(t, err, "hb", remote, "a lease kept alive by its heartbeat")
	must(t, lr.Release(), "release")
	acquire(t, a, "hb")
}

func testLeaseClose(t *testing.T, h *harness) {
	a, b := h.main(), h.store(liveOther())
	acquire(t, a, "c")
	must(t, a.Close(), "close")
	must(t, a.Close(), "close twice")
	acquire(t, b, "c")
}
