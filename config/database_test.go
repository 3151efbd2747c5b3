package config

import (
	"strings"
	"testing"
	"time"
)

// The database is $MOTEUR_DATABASE_URL, else the user's database: section,
// else the embedded file; a project's section is ignored and said; Load and
// LoadDatabase agree.
func TestDatabasePrecedence(t *testing.T) {
	loadDB := func(e *env) Database {
		t.Helper()
		d, err := LoadDatabase(LoadOptions{ProjectRoot: e.project, UserDir: e.user, Getenv: func(k string) string { return e.vars[k] }})
		if err != nil {
			t.Fatal(err)
		}
		if c := e.mustLoad(); c.Database != d {
			t.Errorf("Load chose %+v, LoadDatabase %+v", c.Database, d)
		}
		return d
	}
	e := newEnv(t)
	if d := loadDB(e); d.URL != "" || d.Postgres() || d.String() != "the embedded SQLite file" {
		t.Errorf("default: %+v", d)
	}

	e.writeUser("database:\n  url: postgres://moteur@db.example:5432/moteur?sslmode=verify-full\n")
	if d := loadDB(e); !d.Postgres() || d.Source != e.userFile() || d.URL != "postgres://moteur@db.example:5432/moteur?sslmode=verify-full" {
		t.Errorf("user file: %+v", d)
	}

	e.vars[DatabaseEnv] = "postgresql://app:s3cret@other.example/db"
	d := loadDB(e)
	if d.Source != "$"+DatabaseEnv || !strings.Contains(d.URL, "other.example") {
		t.Errorf("the environment does not win: %+v", d)
	}
	if strings.Contains(d.String(), "s3cret") || !strings.Contains(d.String(), "other.example") {
		t.Errorf("String() %q: want the server without the password", d.String())
	}

	p := newEnv(t).writeProject("database:\n  url: postgres://attacker@evil.example/steal\n")
	c := p.mustLoad()
	if c.Database.URL != "" {
		t.Errorf("a project's database: section was honoured: %+v", c.Database)
	}
	if !strings.Contains(strings.Join(c.Notices, "\n"), "database: is honoured only in your own configuration") {
		t.Errorf("notices %q: want the project's database: reported", c.Notices)
	}
	if d := loadDB(p); d.URL != "" {
		t.Errorf("LoadDatabase honoured the project: %+v", d)
	}
}

// SQLite paths: sqlite:PATH and a bare path name a file.
func TestDatabaseSQLitePath(t *testing.T) {
	for url, want := range map[string]string{"": "", "sqlite:/data/m.db": "/data/m.db", "/srv/moteur.db": "/srv/moteur.db", "rel/m.db": "rel/m.db"} {
		if err := checkDatabaseURL(url); err != nil {
			t.Errorf("%q: %v", url, err)
		}
		if got := (Database{URL: url}).SQLitePath(); got != want {
			t.Errorf("SQLitePath(%q) = %q, want %q", url, got, want)
		}
	}
}

// A URL Moteur cannot use is refused naming it, its password masked, and
// the accepted forms; a password in a file is refused.
func TestDatabaseURLErrors(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"mysql://root:hunter2@db/x", "want postgres://USER@HOST:PORT/DATABASE (PostgreSQL), sqlite:PATH"},
		{"redis:6379", "sqlite:PATH or a file path"},
		{"postgres:///nohost", "names no server"},
	} {
		e := newEnv(t)
		e.vars[DatabaseEnv] = tc.url
		msg := e.loadErr("$"+DatabaseEnv, tc.want)
		if strings.Contains(msg, "hunter2") {
			t.Errorf("%q: the error shows the password: %s", tc.url, msg)
		}
		if _, err := LoadDatabase(LoadOptions{Getenv: func(k string) string { return e.vars[k] }}); err == nil {
			t.Errorf("LoadDatabase accepted %q", tc.url)
		}
	}
	msg := newEnv(t).writeUser("database:\n  url: postgres://moteur:hunter2@db.example/moteur\n").
		loadErr("line 2", "database.url holds a password", "PGPASSWORD")
	if strings.Contains(msg, "hunter2") {
		t.Errorf("the error shows the password: %s", msg)
	}
	newEnv(t).writeUser("database:\n  url: ftp://x\n").loadErr("line 2", "database.url")
}

// $MOTEUR_LEASE_TTL sets the lease TTL, within bounds.
func TestLeaseTTL(t *testing.T) {
	e := newEnv(t)
	e.vars[LeaseTTLEnv] = "5s"
	if d := e.mustLoad().Database; d.LeaseTTL != 5*time.Second {
		t.Errorf("LeaseTTL %v, want 5s", d.LeaseTTL)
	}
	for _, bad := range []string{"soon", "10ms", "2h"} {
		e.vars[LeaseTTLEnv] = bad
		e.loadErr("$"+LeaseTTLEnv, "want a duration from 1s to 1h")
	}
}
