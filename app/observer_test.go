package app

import (
	"errors"
	"os"
	"testing"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/session"
)

func TestOpenObserverOfAnUnknownSessionCreatesNothing(t *testing.T) {
	e := newTestEnv(t)
	if _, err := OpenObserver(t.Context(), e.options("s-none")); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("no store: %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(session.DefaultPath(e.home())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the store was created: %v", err)
	}
	e.store(t, events("s-one", 3))
	if _, err := OpenObserver(t.Context(), e.options("s-none")); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("unknown session: %v, want ErrNotFound", err)
	}
	if _, err := OpenObserver(t.Context(), e.options("../x")); err == nil {
		t.Error("an invalid session id was accepted")
	}
}

func TestObserverFollowsAndAnswersWithoutTheLease(t *testing.T) {
	e := newTestEnv(t)
	evs := events("s-obs", 3)
	e.store(t, evs)
	// No model: the observer needs none.
	delete(e.vars, "MOTEUR_BASE_URL")
	ob, err := OpenObserver(t.Context(), e.options("s-obs"))
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	if ob.Info.ID != "s-obs" || ob.Info.LastSeq != 3 {
		t.Errorf("info %+v", ob.Info)
	}
	// The session stays free for the process that runs its turns.
	l, err := e.openStore(t).Acquire(t.Context(), "s-obs")
	if err != nil {
		t.Fatalf("the observer holds the session: %v", err)
	}
	defer l.Release()

	ch, err := ob.Engine.SubscribeSession(t.Context(), "s-obs", 1)
	if err != nil {
		t.Fatal(err)
	}
	got := []uint64{(<-ch).Seq, (<-ch).Seq}
	if got[0] != 2 || got[1] != 3 {
		t.Errorf("followed seqs %v, want 2 and 3", got)
	}
	if _, err := ob.Engine.SubscribeSession(t.Context(), "s-obs", 4); !errors.Is(err, engine.ErrFollowAfterEnd) {
		t.Errorf("follow after the end: %v", err)
	}
	if err := ob.Engine.Respond("s-obs/1", engine.Reply{Allow: true}); !errors.Is(err, engine.ErrUnknownPermission) {
		t.Errorf("answer an unknown request: %v", err)
	}
	if err := ob.Engine.SubmitInput(t.Context(), "s-obs", engine.Input{Text: "hi"}); !errors.Is(err, engine.ErrNoProvider) {
		t.Errorf("a turn: %v, want ErrNoProvider", err)
	}
}
