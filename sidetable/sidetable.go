// Package sidetable opens Moteur's database for a package that keeps its
// own tables in it beside the sessions (custom agents, API keys, web
// snapshots), on either back end:
//
//   - the embedded SQLite file: the session store creates and checks the
//     file first — a corrupt file, another application's or a newer
//     Moteur's is refused, untouched — then the package gets one writing
//     connection (WAL, immediate transactions, a busy timeout for other
//     processes) and a pool of read-only ones;
//   - PostgreSQL: the session store creates and checks Moteur's schema
//     first, then the package gets one pool (pgx's database/sql driver)
//     whose search_path is that schema, and every write transaction takes
//     an advisory lock of the package's tables, so that writers of several
//     processes and hosts are serialised as SQLite's one writer is.
//
// Either way the package's migrations, versioned in a table of its own,
// are applied once each even when processes open a new database at once.
// The package writes its statements once, with ? placeholders and types
// both back ends accept; Tx and DB rewrite them for PostgreSQL.
//
// A DB is safe for concurrent use, as database/sql's pools are.
package sidetable

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/moteur/moteur/session"
)

// Config says what to open.
type Config struct {
	// Path is the SQLite database file (session.DefaultPath), created if
	// missing. It is ignored when URL is set.
	Path string
	// URL, when set, is a PostgreSQL connection string
	// (postgres://user:password@host:port/database?…): the tables live
	// there, in Schema, instead of in a file.
	URL string
	// Schema holds the tables on PostgreSQL, beside the sessions'; "" is
	// session.DefaultSchema.
	Schema string
	// What names the package's data in errors ("agents", "API keys").
	What string
	// Table is the package's migrations table.
	Table string
	// Migrations are the package's schema steps on SQLite, in order;
	// version N is Migrations[N-1].
	Migrations []string
	// PostgresMigrations are the same steps on PostgreSQL, one for one
	// with Migrations (the same version numbers, PostgreSQL's types).
	PostgresMigrations []string
	// Now stamps the migrations (nil: time.Now).
	Now func() time.Time
	// Readers bounds the read-only connections of SQLite (0: 4).
	Readers int
}

// DB is the package's view of the database.
type DB struct {
	// Path is the SQLite file, "" on PostgreSQL.
	Path string
	// Name is the database for messages: the file, or the PostgreSQL URL
	// without its password.
	Name string
	// W is the writing pool (on SQLite its one connection), R the readers'
	// (on PostgreSQL the same pool as W). Statements given to them
	// directly are not rewritten: use Write, QueryContext and
	// QueryRowContext.
	W, R *sql.DB

	what     string
	postgres bool
	lockKey  string // the advisory lock of writers on PostgreSQL
}

// Open opens the database cfg names and migrates the package's tables.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.URL != "" {
		if len(cfg.PostgresMigrations) != len(cfg.Migrations) {
			return nil, fmt.Errorf("open %s: %d PostgreSQL migrations for %d SQLite ones", cfg.What, len(cfg.PostgresMigrations), len(cfg.Migrations))
		}
		return openPostgres(ctx, cfg)
	}
	return openSQLite(ctx, cfg)
}

// Close closes the pools.
func (db *DB) Close() error {
	err := db.W.Close()
	if db.R != db.W {
		err = errors.Join(db.R.Close(), err)
	}
	if err != nil {
		return fmt.Errorf("close %s %s: %w", db.what, db.Name, err)
	}
	return nil
}

// Tx is a write transaction of Write. Its statements are written with ?
// placeholders, rewritten for the back end.
type Tx struct {
	tx *sql.Tx
	db *DB
}

// ExecContext is sql.Tx's, with the statement rewritten for the back end.
func (t Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(ctx, t.db.rebind(query), args...)
}

// QueryRowContext is sql.Tx's, with the statement rewritten for the back end.
func (t Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(ctx, t.db.rebind(query), args...)
}

// QueryContext is sql.Tx's, with the statement rewritten for the back end.
func (t Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.tx.QueryContext(ctx, t.db.rebind(query), args...)
}

// Write runs fn in one write transaction, committed when fn returns nil
// and rolled back otherwise. On SQLite it is an immediate transaction of
// the one writing connection; on PostgreSQL it holds the package's
// advisory lock until it ends, so that fn's reads and writes are not
// interleaved with another writer's, wherever it runs.
func (db *DB) Write(ctx context.Context, fn func(Tx) error) error {
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return db.err(err)
	}
	defer tx.Rollback()
	if db.postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, db.lockKey); err != nil {
			return db.err(err)
		}
	}
	if err := fn(Tx{tx: tx, db: db}); err != nil {
		return db.err(err)
	}
	return db.err(tx.Commit())
}

// QueryContext reads with a reader, the statement rewritten for the back
// end.
func (db *DB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	rows, err := db.R.QueryContext(ctx, db.rebind(query), args...)
	return rows, db.err(err)
}

// QueryRowContext reads one row with a reader, the statement rewritten for
// the back end.
func (db *DB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return db.R.QueryRowContext(ctx, db.rebind(query), args...)
}

// rebind rewrites a statement's ? and ?N placeholders as PostgreSQL's $N;
// on SQLite it returns the statement as it is.
func (db *DB) rebind(q string) string {
	if !db.postgres {
		return q
	}
	return rebind(q)
}

// rebind turns the ? placeholders of q into $1, $2… in order, and ?N into
// $N, leaving string literals, quoted identifiers and comments alone.
func rebind(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(q[i+1:], c)
			if end < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+end+2])
			i += end + 1
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+end])
			i += end - 1
		case c == '?':
			j := i + 1
			for j < len(q) && '0' <= q[j] && q[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(q[i+1 : j])
			} else {
				n++
				fmt.Fprint(&b, n)
			}
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// err is an error of the database, explained on PostgreSQL (a refused
// login, a lost server); nil stays nil.
func (db *DB) err(err error) error {
	if err == nil || !db.postgres {
		return err
	}
	return session.ExplainPostgres(err)
}
