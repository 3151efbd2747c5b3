package kb

import (
	"context"
	"fmt"
	"time"
)

// migrations is the knowledge-base schema's history, versioned in
// kb_migrations apart from the session schema. Append only.
//
// Each base has its own FTS5 table (kb_fts_<rowid>), created with the base,
// so that BM25's statistics (document count, average length, IDF) are the
// base's own. Those tables are contentless: the text lives once, in
// kb_chunks; the FTS table holds the analysed terms' index only.
var migrations = []string{
	`
CREATE TABLE kbs (
	rowid         INTEGER PRIMARY KEY,
	id            TEXT    NOT NULL UNIQUE,
	name          TEXT    NOT NULL UNIQUE,
	description   TEXT    NOT NULL DEFAULT '',
	analyzer      TEXT    NOT NULL,           -- "moteur" or "raw"
	keyword       INTEGER NOT NULL,           -- has a keyword index
	embed_model   TEXT    NOT NULL DEFAULT '', -- "" = no vectors
	embed_dims    INTEGER NOT NULL DEFAULT 0,
	chunk_size    INTEGER NOT NULL,
	chunk_overlap INTEGER NOT NULL,
	generation    INTEGER NOT NULL DEFAULT 0, -- bumped by every change
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL
);
CREATE TABLE kb_documents (
	rowid       INTEGER PRIMARY KEY,
	id          TEXT    NOT NULL UNIQUE,
	kb          INTEGER NOT NULL REFERENCES kbs (rowid) ON DELETE CASCADE,
	path        TEXT    NOT NULL,
	title       TEXT    NOT NULL,
	format      TEXT    NOT NULL,
	sha256      TEXT    NOT NULL,
	size        INTEGER NOT NULL,
	chunks      INTEGER NOT NULL,
	warnings    TEXT    NOT NULL DEFAULT '',
	meta        TEXT    NOT NULL DEFAULT '{}',
	classified  TEXT    NOT NULL DEFAULT '', -- the classification rule its path matched
	ingested_at INTEGER NOT NULL,
	UNIQUE (kb, path)
);
CREATE TABLE kb_chunks (
	rowid     INTEGER PRIMARY KEY,
	id        TEXT    NOT NULL UNIQUE,
	kb        INTEGER NOT NULL REFERENCES kbs (rowid) ON DELETE CASCADE,
	doc       INTEGER NOT NULL REFERENCES kb_documents (rowid) ON DELETE CASCADE,
	idx       INTEGER NOT NULL,
	kind      TEXT    NOT NULL,
	headings  TEXT    NOT NULL,
	text      TEXT    NOT NULL,
	start     INTEGER NOT NULL,
	terms     TEXT    NOT NULL,  -- analysed body terms, for MMR without vectors
	embedding BLOB,              -- float32 little-endian, unit length
	UNIQUE (doc, idx)
);
CREATE INDEX kb_chunks_by_kb ON kb_chunks (kb);
`,
	// The page where a chunk starts, for documents with pages (PDF); 0
	// when unknown, as for the chunks stored before.
	`ALTER TABLE kb_chunks ADD COLUMN page INTEGER NOT NULL DEFAULT 0;`,
}

// migrate brings the schema up to date, one transaction per migration.
func (s *Store) migrate(ctx context.Context) error {
	for {
		done, err := s.migrateStep(ctx)
		if err != nil {
			return fmt.Errorf("migrate knowledge bases in %s: %w", s.path, err)
		}
		if done {
			return nil
		}
	}
}

func (s *Store) migrateStep(ctx context.Context) (done bool, err error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS kb_migrations (
		version INTEGER NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return false, err
	}
	var version int
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM kb_migrations`).Scan(&version); err != nil {
		return false, err
	}
	switch {
	case version > len(migrations):
		return false, fmt.Errorf("knowledge-base schema version %d is newer than this Moteur (%d); upgrade Moteur", version, len(migrations))
	case version == len(migrations):
		return true, tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, migrations[version]); err != nil {
		return false, fmt.Errorf("migration %d: %w", version+1, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO kb_migrations (version, applied_at) VALUES (?, ?)`,
		version+1, s.now().UTC().Format(time.RFC3339)); err != nil {
		return false, err
	}
	return version+1 == len(migrations), tx.Commit()
}
