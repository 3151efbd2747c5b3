package app

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/internal/pgtest"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// With $MOTEUR_DATABASE_URL naming PostgreSQL, a session run through app
// writes its events there — a second store opened on the same URL reads
// them — and the data directory gets no SQLite file for them; its
// snapshots and agents go there too.
func TestSessionOnPostgres(t *testing.T) {
	url := pgtest.Database(t)
	srv := openaitest.NewServer(t, openaitest.Answer("from the model"), openaitest.Answer("and again"))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	e.vars["MOTEUR_DATABASE_URL"] = url

	s := e.open(t, e.options("s-pg"))
	if _, ok := s.Store.(*session.Postgres); !ok {
		t.Fatalf("the session's store is a %T, want *session.Postgres", s.Store)
	}
	if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("%d model requests, want 1", len(srv.Requests()))
	}

	other, err := session.OpenPostgres(t.Context(), session.PostgresConfig{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	evs, err := other.Load(t.Context(), "s-pg")
	if err != nil {
		t.Fatal(err)
	}
	var types []event.Type
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	if !slices.Contains(types, event.UserMessage) || !slices.Contains(types, event.AssistantMessage) || types[0] != event.SessionStarted {
		t.Errorf("stored on PostgreSQL: %v", types)
	}
	if _, err := os.Stat(session.DefaultPath(e.home())); !os.IsNotExist(err) {
		t.Errorf("the session wrote the data directory's SQLite file (%v)", err)
	}

	// The session continues from PostgreSQL, as on another replica.
	s2 := e.open(t, e.options("s-pg"))
	if err := s2.Engine.SubmitInput(t.Context(), s2.ID, engine.Input{Text: "again"}); err != nil {
		t.Fatal(err)
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	if msgs := srv.Requests()[1].Messages; len(msgs) < 4 || msgs[1].Content != "hello" {
		t.Errorf("the second turn did not get the first from PostgreSQL: %+v", msgs)
	}

	db, err := DatabaseOf(e.env, e.home())
	if err != nil {
		t.Fatal(err)
	}
	agents, err := db.Agents(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer agents.Close()
	if !strings.HasPrefix(agents.Path(), "postgres://") || strings.Contains(agents.Path(), "moteur:moteur@") {
		t.Errorf("agents on %q, want the PostgreSQL URL without its password", agents.Path())
	}
	if n := db.KBNotice(i18n.EN); !strings.Contains(n, "knowledge bases stay in "+session.DefaultPath(e.home())) {
		t.Errorf("KBNotice %q", n)
	}
}

// A database URL Moteur cannot use stops the session before anything is
// written, naming the value without its password.
func TestBadDatabaseURL(t *testing.T) {
	e := newTestEnv(t)
	e.vars["MOTEUR_DATABASE_URL"] = "mysql://root:hunter2@db/x"
	_, err := Open(t.Context(), e.options("s-bad"))
	if err == nil || !strings.Contains(err.Error(), "MOTEUR_DATABASE_URL") || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("Open: %v; want an error naming $MOTEUR_DATABASE_URL without the password", err)
	}
	if entries, _ := os.ReadDir(e.home()); len(entries) != 0 {
		t.Errorf("a refused database URL left %v in the data directory", entries)
	}
}

// A wrong password is refused, saying so, without showing it.
func TestWrongDatabasePassword(t *testing.T) {
	url := pgtest.Database(t)
	bad := strings.Replace(url, "moteur:moteur@", "moteur:wrong-pw@", 1)
	if bad == url {
		t.Skip("the test server's URL has no moteur:moteur credentials to alter: " + pgtest.EnvVar)
	}
	e := newTestEnv(t)
	e.vars["MOTEUR_DATABASE_URL"] = bad
	_, err := Open(t.Context(), e.options("s-pw"))
	if err == nil || !strings.Contains(err.Error(), "refused the login") || strings.Contains(err.Error(), "wrong-pw") {
		t.Fatalf("Open: %v; want the refused login, without the password", err)
	}
}
