package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
)

// TestMigrateAnEarlierVersionsDatabase opens the database Moteur v0.x left
// (schema 1, written by that version: cmd/moteur/testdata/home-v0): it is
// migrated, its events load as they were, without heads, and new events get
// theirs.
func TestMigrateAnEarlierVersionsDatabase(t *testing.T) {
	old, err := os.ReadFile(filepath.Join("..", "cmd", "moteur", "testdata", "home-v0", "moteur.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "moteur.db")
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	var version int
	if err := rawDB(t, path).QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&version); err != nil || version != 1 {
		t.Fatalf("the fixture is at schema %d (%v), want 1", version, err)
	}
	s := openTest(t, path)
	if err := rawDB(t, path).QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&version); err != nil || version != len(migrations) {
		t.Fatalf("migrated to %d (%v), want %d", version, err, len(migrations))
	}
	ctx := context.Background()
	for id, n := range map[string]int{"20261130T090000-v01": 6, "compat-v02": 8} {
		evs, err := s.Load(ctx, id)
		if err != nil || len(evs) != n {
			t.Fatalf("%s: %d events, %v; want %d", id, len(evs), err, n)
		}
		hs, err := s.Heads(ctx, id)
		if err != nil || len(hs) != n {
			t.Fatalf("%s: heads %x, %v", id, hs, err)
		}
		for i, h := range hs {
			if h != nil {
				t.Errorf("%s: seq %d of an earlier version has the head %x", id, i+1, h)
			}
		}
		// The session goes on, with heads.
		next := note(id, uint64(n+1))
		mac := bytes.Repeat([]byte{7}, HeadSize)
		if err := s.AppendWithHeads(ctx, []event.Event{next}, [][]byte{mac}); err != nil {
			t.Fatal(err)
		}
		if hs, _ := s.Heads(ctx, id); len(hs) != n+1 || !bytes.Equal(hs[n], mac) || hs[n-1] != nil {
			t.Errorf("%s: heads after the first new event %x", id, hs)
		}
	}
}

// fakeHeads is an audit log that recorded the events of seqs it holds.
type fakeHeads map[uint64][]byte

func (f fakeHeads) Head(sessionID string, seq uint64) ([]byte, bool) {
	h, ok := f[seq]
	return h, ok && sessionID == "s"
}

func TestSinkStoresTheAuditHeadWithTheEvent(t *testing.T) {
	st := openTest(t, filepath.Join(t.TempDir(), "m.db"))
	mac := func(b byte) []byte { return bytes.Repeat([]byte{b}, HeadSize) }
	recorded := fakeHeads{1: mac(1), 2: mac(2)}
	sink := Sink{Store: st, Heads: recorded}
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	e := func(seq uint64) event.Event {
		return event.Event{Seq: seq, Type: event.UserMessage, SessionID: "s", Time: at, Payload: event.UserMessagePayload{Text: fmt.Sprint(seq)}}
	}
	for seq := uint64(1); seq <= 2; seq++ {
		if err := sink.Write(t.Context(), e(seq)); err != nil {
			t.Fatal(err)
		}
	}
	hs, err := st.Heads(t.Context(), "s")
	if err != nil || len(hs) != 2 || !bytes.Equal(hs[0], mac(1)) || !bytes.Equal(hs[1], mac(2)) {
		t.Fatalf("Heads = %x, %v", hs, err)
	}
	// An event the audit log did not record is not stored.
	err = sink.Write(t.Context(), e(3))
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("has no audit record")) {
		t.Fatalf("an event without audit record: %v", err)
	}
	if evs, _ := st.Load(t.Context(), "s"); len(evs) != 2 {
		t.Errorf("%d events stored, want the 2 the audit log recorded", len(evs))
	}
	// A conflict through the sink stores no head either.
	recorded[3] = mac(3)
	if err := st.Append(t.Context(), e(3)); err != nil {
		t.Fatal(err)
	}
	if err := sink.Write(t.Context(), e(3)); !errors.Is(err, ErrSeqConflict) {
		t.Fatalf("a duplicate seq through the sink = %v", err)
	}
	if hs, _ := st.Heads(t.Context(), "s"); len(hs) != 3 || hs[2] != nil {
		t.Errorf("heads %x: the refused write stored a head", hs)
	}
}
