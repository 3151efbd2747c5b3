package agentstore

import (
	"context"
	"fmt"
	"time"
)

// migrations is the agents schema's history: migrations[i] takes the
// table from version i to i+1. Append only; never edit one that shipped.
var migrations = []string{
	// 1: the agents. config is the CustomAgentConfig's JSON, EnsureDefaults
	// applied; names are unique regardless of case, so that "Support" and
	// "support" cannot both exist and confuse Resolve.
	`
CREATE TABLE agents (
	id          TEXT    NOT NULL PRIMARY KEY,
	name        TEXT    NOT NULL UNIQUE COLLATE NOCASE,
	description TEXT    NOT NULL DEFAULT '',
	config      TEXT    NOT NULL,
	created_at  INTEGER NOT NULL, -- Unix nanoseconds, UTC
	updated_at  INTEGER NOT NULL
) WITHOUT ROWID;
`,
}

// migrate brings the schema up to date, one immediate transaction per
// migration, so that processes opening a new file at once apply each
// migration exactly once.
func (s *SQLite) migrate(ctx context.Context) error {
	for {
		done, err := s.migrateStep(ctx)
		if err != nil {
			return fmt.Errorf("migrate agents in %s: %w", s.path, err)
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
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS agent_migrations (
		version INTEGER NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return false, err
	}
	var version int
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM agent_migrations`).Scan(&version); err != nil {
		return false, err
	}
	switch {
	case version > len(migrations):
		return false, fmt.Errorf("agents schema version %d is newer than this Moteur (%d); upgrade Moteur", version, len(migrations))
	case version == len(migrations):
		return true, tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, migrations[version]); err != nil {
		return false, fmt.Errorf("migration %d: %w", version+1, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO agent_migrations (version, applied_at) VALUES (?, ?)`,
		version+1, s.now().UTC().Format(time.RFC3339)); err != nil {
		return false, err
	}
	return version+1 == len(migrations), tx.Commit()
}
