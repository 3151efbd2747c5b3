package session

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// migrations is the schema's history: migrations[i] takes a database from
// version i to version i+1. Append only; never edit a migration that has
// shipped.
var migrations = []string{
	// 1: sessions, their events, their leases.
	`
CREATE TABLE sessions (
	id           TEXT    NOT NULL PRIMARY KEY,
	title        TEXT    NOT NULL DEFAULT '',
	project_root TEXT    NOT NULL DEFAULT '',
	agent        TEXT    NOT NULL DEFAULT '',
	parent_id    TEXT    NOT NULL DEFAULT '',
	fork_seq     INTEGER NOT NULL DEFAULT 0,
	created_at   INTEGER NOT NULL, -- Unix nanoseconds, UTC
	updated_at   INTEGER NOT NULL,
	last_seq     INTEGER NOT NULL,
	events       INTEGER NOT NULL
) WITHOUT ROWID;
-- List: most recently updated first, ties by id (descending too, so that a
-- page's cursor is one row-value comparison that the index can seek).
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id DESC);
CREATE INDEX sessions_by_project ON sessions (project_root, updated_at DESC, id DESC);

-- data is the JSON of the event exactly as json.Marshal wrote it.
CREATE TABLE events (
	session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	type       TEXT    NOT NULL,
	time       INTEGER NOT NULL,
	data       TEXT    NOT NULL,
	PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

-- No foreign key: a lease may be taken before the session's first event.
CREATE TABLE leases (
	session_id   TEXT    NOT NULL PRIMARY KEY,
	host         TEXT    NOT NULL,
	pid          INTEGER NOT NULL,
	token        TEXT    NOT NULL,
	acquired_at  INTEGER NOT NULL,
	heartbeat_at INTEGER NOT NULL
) WITHOUT ROWID;
`,
	// 2: the head of the audit chain stored with each event: the MAC of
	// the event's audit record (event/audit.go), written in the same
	// transaction as the event. NULL for the events stored before, which
	// earlier versions logged in an unkeyed chain, and for events appended
	// without one (Append).
	`
ALTER TABLE events ADD COLUMN audit_mac BLOB;
`,
	// 3: snapshots of a session's state (the engine's encoding, never read
	// here) and the permission requests of running turns, which any
	// process may answer.
	`
-- A rowid table, unlike the others: a snapshot is large, and SQLite keeps
-- the rows of a WITHOUT ROWID table inside its b-tree pages. At most two
-- rows per session (snapshot.go); the latest is found through the primary
-- key.
CREATE TABLE snapshots (
	session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	data       BLOB    NOT NULL,
	created_at INTEGER NOT NULL, -- Unix nanoseconds, UTC
	PRIMARY KEY (session_id, seq)
);

-- host and pid are the asking process's, compared with the session's lease
-- to tell whether the turn that asked still runs. allow … ended_at are
-- set when the request ends: the answer (state answered) or nothing
-- (withdrawn); ended_by is the answer's author or why it was withdrawn.
CREATE TABLE approvals (
	id           TEXT    NOT NULL PRIMARY KEY,
	session_id   TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	number       INTEGER NOT NULL,
	call_id      TEXT    NOT NULL,
	tool         TEXT    NOT NULL,
	summary      TEXT    NOT NULL,
	risk         TEXT    NOT NULL,
	sandboxed    INTEGER NOT NULL,
	requested_at INTEGER NOT NULL,
	host         TEXT    NOT NULL,
	pid          INTEGER NOT NULL,
	state        TEXT    NOT NULL CHECK (state IN ('pending', 'answered', 'withdrawn')),
	allow        INTEGER NOT NULL DEFAULT 0,
	remember     INTEGER NOT NULL DEFAULT 0,
	network      INTEGER NOT NULL DEFAULT 0,
	reason       TEXT    NOT NULL DEFAULT '',
	ended_by     TEXT    NOT NULL DEFAULT '',
	ended_at     INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
-- The pending requests of one session, oldest first; also what Delete and
-- the foreign key's cascade look up by session.
CREATE INDEX approvals_by_session ON approvals (session_id, state, requested_at, number);
-- The pending requests of every session, oldest first.
CREATE INDEX approvals_pending ON approvals (requested_at, session_id, number) WHERE state = 'pending';
`,
	// 4: the audit heads of a session read without its events. audit_mac
	// came last (migration 2), after each event's data, so reading the
	// heads walked every event's whole row; this covering index holds
	// them in seq order, and continuing a long session reads them alone.
	`CREATE INDEX events_audit_heads ON events (session_id, seq, audit_mac);`,
}

// migrate brings the schema to len(migrations), one transaction per
// migration, so that several processes opening a new file at once apply
// each migration exactly once.
func (s *SQLite) migrate(ctx context.Context) error {
	for {
		done, err := s.migrateStep(ctx)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// migrateStep applies the next migration, if any; done reports that none
// was left.
func (s *SQLite) migrateStep(ctx context.Context) (done bool, err error) {
	fail := func(err error) (bool, error) {
		return false, s.dbErr("migrate session database "+s.path, err)
	}
	tx, err := s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE: one migrator at a time
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	var tables, known int
	err = tx.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE name = 'schema_migrations')
		FROM sqlite_schema WHERE type = 'table'`).Scan(&tables, &known)
	if err != nil {
		return fail(err)
	}
	version := 0
	if known == 0 {
		if tables > 0 {
			return false, corrupt(s.path, errors.New("it has tables but no schema_migrations"))
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE schema_migrations (
			version    INTEGER NOT NULL PRIMARY KEY,
			applied_at TEXT    NOT NULL
		)`); err != nil {
			return fail(err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
			return fail(err)
		}
	} else if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&version); err != nil {
		return fail(err)
	}
	switch {
	case version > len(migrations):
		return false, fmt.Errorf("session database %s: database schema version %d is newer than this Moteur (%d); upgrade Moteur",
			s.path, version, len(migrations))
	case version == len(migrations):
		return true, nil // the deferred rollback writes nothing
	}
	if _, err := tx.ExecContext(ctx, migrations[version]); err != nil {
		return fail(fmt.Errorf("migration %d: %w", version+1, err))
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`,
		version+1, s.now().UTC().Format(time.RFC3339)); err != nil {
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return version+1 == len(migrations), nil
}
