package apikey

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

// pgMigrations are migrations on PostgreSQL, one for one.
var pgMigrations = []string{
	// 1: the keys.
	`
CREATE TABLE api_keys (
	id         text    COLLATE "C" NOT NULL PRIMARY KEY,
	name       text    COLLATE "C" NOT NULL,
	sha256     bytea   NOT NULL, -- of the whole secret; the secret is never stored
	bases      text    NOT NULL, -- JSON array; [] = every base
	agents     text    NOT NULL, -- JSON array; [] = every agent
	wait       boolean NOT NULL,
	created_at bigint  NOT NULL, -- Unix nanoseconds, UTC
	revoked_at bigint            -- NULL while the key works
);
CREATE UNIQUE INDEX api_keys_active_name ON api_keys (name) WHERE revoked_at IS NULL;
`,
}
