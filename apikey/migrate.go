package apikey

import (
	"context"
	"fmt"
	"time"
)

// migrations is the keys schema's history: migrations[i] takes it from
// version i to i+1. Append only; never edit one that shipped.
var migrations = []string{
	// 1: the keys. A revoked key keeps its row (revoked_at set), so that
	// an audit naming its id still finds its name; an active key's name is
	// unique, a revoked one's may be reused.
	`
CREATE TABLE api_keys (
	id         TEXT    NOT NULL PRIMARY KEY,
	name       TEXT    NOT NULL,
	sha256     BLOB    NOT NULL, -- of the whole secret; the secret is never stored
	bases      TEXT    NOT NULL, -- JSON array; [] = every base
	agents     TEXT    NOT NULL, -- JSON array; [] = every agent
	wait       INTEGER NOT NULL,
	created_at INTEGER NOT NULL, -- Unix nanoseconds, UTC
	revoked_at INTEGER           -- NULL while the key works
) WITHOUT ROWID;
CREATE UNIQUE INDEX api_keys_active_name ON api_keys (name) WHERE revoked_at IS NULL;
`,
}

// migrate brings the schema up to date, one immediate transaction per
// migration.
func (s *SQLite) migrate(ctx context.Context) error {
	for {
		done, err := s.migrateStep(ctx)
		if err != nil {
			return fmt.Errorf("migrate API keys in %s: %w", s.path, err)
		}
		if done {
			return nil
		}
	}
}

func (s *SQLite) migrateStep(ctx context.Context) (done bool, err error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS apikey_migrations (
		version INTEGER NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return false, err
	}
	var version int
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM apikey_migrations`).Scan(&version); err != nil {
		return false, err
	}
	switch {
	case version > len(migrations):
		return false, fmt.Errorf("API keys schema version %d is newer than this Moteur (%d); upgrade Moteur", version, len(migrations))
	case version == len(migrations):
		return true, tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, migrations[version]); err != nil {
		return false, fmt.Errorf("migration %d: %w", version+1, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO apikey_migrations (version, applied_at) VALUES (?, ?)`,
		version+1, s.now().UTC().Format(time.RFC3339)); err != nil {
		return false, err
	}
	return version+1 == len(migrations), tx.Commit()
}
