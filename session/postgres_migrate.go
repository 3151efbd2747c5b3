package session

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// pgMigrations is the PostgreSQL schema's history: pgMigrations[i] takes a
// schema from version i to version i+1. Append only; never edit a migration
// that has shipped. The tables are those of SQLite (migrate.go) with
// PostgreSQL's types; ids compare bytewise (COLLATE "C"), as in SQLite, so
// that List orders and pages sessions alike on both.
var pgMigrations = []string{
	// 1: sessions, their events and audit heads, leases, snapshots and
	// permission requests.
	`
CREATE TABLE sessions (
	id           text   COLLATE "C" NOT NULL PRIMARY KEY,
	title        text   NOT NULL DEFAULT '',
	project_root text   COLLATE "C" NOT NULL DEFAULT '',
	agent        text   NOT NULL DEFAULT '',
	parent_id    text   COLLATE "C" NOT NULL DEFAULT '',
	fork_seq     bigint NOT NULL DEFAULT 0,
	created_at   bigint NOT NULL, -- Unix nanoseconds, UTC
	updated_at   bigint NOT NULL,
	last_seq     bigint NOT NULL,
	events       bigint NOT NULL
);
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id DESC);
CREATE INDEX sessions_by_project ON sessions (project_root, updated_at DESC, id DESC);

-- data is the JSON of the event exactly as json.Marshal wrote it (text, not
-- jsonb, which would not keep its bytes); audit_mac the head of the audit
-- chain after it, NULL for none. The primary key is what makes a seq won
-- once, whatever the writers.
CREATE TABLE events (
	session_id text   COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        bigint NOT NULL CHECK (seq > 0),
	type       text   NOT NULL,
	time       bigint NOT NULL,
	data       text   NOT NULL,
	audit_mac  bytea  CHECK (length(audit_mac) = 32),
	PRIMARY KEY (session_id, seq)
);
-- The audit heads of a session read without its events.
CREATE INDEX events_audit_heads ON events (session_id, seq) INCLUDE (audit_mac);

-- No foreign key: a lease may be taken before the session's first event.
-- token is the lease's fencing token, from lease_tokens: every Acquire
-- draws a new, larger one. A lease is live while expires_at (its last
-- heartbeat plus its holder's TTL) is not past.
CREATE SEQUENCE lease_tokens;
CREATE TABLE leases (
	session_id   text   COLLATE "C" NOT NULL PRIMARY KEY,
	host         text   NOT NULL,
	pid          bigint NOT NULL,
	token        bigint NOT NULL,
	acquired_at  bigint NOT NULL,
	heartbeat_at bigint NOT NULL,
	expires_at   bigint NOT NULL
);

-- At most two rows per session (snapshot.go).
CREATE TABLE snapshots (
	session_id text   COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        bigint NOT NULL,
	data       bytea  NOT NULL,
	created_at bigint NOT NULL,
	PRIMARY KEY (session_id, seq)
);

-- As SQLite's approvals (migrate.go, migration 3).
CREATE TABLE approvals (
	id           text    COLLATE "C" NOT NULL PRIMARY KEY,
	session_id   text    COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	number       bigint  NOT NULL,
	call_id      text    NOT NULL,
	tool         text    NOT NULL,
	summary      text    NOT NULL,
	risk         text    NOT NULL,
	sandboxed    boolean NOT NULL,
	requested_at bigint  NOT NULL,
	host         text    NOT NULL,
	pid          bigint  NOT NULL,
	state        text    NOT NULL CHECK (state IN ('pending', 'answered', 'withdrawn')),
	allow        boolean NOT NULL DEFAULT false,
	remember     boolean NOT NULL DEFAULT false,
	network      boolean NOT NULL DEFAULT false,
	reason       text    NOT NULL DEFAULT '',
	ended_by     text    NOT NULL DEFAULT '',
	ended_at     bigint  NOT NULL DEFAULT 0
);
CREATE INDEX approvals_by_session ON approvals (session_id, state, requested_at, number);
CREATE INDEX approvals_pending ON approvals (requested_at, session_id, number) WHERE state = 'pending';
`,
}

// migrate brings the schema to len(pgMigrations) in one transaction that
// holds a transaction-level advisory lock of the schema: of several
// processes opening a new database at once, one migrates and the others,
// waiting on the lock, then find nothing left to do. DDL is transactional
// in PostgreSQL, so a migration that fails leaves nothing behind.
func (s *Postgres) migrate(ctx context.Context) error {
	what := fmt.Sprintf("migrate session database %s (schema %s)", s.name, s.schema)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.dbErr("open session database "+s.name, err)
	}
	defer rollback(tx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1::int, hashtext($2))`, applicationID, s.schema); err != nil {
		return s.dbErr(what, err)
	}
	var schemaExists, versioned bool
	var tables int
	err = tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1),
			EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'schema_migrations'),
			(SELECT count(*) FROM pg_tables WHERE schemaname = $1)`, s.schema).
		Scan(&schemaExists, &versioned, &tables)
	if err != nil {
		return s.dbErr(what, err)
	}
	// Created only when missing: CREATE SCHEMA IF NOT EXISTS would still
	// need the right to create one, which a deployment may not grant.
	if !schemaExists {
		if _, err := tx.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{s.schema}.Sanitize()); err != nil {
			return s.dbErr(what, err)
		}
	}
	version := 0
	switch {
	case !versioned && tables > 0:
		return fmt.Errorf("%s: schema %s has tables but no schema_migrations: it is not Moteur's; choose another schema", what, s.schema)
	case !versioned:
		if _, err := tx.Exec(ctx, `CREATE TABLE schema_migrations (
			version    integer     NOT NULL PRIMARY KEY,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return s.dbErr(what, err)
		}
	default:
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&version); err != nil {
			return s.dbErr(what, err)
		}
	}
	switch {
	case version > len(pgMigrations):
		return fmt.Errorf("session database %s (schema %s): database schema version %d is newer than this Moteur (%d); upgrade Moteur",
			s.name, s.schema, version, len(pgMigrations))
	case version == len(pgMigrations) && versioned:
		return nil // the deferred rollback writes nothing
	}
	for v := version; v < len(pgMigrations); v++ {
		if _, err := tx.Exec(ctx, pgMigrations[v]); err != nil {
			return s.dbErr(what, fmt.Errorf("migration %d: %w", v+1, err))
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, v+1); err != nil {
			return s.dbErr(what, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return s.commitErr(what, err)
	}
	return nil
}
