package app

import (
	"bytes"
	"testing"
)

// TestContinuedAudit: a continuation checks the log against the count and
// the last head only; a session whose last event has no head (an earlier
// version's) is checked against every head.
func TestContinuedAudit(t *testing.T) {
	e := newTestEnv(t)
	st := e.openStore(t)
	evs := events("old", 4)
	if err := st.Append(t.Context(), evs...); err != nil {
		t.Fatal(err)
	}
	got, err := continuedAudit(t.Context(), st, "old")
	if err != nil {
		t.Fatal(err)
	}
	if got.Sparse || len(got.Heads) != 4 {
		t.Fatalf("no last head: %+v, want every head (4), not sparse", got)
	}

	head := bytes.Repeat([]byte{9}, 32)
	more := events("new", 3)
	heads := [][]byte{bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32), head}
	if err := st.AppendWithHeads(t.Context(), more, heads); err != nil {
		t.Fatal(err)
	}
	got, err = continuedAudit(t.Context(), st, "new")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Sparse || len(got.Heads) != 3 || !bytes.Equal(got.Heads[2], head) || got.Heads[0] != nil || got.Heads[1] != nil {
		t.Fatalf("continuedAudit = %+v, want the count and the last head alone", got)
	}
	if got, err := continuedAudit(t.Context(), st, "ghost"); got != nil || err != nil {
		t.Fatalf("an unknown session: %+v, %v", got, err)
	}
}
