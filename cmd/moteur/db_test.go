package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/moteur/moteur/internal/pgtest"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// db migrate copies a data directory's SQLite database to PostgreSQL —
// sessions with their heads and forks, agents, keys — and verifies the
// audit logs against what it copied; run again it copies only what is new;
// the data then serves from PostgreSQL, the audit logs verifying there.
func TestDBMigrateRoundTrip(t *testing.T) {
	url := pgtest.Database(t)
	srv := openaitest.NewServer(t, openaitest.Answer("one"), openaitest.Answer("two"), openaitest.Answer("three"), openaitest.Answer("four"), openaitest.Answer("five"))
	h := newHarness(t, srv.BaseURL())
	for _, r := range [][]string{{"run", "--new-session", "s-a", "first"}, {"run", "--new-session", "s-b", "second"}, {"run", "--session", "s-a", "again"}} {
		if res := h.run(t, r...); res.code != 0 {
			t.Fatalf("%v: exit %d: %s", r, res.code, res.stderr)
		}
	}
	if res := h.run(t, "sessions", "fork", "s-a", "--at", "4", "--id", "s-fork"); res.code != 0 {
		t.Fatalf("fork: exit %d: %s", res.code, res.stderr)
	}
	if res := h.run(t, "agents", "create", "support"); res.code != 0 {
		t.Fatalf("agents create: exit %d: %s", res.code, res.stderr)
	}
	keyRes := h.run(t, "keys", "create", "ci", "--json")
	if keyRes.code != 0 {
		t.Fatalf("keys create: exit %d: %s", keyRes.code, keyRes.stderr)
	}

	migrate := func() migrateJSON {
		t.Helper()
		res := h.run(t, "db", "migrate", "--to", url, "--json")
		if res.code != 0 {
			t.Fatalf("db migrate: exit %d\n%s%s", res.code, res.stdout, res.stderr)
		}
		var rep migrateJSON
		if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
			t.Fatalf("db migrate --json: %v\n%s", err, res.stdout)
		}
		if strings.Contains(res.stdout, "moteur:moteur@") {
			t.Errorf("the report shows the password: %s", res.stdout)
		}
		return rep
	}
	rep := migrate()
	// The fork has no audit log of its own before its first turn.
	if rep.Sessions != 3 || rep.Copied != 3 || rep.Skipped != 0 || rep.AuditVerified != 2 || rep.Agents != 1 || rep.Keys != 1 {
		t.Errorf("first migration %+v", rep)
	}
	src := h.store(t)
	dst, err := session.OpenPostgres(t.Context(), session.PostgresConfig{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	for _, id := range []string{"s-a", "s-b", "s-fork"} {
		a, _ := src.Load(t.Context(), id)
		b, err := dst.Load(t.Context(), id)
		if err != nil || jsonLines(t, a) != jsonLines(t, b) {
			t.Errorf("%s on PostgreSQL differs from SQLite (%v)", id, err)
		}
	}
	if in, err := dst.Info(t.Context(), "s-fork"); err != nil || in.ParentID != "s-a" || in.ForkSeq != 4 {
		t.Errorf("the fork on PostgreSQL: %+v, %v", in, err)
	}

	// A turn more on SQLite, then again: only that is copied.
	if res := h.run(t, "run", "--session", "s-b", "more"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	if rep := migrate(); rep.Copied != 1 || rep.Skipped != 2 || rep.Agents != 0 || rep.Keys != 0 || rep.Events == 0 {
		t.Errorf("second migration %+v, want s-b's new events only", rep)
	}

	// From now on the data is PostgreSQL's.
	h.env["MOTEUR_DATABASE_URL"] = url
	if res := h.run(t, "audit", "verify", "--json"); res.code != 0 {
		t.Errorf("audit verify on PostgreSQL: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := h.run(t, "agents", "list"); res.code != 0 || !strings.Contains(res.stdout, "support") {
		t.Errorf("agents on PostgreSQL: exit %d\n%s", res.code, res.stdout)
	}
	if res := h.run(t, "keys", "list"); res.code != 0 || !strings.Contains(res.stdout, "ci") {
		t.Errorf("keys on PostgreSQL: exit %d\n%s", res.code, res.stdout)
	}
	if res := h.run(t, "run", "--session", "s-a", "on postgres now"); res.code != 0 || !strings.Contains(res.stdout, "five") {
		t.Errorf("continue s-a on PostgreSQL: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}

	// A target whose session went further is refused, naming it.
	delete(h.env, "MOTEUR_DATABASE_URL")
	res := h.run(t, "db", "migrate", "--to", url)
	if res.code != 1 || !strings.Contains(res.stderr, "session s-a: the target holds") {
		t.Errorf("migrate onto a longer session: exit %d, stderr %q", res.code, res.stderr)
	}
}

// Bad ends are usage errors that say what is wanted.
func TestDBMigrateBadArguments(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1/v1")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"db", "migrate"}, "say where to copy to with --to"},
		{[]string{"db", "migrate", "--to", "mysql://root:hunter2@x/y"}, "--to: "},
		{[]string{"db", "migrate", "--to", "sqlite:" + h.home() + "/other.db"}, "nothing to migrate"},
	} {
		res := h.run(t, tc.args...)
		if res.code == 0 || !strings.Contains(res.stderr, tc.want) || strings.Contains(res.stderr, "hunter2") {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, res.code, res.stderr, tc.want)
		}
	}
}
