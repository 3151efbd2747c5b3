package kb

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// migrations is the knowledge-base schema's history, versioned in
// kb_migrations apart from the session schema. Append only.
//
// Each base has its own keyword index, so that BM25's statistics (document
// count, average length, IDF) are the base's own: a raw base an FTS5 table
// (kb_fts_<rowid>), contentless (the text lives once, in kb_chunks); an
// analysed base (moteur, or snowball since migration 4), since migration
// 3, its rows of kb_terms, which Moteur reads into an inverted index in
// memory (postings.go). Before migration 3 every base had an FTS5 table
// and an fts5vocab table beside it.
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
	// Each chunk's term frequencies per column (postings.go), from which
	// searches build the base's inverted index in memory. Filled for the
	// bases that exist by backfillTerms.
	`
CREATE TABLE IF NOT EXISTS kb_terms (
	kb    INTEGER NOT NULL REFERENCES kbs (rowid) ON DELETE CASCADE,
	chunk INTEGER NOT NULL, -- kb_chunks rowid, deleted with it (deleteDocument)
	tf    BLOB    NOT NULL,
	PRIMARY KEY (kb, chunk)
) WITHOUT ROWID;
`,
	// Each document's language (ISO 639-1), detected at ingestion, by
	// which a snowball base stems it and analyses its queries; '' when not
	// told, as for every document stored before: no base before this one
	// was a snowball base, and the others do not read it.
	`ALTER TABLE kb_documents ADD COLUMN language TEXT NOT NULL DEFAULT '';`,
}

// migrationSteps are the migrations' parts in Go, run after the SQL of the
// same version (1-based) in its transaction.
var migrationSteps = map[int]func(ctx context.Context, tx *sql.Tx) error{
	3: backfillTerms,
}

// backfillTerms fills kb_terms for the chunks of Moteur-analysed keyword
// bases stored before it existed, from their text, heading path and
// document title analysed as writeDocument analyses them, drops their FTS5
// tables, and bumps each base's generation so that every process rebuilds
// its caches.
func backfillTerms(ctx context.Context, tx *sql.Tx) error {
	var bases []Base
	rows, err := tx.QueryContext(ctx, `SELECT `+baseHeadColumns+` FROM kbs k WHERE k.keyword AND k.analyzer != 'raw'`)
	if err != nil {
		return err
	}
	for rows.Next() {
		b, err := scanBaseHead(rows)
		if err != nil {
			rows.Close()
			return err
		}
		bases = append(bases, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, b := range bases {
		rows, err := tx.QueryContext(ctx, `SELECT c.rowid, d.title, c.headings, c.text
			FROM kb_chunks c JOIN kb_documents d ON d.rowid = c.doc WHERE c.kb = ? ORDER BY c.rowid`, b.rowid)
		if err != nil {
			return err
		}
		type entry struct {
			row int64
			tf  []byte
		}
		var todo []entry
		for rows.Next() {
			var row int64
			var title, heads, text string
			if err := rows.Scan(&row, &title, &heads, &text); err != nil {
				rows.Close()
				return err
			}
			// No snowball base exists before migration 4: no language.
			ct := chunkTerms{indexTerms(b, "", title), indexTerms(b, "", heads), indexTerms(b, "", text)}
			todo = append(todo, entry{row, encodeTerms(ct)})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, e := range todo {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO kb_terms (kb, chunk, tf) VALUES (?, ?, ?)`, b.rowid, e.row, e.tf); err != nil {
				return err
			}
		}
		// The FTS5 tables it replaces: nothing reads them any more, and
		// nothing would keep them up to date.
		for _, t := range []string{vocabTable(b.rowid), ftsTable(b.rowid)} {
			if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+t); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE kbs SET generation = generation + 1 WHERE rowid = ?`, b.rowid); err != nil {
			return err
		}
	}
	return nil
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
	if step := migrationSteps[version+1]; step != nil {
		if err := step(ctx, tx); err != nil {
			return false, fmt.Errorf("migration %d: %w", version+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO kb_migrations (version, applied_at) VALUES (?, ?)`,
		version+1, s.now().UTC().Format(time.RFC3339)); err != nil {
		return false, err
	}
	return version+1 == len(migrations), tx.Commit()
}
