package sessiontest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/session"
)

// testLeaseFencing: a lease stolen after expiry, with the old holder
// trying to append: refused, and nothing stored. With Options.Fencing the
// old holder stays refused once the new one released the lease, and when
// the new holder is a Store of its own process, which only a fencing token
// tells from it.
func testLeaseFencing(t *testing.T, h *harness) {
	ctx := context.Background()
	// A TTL of an hour: no heartbeat fires during the test, the clock
	// alone expires the lease, as when the holder stalls (a long pause, a
	// network partition) and comes back.
	const ttl = time.Hour
	c := &clock{t: base}
	old := remoteProcess()
	old.Now, old.LeaseTTL = c.Now, ttl
	thief := Process{Host: "thief.invalid", PID: 4343, Now: c.Now, LeaseTTL: ttl}
	o, n := h.store(old), h.store(thief)
	lo := acquire(t, o, "f")
	appendOK(t, o, notes("f", 1, 1)...)
	c.advance(ttl + time.Minute)
	ln := acquire(t, n, "f")
	err := o.Append(ctx, notes("f", 2, 2)...)
	wantIs(t, err, session.ErrInUse, "append through a lease taken over")
	if !strings.Contains(err.Error(), thief.Host) {
		t.Fatalf("append through a lease taken over: %q does not name the new holder %s", err, thief.Host)
	}
	sameJSON(t, load(t, n, "f"), notes("f", 1, 1))
	appendOK(t, n, notes("f", 2, 2)...) // seq 2 was left free for the new holder

	if !h.opts.Fencing {
		return
	}
	must(t, ln.Release(), "release by the new holder")
	wantIs(t, o.Append(ctx, notes("f", 3, 3)...), session.ErrInUse, "append through a lease taken over, then released")
	wantIs(t, o.Delete(ctx, "f"), session.ErrInUse, "delete through a lease taken over, then released")
	sameJSON(t, load(t, n, "f"), notes("f", 1, 2))
	// Released and acquired again, the old holder writes again.
	must(t, lo.Release(), "release the lost lease")
	acquire(t, o, "f")
	appendOK(t, o, notes("f", 3, 3)...)

	// Both Stores of one process: host and pid do not tell them apart.
	self := clocked(c)
	a, b := h.store(self), h.store(self)
	acquire(t, a, "g")
	appendOK(t, a, notes("g", 1, 1)...)
	c.advance(ttl + time.Minute)
	acquire(t, b, "g")
	wantIs(t, a.Append(ctx, notes("g", 2, 2)...), session.ErrInUse, "append through a lease its own process took over")
	sameJSON(t, load(t, b, "g"), notes("g", 1, 1))
	appendOK(t, b, notes("g", 2, 2)...)
	// A fork into the session id is a write too.
	acquire(t, a, "h")
	c.advance(ttl + time.Minute)
	acquire(t, b, "h")
	_, err = a.Fork(ctx, "g", 1, "h")
	wantIs(t, err, session.ErrInUse, "fork into a session whose lease its own process took over")
	_, err = b.Fork(ctx, "g", 1, "h")
	must(t, err, "fork by the new holder")
}

// testLeaseDeadPIDExpiry is testLeaseDeadPID for a back end that checks no
// pid: a holder whose pid is dead keeps its lease until it expires, then
// it is taken over.
func testLeaseDeadPIDExpiry(t *testing.T, h *harness) {
	ctx := context.Background()
	const ttl = time.Hour
	c := &clock{t: base}
	dead := thisProcess()
	dead.PID, dead.Now, dead.LeaseTTL = deadPID, c.Now, ttl
	other := liveOther()
	other.Now, other.LeaseTTL = c.Now, ttl
	d, a, b := h.store(dead), h.store(clocked(c)), h.store(other)
	ld := acquire(t, d, "x")
	// Within its TTL the dead pid holds the session…
	wantInUse(t, a.Append(ctx, notes("x", 1, 1)...), "x", dead, "append while a dead pid's lease is fresh")
	_, err := b.Acquire(ctx, "x")
	wantInUse(t, err, "x", dead, "acquire while a dead pid's lease is fresh")
	// …and once it expired, it blocks nothing and is taken over.
	c.advance(ttl + time.Minute)
	appendOK(t, a, notes("x", 1, 1)...)
	acquire(t, b, "x")
	must(t, ld.Release(), "release a lease taken over")
	_, err = a.Acquire(ctx, "x")
	wantInUse(t, err, "x", other, "acquire after a takeover")
}
