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
