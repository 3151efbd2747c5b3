package sessiontest

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/session"
)

// stateAt is a stand-in for the engine's encoding of a session's state at
// seq: bytes that are not text (NUL, invalid UTF-8, every byte value), and
// differ for every session, seq and version.
func stateAt(id string, seq uint64, version string) []byte {
	b := fmt.Appendf(nil, "%s@%d/%s\x00\xff\xfe", id, seq, version)
	for i := range 1024 {
		b = append(b, byte(i*31+int(seq)))
	}
	return b
}

// save saves a snapshot, failing the test on an error.
func save(t *testing.T, s session.Store, id string, seq uint64, data []byte) {
	t.Helper()
	must(t, s.SaveSnapshot(context.Background(), id, session.Snapshot{Seq: seq, Data: data}),
		fmt.Sprintf("save a snapshot of %s at seq %d", id, seq))
}

// latest reads the latest snapshot of a session, failing the test on an
// error.
func latest(t *testing.T, s session.Store, id string) (session.Snapshot, bool) {
	t.Helper()
	snap, ok, err := s.LatestSnapshot(context.Background(), id)
	must(t, err, "latest snapshot of "+id)
	return snap, ok
}

// wantSnapshot fails unless the latest snapshot of id is at seq with data,
// saved at created.
func wantSnapshot(t *testing.T, s session.Store, id string, seq uint64, data []byte, created time.Time, what string) {
	t.Helper()
	snap, ok := latest(t, s, id)
	switch {
	case !ok:
		t.Fatalf("%s: no snapshot, want seq %d", what, seq)
	case snap.Seq != seq:
		t.Fatalf("%s: latest snapshot at seq %d, want %d", what, snap.Seq, seq)
	case !bytes.Equal(snap.Data, data):
		t.Fatalf("%s: snapshot data %q…, want %q…", what, snap.Data[:min(len(snap.Data), 20)], data[:min(len(data), 20)])
	case !snap.Created.Equal(created):
		t.Fatalf("%s: snapshot created %v, want %v (the store's clock)", what, snap.Created, created)
	}
}

// wantNoSnapshot fails unless the session has no snapshot.
func wantNoSnapshot(t *testing.T, s session.Store, id, what string) {
	t.Helper()
	if snap, ok := latest(t, s, id); ok {
		t.Fatalf("%s: a snapshot at seq %d, want none", what, snap.Seq)
	}
}

// clocked is this process with a settable clock, and a lease TTL of an
// hour: the clock that ages the lease moves only when the test says, and
// no heartbeat fires during the test.
func clocked(c *clock) Process {
	p := thisProcess()
	p.Now, p.LeaseTTL = c.Now, time.Hour
	return p
}

// testSnapshot: the latest snapshot by seq is returned byte for byte,
// with the store's time; one at the same seq replaces it.
func testSnapshot(t *testing.T, h *harness) {
	c := &clock{t: base}
	s := h.store(clocked(c))
	appendOK(t, s, notes("s", 1, 10)...)
	wantNoSnapshot(t, s, "s", "a session never snapshot")

	mine := stateAt("s", 4, "a")
	save(t, s, "s", 4, mine)
	at4 := c.Now()
	mine[0] ^= 0xff // the store keeps its own copy
	wantSnapshot(t, s, "s", 4, stateAt("s", 4, "a"), at4, "one snapshot")

	c.advance(time.Second)
	save(t, s, "s", 8, stateAt("s", 8, "a"))
	at8 := c.Now()
	wantSnapshot(t, s, "s", 8, stateAt("s", 8, "a"), at8, "a later one")
	// The highest seq wins, not the last saved.
	c.advance(time.Second)
	save(t, s, "s", 6, stateAt("s", 6, "a"))
	wantSnapshot(t, s, "s", 8, stateAt("s", 8, "a"), at8, "an earlier seq saved last")
	// The same seq again replaces it, time included.
	c.advance(time.Second)
	save(t, s, "s", 8, stateAt("s", 8, "b"))
	wantSnapshot(t, s, "s", 8, stateAt("s", 8, "b"), c.Now(), "saved again at the same seq")
	// At the last seq, and empty data, are snapshots too.
	save(t, s, "s", 10, []byte{})
	if snap, ok := latest(t, s, "s"); !ok || snap.Seq != 10 || len(snap.Data) != 0 {
		t.Fatalf("an empty snapshot at the last seq: %+v, %v", snap, ok)
	}
	// A large one comes back whole.
	big := bytes.Repeat(stateAt("s", 10, "big"), 1024)
	save(t, s, "s", 10, big)
	wantSnapshot(t, s, "s", 10, big, c.Now(), "a snapshot of a MiB")
	// Sessions have their own.
	appendOK(t, s, notes("t", 1, 2)...)
	wantNoSnapshot(t, s, "t", "another session")
	// Snapshots survive the store.
	must(t, s.Close(), "close")
	wantSnapshot(t, h.store(clocked(c)), "s", 10, big, c.Now(), "reopened")
}

