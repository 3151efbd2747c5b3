// Package sidetable opens Moteur's database file for a package that keeps
// its own tables in it beside the sessions (custom agents, API keys): the
// session store creates and checks the file first — a corrupt file,
// another application's or a newer Moteur's is refused, untouched — then
// the package gets one writing connection (WAL, immediate transactions, a
// busy timeout for other processes) and a pool of read-only ones, and its
// migrations, versioned in a table of its own, are applied once each even
// when processes open a new file at once.
//
// A DB is safe for concurrent use, as database/sql's pools are.
package sidetable

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", no cgo

	"github.com/moteur/moteur/session"
)

// BusyTimeout is how long a statement waits for another process's
// transaction on the same file.
const BusyTimeout = 10 * time.Second

// Config says what to open.
type Config struct {
	// Path is the database file (session.DefaultPath), created if missing.
	Path string
	// What names the package's data in errors ("agents", "API keys").
	What string
	// Table is the package's migrations table.
	Table string
	// Migrations are the package's schema steps, in order; version N is
	// Migrations[N-1].
	Migrations []string
	// Now stamps the migrations (nil: time.Now).
	Now func() time.Time
	// Readers bounds the read-only connections (0: 4).
	Readers int
}

// DB is the package's view of the file.
type DB struct {
	Path string
	W    *sql.DB // the one writing connection of this process
	R    *sql.DB // read-only connections
	what string
}

// Open opens the file and migrates the package's tables.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	if cfg.Path == "" {
		return nil, fmt.Errorf("open %s: no database path", cfg.What)
	}
	path, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("open %s %s: %w", cfg.What, cfg.Path, err)
	}
	ss, err := session.OpenSQLite(ctx, session.SQLiteConfig{Path: path})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.What, err)
	}
	if err := ss.Close(); err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.What, err)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	db := &DB{Path: path, what: cfg.What}
	base := "file:" + (&url.URL{Path: path}).EscapedPath() +
		fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=synchronous(FULL)", BusyTimeout.Milliseconds())
	if db.W, err = sql.Open("sqlite", base+"&_pragma=journal_mode(WAL)&_txlock=immediate"); err != nil {
		return nil, fmt.Errorf("open %s %s: %w", cfg.What, path, err)
	}
	db.W.SetMaxOpenConns(1)
	db.W.SetConnMaxIdleTime(0)
	if err := migrate(ctx, db.W, cfg); err != nil {
		db.W.Close()
		return nil, fmt.Errorf("migrate %s in %s: %w", cfg.What, path, err)
	}
	if db.R, err = sql.Open("sqlite", base+"&_pragma=query_only(1)"); err != nil {
		db.W.Close()
		return nil, fmt.Errorf("open %s %s: %w", cfg.What, path, err)
	}
	if cfg.Readers <= 0 {
		cfg.Readers = 4
	}
	db.R.SetMaxOpenConns(cfg.Readers)
	return db, nil
}

// Close closes both pools.
func (db *DB) Close() error {
	if err := errors.Join(db.R.Close(), db.W.Close()); err != nil {
		return fmt.Errorf("close %s %s: %w", db.what, db.Path, err)
	}
	return nil
}

// migrate brings the schema up to date, one immediate transaction per
// migration, so that processes opening a new file at once apply each
// migration exactly once.
func migrate(ctx context.Context, w *sql.DB, cfg Config) error {
	for {
		done, err := migrateStep(ctx, w, cfg)
		if err != nil || done {
			return err
		}
	}
}

func migrateStep(ctx context.Context, w *sql.DB, cfg Config) (done bool, err error) {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+cfg.Table+` (
		version INTEGER NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return false, err
	}
	var version int
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM `+cfg.Table).Scan(&version); err != nil {
		return false, err
	}
	n := len(cfg.Migrations)
	switch {
	case version > n:
		return false, fmt.Errorf("%s schema version %d is newer than this Moteur (%d); upgrade Moteur", cfg.What, version, n)
	case version == n:
		return true, tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, cfg.Migrations[version]); err != nil {
		return false, fmt.Errorf("migration %d: %w", version+1, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+cfg.Table+` (version, applied_at) VALUES (?, ?)`,
		version+1, cfg.Now().UTC().Format(time.RFC3339)); err != nil {
		return false, err
	}
	return version+1 == n, tx.Commit()
}

// Write runs fn in one immediate transaction of the writing connection,
// committed when fn returns nil and rolled back otherwise.
func (db *DB) Write(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
