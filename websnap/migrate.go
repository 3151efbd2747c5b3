package websnap

// migrations is the snapshots schema's history: migrations[i] takes it
// from version i to i+1. Append only; never edit one that shipped.
var migrations = []string{
	// 1: the snapshots. A rowid table, not WITHOUT ROWID: a row holds a
	// whole page's text, far more than such a table's rows should. seq,
	// the rowid, orders the puts of a session: the cap drops the lowest.
	// The unique index finds a snapshot by path and a session's rows for
	// the cap and for removal.
	`
CREATE TABLE web_snapshots (
	seq        INTEGER PRIMARY KEY,
	session_id TEXT    NOT NULL,
	path       TEXT    NOT NULL, -- web://HOST/ID.md
	url        TEXT    NOT NULL, -- masked, as the title and the text
	final_url  TEXT    NOT NULL,
	title      TEXT    NOT NULL,
	format     TEXT    NOT NULL,
	text       TEXT    NOT NULL,
	truncated  INTEGER NOT NULL,
	fetched_at INTEGER NOT NULL, -- Unix nanoseconds, UTC; 0 when unknown
	stored_at  INTEGER NOT NULL  -- Unix nanoseconds, UTC
);
CREATE UNIQUE INDEX web_snapshots_path ON web_snapshots (session_id, path);
`,
}

// pgMigrations are migrations on PostgreSQL, one for one: seq is drawn
// from an identity column where SQLite's rowid does it.
var pgMigrations = []string{
	// 1: the snapshots.
	`
CREATE TABLE web_snapshots (
	seq        bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	session_id text    COLLATE "C" NOT NULL,
	path       text    COLLATE "C" NOT NULL, -- web://HOST/ID.md
	url        text    NOT NULL, -- masked, as the title and the text
	final_url  text    NOT NULL,
	title      text    NOT NULL,
	format     text    NOT NULL,
	text       text    NOT NULL,
	truncated  boolean NOT NULL,
	fetched_at bigint  NOT NULL, -- Unix nanoseconds, UTC; 0 when unknown
	stored_at  bigint  NOT NULL  -- Unix nanoseconds, UTC
);
CREATE UNIQUE INDEX web_snapshots_path ON web_snapshots (session_id, path);
`,
}
