// Package dbtest runs a test once on each of Moteur's database back ends —
// a new SQLite file, and a new PostgreSQL database from package pgtest —
// so that the packages keeping tables beside the sessions (agents, API
// keys, web snapshots) pass the same tests on both, written once.
//
// The PostgreSQL half follows pgtest: without $MOTEUR_TEST_POSTGRES it is
// skipped, saying so, except under CI=true, where it fails.
package dbtest

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/moteur/moteur/internal/pgtest"
	"github.com/moteur/moteur/session"
)

// Backend is one new, empty database.
type Backend struct {
	// Name is "sqlite" or "postgres".
	Name string
	// Path is the SQLite file (session.DefaultPath of a new directory),
	// "" on PostgreSQL.
	Path string
	// URL is the PostgreSQL database, "" on SQLite.
	URL string
}

// Postgres reports whether b is PostgreSQL.
func (b Backend) Postgres() bool { return b.URL != "" }

// Run runs fn as two subtests, "sqlite" and "postgres", each with a
// database of its own.
func Run(t *testing.T, fn func(t *testing.T, b Backend)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		fn(t, Backend{Name: "sqlite", Path: session.DefaultPath(t.TempDir())})
	})
	t.Run("postgres", func(t *testing.T) {
		fn(t, Backend{Name: "postgres", URL: pgtest.Database(t)})
	})
}

// Raw is a connection to b's data, beside the code under test, for a test
// that reads or damages rows directly: on PostgreSQL its search_path is
// Moteur's schema. Statements given to it use the back end's own
// placeholders. It is closed when t ends.
func (b Backend) Raw(t testing.TB) *sql.DB {
	t.Helper()
	var db *sql.DB
	if b.Postgres() {
		cc, err := pgx.ParseConfig(b.URL)
		if err != nil {
			t.Fatal(err)
		}
		cc.RuntimeParams["search_path"] = session.DefaultSchema
		db = stdlib.OpenDB(*cc)
	} else {
		var err error
		if db, err = sql.Open("sqlite", "file:"+filepath.ToSlash(b.Path)+"?_pragma=busy_timeout(5000)"); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { db.Close() })
	return db
}
