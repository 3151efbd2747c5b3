package app

import (
	"database/sql"
	"errors"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// TestOpenDoesNotReadTheStoredPast: opening a long session reads neither
// its events (the engine reads them back before its first turn) nor its
// up-to-date transcript. The stored events but the last are made
// undecodable: a Load of the session, or any re-encoding of its past for
// the transcript, fails on them.
func TestOpenDoesNotReadTheStoredPast(t *testing.T) {
	const id, n = "s-long", 10000
	e := newTestEnv(t)
	evs := events(id, n)
	e.store(t, evs)
	tpath := TranscriptPath(e.home(), id)
	writeFile(t, tpath, jsonLines(t, evs))
	check := unchanged(t, tpath)
	db, err := sql.Open("sqlite", session.DefaultPath(e.home()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`UPDATE events SET data = '{"undecodable' WHERE session_id = ? AND seq < ?`, id, n)
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.openStore(t).Load(t.Context(), id); err == nil {
		t.Fatal("the stored past still decodes: the test proves nothing")
	}

	s := e.open(t, e.options(id))
	if !s.Resumed() || s.LastSeq != n {
		t.Errorf("resumed %v at seq %d, want seq %d", s.Resumed(), s.LastSeq, n)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings %q", s.Warnings)
	}
	check()
}

func TestOpenContinuesAStoredSessionThroughTheEngine(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("second answer"))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	evs := events("s-cont", 3) // SessionStarted, "question", "answer"
	e.store(t, evs)
	// The transcript lags one event behind, as a crash leaves it.
	writeFile(t, TranscriptPath(e.home(), "s-cont"), jsonLines(t, evs[:2]))

	s := e.open(t, e.options("s-cont"))
	if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "again"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range srv.Requests()[0].Messages[1:] {
		got = append(got, string(m.Role)+": "+m.Content)
	}
	if want := []string{"user: question", "assistant: answer", "user: again"}; !slices.Equal(got, want) {
		t.Errorf("request %q, want the stored conversation first: %q", got, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	stored, err := e.openStore(t).Load(t.Context(), "s-cont")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, TranscriptPath(e.home(), "s-cont")), jsonLines(t, stored); got != want {
		t.Errorf("transcript:\n%s\nwant the stored events:\n%s", got, want)
	}
}

func TestAFailedOpenLeavesNoAuditLog(t *testing.T) {
	e := newTestEnv(t)
	// Another live process of this host (our parent) holds the lease.
	other, err := session.OpenSQLite(t.Context(), session.SQLiteConfig{Path: session.DefaultPath(e.home()), PID: os.Getppid()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Acquire(t.Context(), "s-busy"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(t.Context(), e.options("s-busy")); !errors.Is(err, session.ErrInUse) {
		t.Fatalf("%v, want the session in use", err)
	}
	o := e.options("s-kb")
	o.KnowledgeBases = []string{"nope"}
	if _, err := Open(t.Context(), o); !errors.Is(err, kb.ErrNotFound) {
		t.Fatalf("%v, want the base not found", err)
	}
	for _, id := range []string{"s-busy", "s-kb"} {
		for _, p := range []string{AuditPath(e.home(), id), TranscriptPath(e.home(), id)} {
			if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s left behind: %v", p, err)
			}
		}
	}
}

func TestOpenWithoutAModelRunsNoTurn(t *testing.T) {
	e := newTestEnv(t)
	delete(e.vars, "MOTEUR_BASE_URL")
	delete(e.vars, "MOTEUR_MODEL")
	o := e.options("s-none")
	o.NoModel = true
	s := e.open(t, o)
	if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "hi"}); !errors.Is(err, engine.ErrNoProvider) {
		t.Fatalf("%v, want ErrNoProvider", err)
	}
	if kind, _ := s.ShellSandbox(); kind == "" {
		t.Error("the shell tool does not say how it is isolated")
	}
}

func TestOpenRewind(t *testing.T) {
	e := newTestEnv(t)
	o := e.options("s-rw")
	if _, err := OpenRewind(t.Context(), o); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("missing session: %v, want ErrNotFound", err)
	}
	if entries, _ := os.ReadDir(e.home()); len(entries) != 0 {
		t.Fatalf("a rewind of a missing session wrote the data directory: %v", entries)
	}
	evs := events("s-rw", 3)
	evs[0].Payload = event.SessionStartedPayload{Provider: "p", Model: "m", ProjectRoot: e.root, Tools: []string{}}
	e.store(t, evs)
	o.ProjectRoot = t.TempDir() // the session says where its files are
	rw, err := OpenRewind(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if rw.ProjectRoot() != e.root || len(rw.Past) != 3 {
		t.Errorf("project %s, %d events; want %s and the 3 stored", rw.ProjectRoot(), len(rw.Past), e.root)
	}
	if points := rw.Engine.RewindPoints("s-rw"); len(points) != 1 || points[0].Seq != 2 {
		t.Errorf("points %+v, want the user message at seq 2", points)
	}
	if err := rw.Engine.SubmitInput(t.Context(), "s-rw", engine.Input{Text: "hi"}); !errors.Is(err, engine.ErrNoProvider) {
		t.Errorf("a rewind's engine ran a turn: %v", err)
	}
	if _, err := Open(t.Context(), e.options("s-rw")); !errors.Is(err, session.ErrInUse) {
		t.Errorf("the rewind does not hold the lease: %v", err)
	}
}

func TestConversationOfAQuickAnswer(t *testing.T) {
	evs := events("s-q", 5)
	evs = append(evs, event.Event{Seq: 6, SessionID: "s-q", Type: event.SessionClassified,
		Payload: event.SessionClassifiedPayload{Marking: "DIFFUSION RESTREINTE"}})
	history, aliases, sensitive := conversation(evs)
	want := []llm.Message{{Role: llm.RoleUser, Content: "question"}, {Role: llm.RoleAssistant, Content: "answer"},
		{Role: llm.RoleUser, Content: "question"}, {Role: llm.RoleAssistant, Content: "answer"}}
	if !reflect.DeepEqual(history, want) || aliases == nil || !sensitive {
		t.Errorf("history %+v, aliases %v, sensitive %v", history, aliases, sensitive)
	}
}

// A process that keeps the data directory's store open (moteur serve)
// gives it to each session: the sessions write their events to it and
// leave it open when they close.
func TestSessionsShareTheStoreTheyAreGiven(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("one"), openaitest.Answer("two"))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	st := e.openStore(t)
	for i, id := range []string{"s-shared-1", "s-shared-2"} {
		o := e.options(id)
		o.Store = st
		s, err := Open(t.Context(), o)
		if err != nil {
			t.Fatal(err)
		}
		if s.Store != st {
			t.Fatalf("session %s uses a store of its own", id)
		}
		if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "hi"}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		// Still open after the session closed: the next read works.
		evs, err := st.Load(t.Context(), id)
		if err != nil {
			t.Fatalf("after session %d closed: %v", i+1, err)
		}
		if last := evs[len(evs)-1]; last.Type != event.TurnCompleted {
			t.Errorf("session %s ends with %s, want its turn in the shared store", id, last.Type)
		}
	}
}