// testSnapshotRefused: a snapshot beyond the log, at seq 0, or of an
// unknown session stores nothing.
func testSnapshotRefused(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	appendOK(t, s, notes("r", 1, 5)...)
	for _, seq := range []uint64{0, 6, 1 << 40, 1 << 63} {
		err := s.SaveSnapshot(ctx, "r", session.Snapshot{Seq: seq, Data: stateAt("r", seq, "x")})
		if err == nil {
			t.Fatalf("a snapshot at seq %d of a session ending at 5 was saved", seq)
		}
		if msg := err.Error(); !strings.Contains(msg, "session r") || !strings.Contains(msg, fmt.Sprint(seq)) ||
			(seq > 0 && !strings.Contains(msg, "5")) {
			t.Errorf("seq %d: error %q should name the session, the seq and where the session ends", seq, msg)
		}
	}
	wantNoSnapshot(t, s, "r", "after refused snapshots")
	save(t, s, "r", 3, stateAt("r", 3, "ok"))
	err := s.SaveSnapshot(ctx, "r", session.Snapshot{Seq: 6, Data: stateAt("r", 6, "x")})
	if err == nil {
		t.Fatal("a snapshot beyond the log was saved")
	}
	if snap, _ := latest(t, s, "r"); snap.Seq != 3 || !bytes.Equal(snap.Data, stateAt("r", 3, "ok")) {
		t.Fatalf("a refused snapshot changed the latest: seq %d", snap.Seq)
	}
	err = s.SaveSnapshot(ctx, "ghost", session.Snapshot{Seq: 1, Data: []byte("x")})
	wantIs(t, err, session.ErrNotFound, "snapshot of an unknown session")
	_, _, err = s.LatestSnapshot(ctx, "ghost")
	wantIs(t, err, session.ErrNotFound, "latest snapshot of an unknown session")
	_, err = s.Info(ctx, "ghost")
	wantIs(t, err, session.ErrNotFound, "a snapshot created a session")
}

// testSnapshotLease: a snapshot is a cache: it is saved while another
// process holds the session's lease, and changes neither the events nor
// Info.
func testSnapshotLease(t *testing.T, h *harness) {
	s, other := h.main(), h.store(liveOther())
	ctx := context.Background()
	appendOK(t, s, notes("l", 1, 3)...)
	before := info(t, s, "l")
	acquire(t, other, "l")
	wantInUse(t, s.Append(ctx, notes("l", 4, 4)...), "l", liveOther(), "the other holds the lease")
	save(t, s, "l", 3, stateAt("l", 3, "x"))
	save(t, s, "l", 2, stateAt("l", 2, "x"))
	if snap, ok := latest(t, other, "l"); !ok || snap.Seq != 3 {
		t.Fatalf("the holder reads snapshot %+v, %v; want seq 3", snap.Seq, ok)
	}
	sameJSON(t, load(t, s, "l"), notes("l", 1, 3))
	if after := info(t, s, "l"); !reflect.DeepEqual(after, before) {
		t.Fatalf("saving snapshots changed Info:\n got %+v\nwant %+v", after, before)
	}
	appendOK(t, other, notes("l", 4, 4)...) // the log goes on from where it was
}

// testSnapshotDeleteFork: Delete removes a session's snapshots, Fork
// copies none.
func testSnapshotDeleteFork(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	appendOK(t, s, notes("d", 1, 6)...)
	save(t, s, "d", 5, stateAt("d", 5, "x"))
	_, err := s.Fork(ctx, "d", 6, "kid")
	must(t, err, "fork")
	wantNoSnapshot(t, s, "kid", "a fork")
	save(t, s, "kid", 2, stateAt("kid", 2, "x"))
	must(t, s.Delete(ctx, "d"), "delete")
	_, _, err = s.LatestSnapshot(ctx, "d")
	wantIs(t, err, session.ErrNotFound, "latest snapshot of a deleted session")
	appendOK(t, s, notes("d", 1, 6)...)
	wantNoSnapshot(t, s, "d", "a session deleted and made again")
	if snap, ok := latest(t, s, "kid"); !ok || snap.Seq != 2 || !bytes.Equal(snap.Data, stateAt("kid", 2, "x")) {
		t.Fatalf("the fork's snapshot after its source was deleted: seq %d, %v", snap.Seq, ok)
	}
}
