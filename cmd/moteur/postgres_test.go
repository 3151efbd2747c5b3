package main

import (
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/moteur/moteur/internal/dbtest"
	"github.com/moteur/moteur/internal/pgtest"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// With MOTEUR_DATABASE_URL naming PostgreSQL, the commands keep their data
// there: a run's session is listed, shown and continued from it, agents
// and keys are made in it, and no SQLite file appears in the data
// directory.
func TestCommandsOnPostgres(t *testing.T) {
	url := pgtest.Database(t)
	srv := openaitest.NewServer(t, openaitest.Answer("first answer"), openaitest.Answer("second answer"))
	h := newHarness(t, srv.BaseURL())
	h.env["MOTEUR_DATABASE_URL"] = url

	if res := h.run(t, "run", "--new-session", "s-pg", "hello"); res.code != 0 || !strings.Contains(res.stdout, "first answer") {
		t.Fatalf("run: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if res := h.run(t, "sessions", "list", "--json"); res.code != 0 || !strings.Contains(res.stdout, `"s-pg"`) {
		t.Fatalf("sessions list: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if res := h.run(t, "run", "--session", "s-pg", "again"); res.code != 0 || !strings.Contains(res.stdout, "second answer") {
		t.Fatalf("run --session: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if msgs := srv.Requests()[1].Messages; len(msgs) < 4 || msgs[1].Content != "hello" {
		t.Errorf("the continued turn did not get the stored conversation: %+v", msgs)
	}
	if res := h.run(t, "sessions", "show", "s-pg"); res.code != 0 || !strings.Contains(res.stdout, "second answer") {
		t.Errorf("sessions show: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if res := h.run(t, "audit", "verify", "s-pg"); res.code != 0 {
		t.Errorf("audit verify against the heads on PostgreSQL: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if res := h.run(t, "agents", "create", "support", "--json"); res.code != 0 {
		t.Fatalf("agents create: exit %d\n%s", res.code, res.stderr)
	}
	if res := h.run(t, "keys", "create", "ci"); res.code != 0 {
		t.Fatalf("keys create: exit %d\n%s", res.code, res.stderr)
	}

	// What the commands wrote is on the server, read by another client.
	st, err := session.OpenPostgres(t.Context(), session.PostgresConfig{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if info, err := st.Info(t.Context(), "s-pg"); err != nil || info.Events < 8 {
		t.Errorf("s-pg on PostgreSQL: %+v, %v", info, err)
	}
	raw := dbtestRaw(t, url)
	var agents, keys int
	if err := raw.QueryRow(`SELECT (SELECT count(*) FROM agents), (SELECT count(*) FROM api_keys)`).Scan(&agents, &keys); err != nil || agents != 1 || keys != 1 {
		t.Errorf("%d agents, %d keys on PostgreSQL (%v); want 1 and 1", agents, keys, err)
	}
	if _, err := os.Stat(session.DefaultPath(h.home())); !os.IsNotExist(err) {
		t.Errorf("the data directory has a SQLite file (%v): the commands did not keep to PostgreSQL", err)
	}

	if res := h.run(t, "sessions", "rm", "s-pg", "--yes"); res.code != 0 {
		t.Fatalf("sessions rm: exit %d\n%s", res.code, res.stderr)
	}
	if _, err := st.Info(t.Context(), "s-pg"); err == nil {
		t.Error("s-pg is still on PostgreSQL after sessions rm")
	}
}

// A database URL that cannot be used is a clear error of every command
// that needs the store, its password masked.
func TestCommandsBadDatabaseURL(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1/v1")
	h.env["MOTEUR_DATABASE_URL"] = "mongodb://admin:hunter2@db.example/x"
	for _, args := range [][]string{{"sessions", "list"}, {"agents", "list"}, {"run", "hello"}} {
		res := h.run(t, args...)
		if res.code == 0 || !strings.Contains(res.stderr, "MOTEUR_DATABASE_URL") || strings.Contains(res.stderr, "hunter2") {
			t.Errorf("%v: exit %d, stderr %q; want an error naming $MOTEUR_DATABASE_URL, without the password", args, res.code, res.stderr)
		}
	}
}

// dbtestRaw is a connection to Moteur's schema on the database url.
func dbtestRaw(t *testing.T, url string) *sql.DB {
	t.Helper()
	return dbtest.Backend{Name: "postgres", URL: url}.Raw(t)
}
