package sessiontest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/session"
)

// forkSource appends the session src: SessionStarted, a user message, notes
// up to seq 6.
func forkSource(t *testing.T, s session.Store, src string) []event.Event {
	t.Helper()
	evs := append([]event.Event{started(src, 1, "/p"), user(src, 2, "Titre", false)}, notes(src, 3, 6)...)
	evs[3].ParentCallID = "sub-1"
	appendOK(t, s, evs...)
	return evs
}

// renamed is events as a fork named id holds them.
func renamed(events []event.Event, id string) []event.Event {
	out := make([]event.Event, len(events))
	for i, e := range events {
		e.SessionID = id
		out[i] = e
	}
	return out
}

func testFork(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	src := forkSource(t, s, "src")
	srcInfo := info(t, s, "src")

	got, err := s.Fork(ctx, "src", 4, "kid")
	must(t, err, "fork at 4")
	want := session.Info{ID: "kid", Title: "Titre", ProjectRoot: "/p", ParentID: "src", ForkSeq: 4,
		Created: base.Add(time.Second), Updated: base.Add(4 * time.Second), Events: 4, LastSeq: 4}
	sameInfo(t, got, want)
	sameInfo(t, info(t, s, "kid"), want)
	kid := load(t, s, "kid")
	if !reflect.DeepEqual(kid, renamed(src[:4], "kid")) {
		t.Fatalf("fork events:\n got %+v\nwant %+v", kid, renamed(src[:4], "kid"))
	}
	sameJSON(t, kid, renamed(src[:4], "kid"))

	// The fork and its source go their own ways.
	appendOK(t, s, note("kid", 5, "kid's own"))
	sameJSON(t, load(t, s, "src"), src)
	sameInfo(t, info(t, s, "src"), srcInfo)
	appendOK(t, s, note("src", 7, "src's own"))
	if got := load(t, s, "kid"); len(got) != 5 || got[4].Payload.(event.ToolResultPayload).Content != "kid's own" {
		t.Fatalf("fork after both appended: %+v", got)
	}

	// Info of a fork comes from its own events: no title before seq 2.
	early, err := s.Fork(ctx, "src", 1, "early")
	must(t, err, "fork at 1")
	if early.Title != "" || early.ProjectRoot != "/p" || early.Events != 1 {
		t.Fatalf("fork at 1: %+v", early)
	}
	// A fork of a fork, and a fork at the last seq.
	g, err := s.Fork(ctx, "kid", 5, "grandkid")
	must(t, err, "fork a fork")
	if g.ParentID != "kid" || g.ForkSeq != 5 || g.LastSeq != 5 {
		t.Fatalf("fork of a fork: %+v", g)
	}
	// A fork outlives its source.
	must(t, s.Delete(ctx, "src"), "delete the source")
	sameJSON(t, load(t, s, "kid")[:4], renamed(src[:4], "kid"))
	if got := info(t, s, "kid"); got.ParentID != "src" {
		t.Fatalf("fork of a deleted source: %+v", got)
	}
}

func testForkErrors(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	forkSource(t, s, "src")
	appendOK(t, s, notes("taken", 1, 1)...)
	for _, at := range []uint64{0, 7, 1 << 40} {
		if _, err := s.Fork(ctx, "src", at, "bad"); err == nil {
			t.Fatalf("fork at %d accepted", at)
		}
	}
	_, err := s.Fork(ctx, "src", 2, "taken")
	wantIs(t, err, session.ErrExists, "fork onto an existing session")
	_, err = s.Fork(ctx, "src", 2, "src")
	wantIs(t, err, session.ErrExists, "fork onto itself")
	if _, err := s.Fork(ctx, "src", 2, ""); err == nil {
		t.Fatal("fork without an id accepted")
	}
	_, err = s.Info(ctx, "bad")
	wantIs(t, err, session.ErrNotFound, "after refused forks")
	sameJSON(t, load(t, s, "taken"), notes("taken", 1, 1))
}

func testDelete(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	appendOK(t, s, notes("a", 1, 5)...)
	appendOK(t, s, notes("b", 1, 2)...)
	must(t, s.Delete(ctx, "a"), "delete")
	_, err := s.Load(ctx, "a")
	wantIs(t, err, session.ErrNotFound, "load after delete")
	_, err = s.Info(ctx, "a")
	wantIs(t, err, session.ErrNotFound, "info after delete")
	wantIs(t, s.Delete(ctx, "a"), session.ErrNotFound, "delete twice")
	p, err := s.List(ctx, session.ListOptions{})
	must(t, err, "list")
	if len(p.Sessions) != 1 || p.Sessions[0].ID != "b" {
		t.Fatalf("list after delete: %+v", p.Sessions)
	}
	sameJSON(t, load(t, s, "b"), notes("b", 1, 2))
	// The id can be used again, from seq 1.
	appendOK(t, s, note("a", 1, "again"))
	if got := info(t, s, "a"); got.Events != 1 || got.LastSeq != 1 {
		t.Fatalf("session created again: %+v", got)
	}
}
