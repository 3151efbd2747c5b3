package agentstore

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

// pgMigrations are migrations on PostgreSQL, one for one. The name's
// collation ignores case as SQLite's NOCASE does (ICU's, so beyond ASCII
// too), for the unique key and for every comparison.
var pgMigrations = []string{
	// 1: the agents.
	`
CREATE COLLATION IF NOT EXISTS nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE agents (
	id          text   COLLATE "C" NOT NULL PRIMARY KEY,
	name        text   COLLATE nocase NOT NULL UNIQUE,
	description text   NOT NULL DEFAULT '',
	config      text   NOT NULL,
	created_at  bigint NOT NULL, -- Unix nanoseconds, UTC
	updated_at  bigint NOT NULL
);
`,
}
