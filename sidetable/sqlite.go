package sidetable

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", no cgo

	"github.com/moteur/moteur/session"
)

// BusyTimeout is how long a statement waits for another process's
// transaction on the same SQLite file.
const BusyTimeout = 10 * time.Second

// openSQLite opens the file and migrates the package's tables.
func openSQLite(ctx context.Context, cfg Config) (*DB, error) {
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
	db := &DB{Path: path, Name: path, what: cfg.What}
	base := "file:" + (&url.URL{Path: path}).EscapedPath() +
		fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=synchronous(FULL)", BusyTimeout.Milliseconds())
	if db.W, err = sql.Open("sqlite", base+"&_pragma=journal_mode(WAL)&_txlock=immediate"); err != nil {
		return nil, fmt.Errorf("open %s %s: %w", cfg.What, path, err)
	}
	db.W.SetMaxOpenConns(1)
	db.W.SetConnMaxIdleTime(0)
	if err := migrateSQLite(ctx, db.W, cfg); err != nil {
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

// migrateSQLite brings the schema up to date, one immediate transaction
// per migration, so that processes opening a new file at once apply each
// migration exactly once.
func migrateSQLite(ctx context.Context, w *sql.DB, cfg Config) error {
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
	version, err := schemaVersion(ctx, tx, cfg)
	if err != nil || version == len(cfg.Migrations) {
		return true, commitIfNil(err, tx)
	}
	if err := applyMigration(ctx, tx, cfg, cfg.Migrations, version); err != nil {
		return false, err
	}
	return version+1 == len(cfg.Migrations), tx.Commit()
}

// commitIfNil commits tx when err is nil, and returns err otherwise.
func commitIfNil(err error, tx *sql.Tx) error {
	if err != nil {
		return err
	}
	return tx.Commit()
}

// schemaVersion is the package's schema version in its migrations table;
// a version newer than this Moteur's is an error that names both.
func schemaVersion(ctx context.Context, tx *sql.Tx, cfg Config) (int, error) {
	var version int
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM `+cfg.Table).Scan(&version); err != nil {
		return 0, err
	}
	if n := len(cfg.Migrations); version > n {
		return 0, fmt.Errorf("%s schema version %d is newer than this Moteur (%d); upgrade Moteur", cfg.What, version, n)
	}
	return version, nil
}

// applyMigration runs migrations[version] in tx and records version+1.
// The statement's placeholders are written for each back end apart: the
// two differ only there.
func applyMigration(ctx context.Context, tx *sql.Tx, cfg Config, migrations []string, version int) error {
	if _, err := tx.ExecContext(ctx, migrations[version]); err != nil {
		return fmt.Errorf("migration %d: %w", version+1, err)
	}
	insert := `INSERT INTO ` + cfg.Table + ` (version, applied_at) VALUES (?, ?)`
	if cfg.URL != "" {
		insert = rebind(insert)
	}
	_, err := tx.ExecContext(ctx, insert, version+1, cfg.Now().UTC().Format(time.RFC3339))
	return err
}
