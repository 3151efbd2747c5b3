package sessiontest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/session"
)

// head is a stand-in for the MAC of an audit record: HeadSize bytes that
// differ for every session and seq.
func head(id string, seq uint64) []byte {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d", id, seq))
	return sum[:]
}

// headsOf are the heads of the events from..to of a session.
func headsOf(id string, from, to uint64) [][]byte {
	var out [][]byte
	for s := from; s <= to; s++ {
		out = append(out, head(id, s))
	}
	return out
}

// heads reads a session's heads, failing the test on an error.
func heads(t *testing.T, s session.Store, id string) [][]byte {
	t.Helper()
	hs, err := s.Heads(context.Background(), id)
	must(t, err, "heads "+id)
	return hs
}

// sameHeads fails unless got are want, nil where want is.
func sameHeads(t *testing.T, what string, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d heads, want %d", what, len(got), len(want))
	}
	for i := range want {
		if (got[i] == nil) != (want[i] == nil) || !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%s: head of seq %d is %x, want %x", what, i+1, got[i], want[i])
		}
	}
}

// testHeads: each event's head is stored with it, in the same
// transaction, and read back in seq order, nil where there is none.
func testHeads(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	appendOK(t, s, notes("h", 1, 2)...) // no heads: an earlier version's events
	must(t, s.AppendWithHeads(ctx, notes("h", 3, 5), headsOf("h", 3, 5)), "append with heads")
	must(t, s.AppendWithHeads(ctx, notes("h", 6, 7), [][]byte{nil, head("h", 7)}), "append with a nil head")
	must(t, s.AppendWithHeads(ctx, notes("h", 8, 8), nil), "append with no heads")
	want := append([][]byte{nil, nil}, headsOf("h", 3, 5)...)
	want = append(want, nil, head("h", 7), nil)
	sameHeads(t, "stored", heads(t, s, "h"), want)
	for seq := uint64(1); seq <= 8; seq++ {
		got, err := s.Head(ctx, "h", seq)
		must(t, err, fmt.Sprintf("head of seq %d", seq))
		sameHeads(t, fmt.Sprintf("head of seq %d", seq), [][]byte{got}, want[seq-1:seq])
	}
	for _, seq := range []uint64{0, 9} {
		if _, err := s.Head(ctx, "h", seq); err == nil || !strings.Contains(err.Error(), "session h") {
			t.Fatalf("head of seq %d, which session h does not hold: %v", seq, err)
		}
	}
	_, err := s.Head(ctx, "ghost", 1)
	wantIs(t, err, session.ErrNotFound, "head of an unknown session")
	sameJSON(t, load(t, s, "h"), notes("h", 1, 8))
	if got := info(t, s, "h"); got.LastSeq != 8 || got.Events != 8 {
		t.Fatalf("info %+v", got)
	}
	// A session with its own heads is not another's.
	must(t, s.AppendWithHeads(ctx, notes("h2", 1, 1), headsOf("h2", 1, 1)), "another session")
	sameHeads(t, "another session", heads(t, s, "h2"), headsOf("h2", 1, 1))
	_, err = s.Heads(ctx, "ghost")
	wantIs(t, err, session.ErrNotFound, "heads of an unknown session")
	// The caller's slices are not kept.
	mine := head("h", 9)
	must(t, s.AppendWithHeads(ctx, notes("h", 9, 9), [][]byte{mine}), "append")
	mine[0] ^= 0xff
	sameHeads(t, "after the caller changed its slice", heads(t, s, "h")[8:], headsOf("h", 9, 9))
	// They survive the store.
	must(t, s.Close(), "close")
	sameHeads(t, "reopened", heads(t, h.main(), "h"), append(want, head("h", 9)))
}

// testHeadsRefused: heads that do not fit the events store nothing, the
// events neither; an Append refused for its seqs stores no head.
func testHeadsRefused(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	must(t, s.AppendWithHeads(ctx, notes("r", 1, 2), headsOf("r", 1, 2)), "append")
	for _, c := range []struct {
		name   string
		events []event.Event
		heads  [][]byte
		want   string
	}{
		{"fewer heads than events", notes("r", 3, 4), headsOf("r", 3, 3), "1 audit heads for 2 events"},
		{"more heads than events", notes("r", 3, 3), headsOf("r", 3, 4), "2 audit heads for 1 events"},
		{"a short head", notes("r", 3, 3), [][]byte{head("r", 3)[:16]}, "is 16 bytes, want 32"},
		{"an empty head", notes("r", 3, 3), [][]byte{{}}, "is 0 bytes"},
		{"heads without events", nil, headsOf("r", 3, 3), "1 audit heads for no event"},
	} {
		err := s.AppendWithHeads(ctx, c.events, c.heads)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	err := s.AppendWithHeads(ctx, notes("r", 2, 3), headsOf("r", 2, 3))
	wantIs(t, err, session.ErrSeqConflict, "heads with a conflicting seq")
	sameHeads(t, "after refused appends", heads(t, s, "r"), headsOf("r", 1, 2))
	sameJSON(t, load(t, s, "r"), notes("r", 1, 2))
	err = s.AppendWithHeads(ctx, notes("new", 1, 1), [][]byte{{1}})
	if err == nil {
		t.Fatal("a bad head created a session")
	}
	_, err = s.Info(ctx, "new")
	wantIs(t, err, session.ErrNotFound, "a session whose first append was refused")
}

// testHeadsFork: a fork copies the heads of the events it copies; its own
// events have their own.
func testHeadsFork(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	appendOK(t, s, notes("src", 1, 1)...)
	must(t, s.AppendWithHeads(ctx, notes("src", 2, 5), headsOf("src", 2, 5)), "append")
	_, err := s.Fork(ctx, "src", 4, "kid")
	must(t, err, "fork")
	must(t, s.AppendWithHeads(ctx, notes("kid", 5, 5), headsOf("kid", 5, 5)), "the fork's own")
	want := append([][]byte{nil}, headsOf("src", 2, 4)...)
	sameHeads(t, "fork", heads(t, s, "kid"), append(want, head("kid", 5)))
	sameHeads(t, "source", heads(t, s, "src"), append([][]byte{nil}, headsOf("src", 2, 5)...))
	must(t, s.Delete(ctx, "src"), "delete the source")
	sameHeads(t, "fork of a deleted source", heads(t, s, "kid"), append(want, head("kid", 5)))
}
