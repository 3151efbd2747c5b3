package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/moteur/moteur/kb/analyze"
	"github.com/moteur/moteur/kb/chunk"
)

// Capability names an index or a kind of content a base offers (seed 000:
// vector / keyword / wiki / graph / faq). Moteur's bases have the first two.
type Capability string

// Capabilities.
const (
	CapVector  Capability = "vector"
	CapKeyword Capability = "keyword"
)

// Analyzers of a base's keyword index.
const (
	// AnalyzerMoteur folds case and accents, drops French and English stop
	// words and elisions, stems lightly, and keeps identifiers whole.
	AnalyzerMoteur = "moteur"
	// AnalyzerSnowball is the Moteur analysis with each document stemmed
	// by the Snowball stemmer of its language, detected at ingestion, and
	// each query analysed in its own language and in the documents'.
	AnalyzerSnowball = "snowball"
	// AnalyzerRaw only folds case and splits words, as FTS5's unicode61
	// tokenizer does: BM25 exactly as SQLite computes it.
	AnalyzerRaw = "raw"
)

// DefaultAnalyzer is the analyzer of a base created without one: snowball,
// measured on the store with kb/kbeval against moteur (nDCG@10, keyword
// search, default settings): mean 0.756 against 0.748; moteur-fr-en 0.846
// / 0.845, man-en 0.891 / 0.894 (the one set behind, by less than its
// noise), man-i18n 0.614 / 0.601, go-doc 0.672 / 0.650.
const DefaultAnalyzer = AnalyzerSnowball

// Base is one knowledge base.
type Base struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	Analyzer    string       `json:"analyzer"`
	Keyword     bool         `json:"keyword"`
	EmbedModel  string       `json:"embed_model,omitempty"`
	EmbedDims   int          `json:"embed_dims,omitempty"`
	Chunking    chunk.Config `json:"chunking"`
	Documents   int          `json:"documents"`
	Chunks      int          `json:"chunks"`
	Bytes       int64        `json:"bytes"`
	CreatedAt   time.Time    `json:"created_at"`
	UpdatedAt   time.Time    `json:"updated_at"`

	rowid      int64
	generation int64
}

// Capabilities lists the indexes the base has.
func (b Base) Capabilities() []Capability {
	var c []Capability
	if b.EmbedModel != "" {
		c = append(c, CapVector)
	}
	if b.Keyword {
		c = append(c, CapKeyword)
	}
	return c
}

// MarshalJSON writes the base with its capabilities, for scripts reading
// moteur kb list --json.
func (b Base) MarshalJSON() ([]byte, error) {
	type fields Base // without this method
	return json.Marshal(struct {
		fields
		Capabilities []Capability `json:"capabilities"`
	}{fields(b), b.Capabilities()})
}

// Has reports whether the base has capability c.
func (b Base) Has(c Capability) bool {
	switch c {
	case CapVector:
		return b.EmbedModel != ""
	case CapKeyword:
		return b.Keyword
	}
	return false
}

// CreateOptions describes a new base. Zero values are defaults.
type CreateOptions struct {
	Description string
	// Analyzer is DefaultAnalyzer when empty, else AnalyzerMoteur,
	// AnalyzerSnowball or AnalyzerRaw.
	Analyzer string
	// NoKeyword creates a base without a keyword index (vector only); it
	// needs an embedder.
	NoKeyword bool
	// NoVectors creates a base without vectors even when an embedder is
	// configured.
	NoVectors bool
	Chunking  chunk.Config
}

// ErrNotFound is returned for a base or document that does not exist.
var ErrNotFound = errors.New("not found")

// ErrExists is returned when creating a base whose name is taken.
var ErrExists = errors.New("already exists")

// namePattern is compiled on first use: its Unicode classes cost about
// 2 ms at start-up, paid by every command otherwise.
var namePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}._-]{0,63}$`)
})

// CheckName checks a base name: 1 to 64 letters, digits, '.', '_' or '-',
// starting with a letter or digit (it appears in commands and in aliases
// shown to users).
func CheckName(name string) error {
	if !namePattern().MatchString(name) {
		return fmt.Errorf("invalid knowledge base name %q: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// Create makes a new, empty base.
func (s *Store) Create(ctx context.Context, name string, opt CreateOptions) (Base, error) {
	if err := CheckName(name); err != nil {
		return Base{}, err
	}
	if err := opt.Chunking.Validate(); err != nil {
		return Base{}, fmt.Errorf("create knowledge base %s: %w", name, err)
	}
	b := Base{ID: "kb-" + s.newID(), Name: name, Description: opt.Description, Analyzer: opt.Analyzer,
		Keyword: !opt.NoKeyword, Chunking: opt.Chunking.Resolved()}
	if b.Analyzer == "" {
		b.Analyzer = DefaultAnalyzer
	}
	switch b.Analyzer {
	case AnalyzerMoteur, AnalyzerSnowball, AnalyzerRaw:
	default:
		return Base{}, fmt.Errorf("create knowledge base %s: unknown analyzer %q (want %q, %q or %q)",
			name, b.Analyzer, AnalyzerMoteur, AnalyzerSnowball, AnalyzerRaw)
	}
	if s.embedder != nil && !opt.NoVectors {
		b.EmbedModel = s.embedder.Model()
	}
	if !b.Keyword && b.EmbedModel == "" {
		return Base{}, fmt.Errorf("create knowledge base %s: without a keyword index it needs vectors, and no embedding model is configured (set MOTEUR_EMBED_MODEL)", name)
	}
	now := s.now().UTC()
	b.CreatedAt, b.UpdatedAt = now, now
	err := s.write(ctx, func(tx *sql.Tx) error {
		var taken int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM kbs WHERE name = ?`, name).Scan(&taken); err != nil {
			return err
		}
		if taken > 0 {
			return ErrExists
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO kbs (id, name, description, analyzer, keyword, embed_model,
			chunk_size, chunk_overlap, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			b.ID, b.Name, b.Description, b.Analyzer, b.Keyword, b.EmbedModel,
			b.Chunking.Size, b.Chunking.Overlap, now.UnixNano(), now.UnixNano())
		if err != nil {
			return err
		}
		if b.rowid, err = res.LastInsertId(); err != nil {
			return err
		}
		if ftsIndexed(b) {
			_, err = tx.ExecContext(ctx, ftsDDL(ftsTable(b.rowid), b.Analyzer))
		}
		return err
	})
	if err != nil {
		return Base{}, fmt.Errorf("create knowledge base %s: %w", name, err)
	}
	return b, nil
}

// ftsTable names a base's FTS5 table.
func ftsTable(rowid int64) string { return fmt.Sprintf("kb_fts_%d", rowid) }

// ftsDDL is the DDL of an FTS5 table named table holding a base's passages
// as analyzer stores them: three columns (document title, heading path,
// body), weighted by bm25(). A raw base's keyword index is such a table:
// the text under SQLite's default tokenizer, so that its BM25 is SQLite's
// own. A Moteur base's index is kb_terms (postings.go); its text as an FTS5
// table would hold it, analysed terms that analyze.Tokenizer splits back
// exactly, is what the tests compare that index with.
func ftsDDL(table, analyzer string) string {
	tok := strings.ReplaceAll(analyze.Tokenizer, "'", "''")
	if analyzer == AnalyzerRaw {
		tok = "unicode61"
	}
	return fmt.Sprintf(`CREATE VIRTUAL TABLE %s USING fts5(title, headings, body,
		content='', contentless_delete=1, tokenize='%s')`, table, tok)
}

// ftsIndexed reports whether base b's keyword index is an FTS5 table.
func ftsIndexed(b Base) bool { return b.Keyword && b.Analyzer == AnalyzerRaw }

// vocabTable names the fts5vocab table that bases had before kb_terms (the
// terms' passage counts); dropped with its base.
// vocabTable names a base's fts5vocab table.
func vocabTable(rowid int64) string { return ftsTable(rowid) + "_v" }

// baseHeadColumns are a base's own columns; baseSumColumns its sums over
// its documents, which cost a scan of them (14.5 ms at 16,600 documents)
// and are cached per generation (baseSums).
const (
	baseHeadColumns = `k.rowid, k.id, k.name, k.description, k.analyzer, k.keyword, k.embed_model, k.embed_dims,
	k.chunk_size, k.chunk_overlap, k.generation, k.created_at, k.updated_at`
	baseSumColumns = `k.generation,
	(SELECT count(*) FROM kb_documents d WHERE d.kb = k.rowid),
	(SELECT coalesce(sum(d.chunks), 0) FROM kb_documents d WHERE d.kb = k.rowid),
	(SELECT coalesce(sum(d.size), 0) FROM kb_documents d WHERE d.kb = k.rowid)`
)

type scanner interface{ Scan(...any) error }

func scanBaseHead(r scanner) (Base, error) {
	var b Base
	var created, updated int64
	err := r.Scan(&b.rowid, &b.ID, &b.Name, &b.Description, &b.Analyzer, &b.Keyword, &b.EmbedModel, &b.EmbedDims,
		&b.Chunking.Size, &b.Chunking.Overlap, &b.generation, &created, &updated)
	b.CreatedAt, b.UpdatedAt = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	return b, err
}

// baseSums are a base's document, chunk and byte counts as of one
// generation. Every committed change to a base's documents bumps its
// generation in the same transaction (bump), so sums read with generation
// g are right for as long as the base is at g, in any process.
type baseSums struct {
	generation        int64
	documents, chunks int
	bytes             int64
}

// withSums fills b's sums from the cache, or reads them when the cache is
// not at b's generation. The sums and the generation they belong to are
// read in one statement, hence from one snapshot.
func (s *Store) withSums(ctx context.Context, b Base) (Base, error) {
	s.sumMu.Lock()
	c, ok := s.sums[b.ID]
	s.sumMu.Unlock()
	if !ok || c.generation != b.generation {
		err := s.r.QueryRowContext(ctx, `SELECT `+baseSumColumns+` FROM kbs k WHERE k.rowid = ?`, b.rowid).
			Scan(&c.generation, &c.documents, &c.chunks, &c.bytes)
		if err != nil {
			return b, err
		}
		s.sumMu.Lock()
		if old, ok := s.sums[b.ID]; !ok || old.generation <= c.generation {
			s.sums[b.ID] = c
		}
		s.sumMu.Unlock()
	}
	b.Documents, b.Chunks, b.Bytes = c.documents, c.chunks, c.bytes
	return b, nil
}

// baseQuery reads the head of the base named ?1 or whose id is ?1; every
// search runs it, so it is prepared once per store.
const baseQuery = `SELECT ` + baseHeadColumns + ` FROM kbs k WHERE k.name = ?1 OR k.id = ?1`

// Base returns the base named name (or whose id is name).
func (s *Store) Base(ctx context.Context, name string) (Base, error) {
	st, err := s.prepared(ctx, baseQuery)
	if err != nil {
		return Base{}, fmt.Errorf("knowledge base %s: %w", name, err)
	}
	b, err := scanBaseHead(st.QueryRowContext(ctx, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Base{}, fmt.Errorf("knowledge base %s %w (see moteur kb list)", name, ErrNotFound)
	}
	if err == nil {
		b, err = s.withSums(ctx, b)
	}
	if err != nil {
		return Base{}, fmt.Errorf("knowledge base %s: %w", name, err)
	}
	return b, nil
}

// List returns every base, by name.
func (s *Store) List(ctx context.Context) ([]Base, error) {
	out, err := queryAll(ctx, s.r, scanBaseHead, `SELECT `+baseHeadColumns+` FROM kbs k ORDER BY k.name`)
	if err != nil {
		return nil, fmt.Errorf("list knowledge bases: %w", err)
	}
	for i := range out {
		if out[i], err = s.withSums(ctx, out[i]); err != nil {
			return nil, fmt.Errorf("list knowledge bases: %w", err)
		}
	}
	return out, nil
}

// Remove deletes a base, its documents, chunks and indexes.
func (s *Store) Remove(ctx context.Context, name string) error {
	b, err := s.Base(ctx, name)
	if err != nil {
		return err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		for _, t := range []string{vocabTable(b.rowid), ftsTable(b.rowid)} {
			if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+t); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM kbs WHERE rowid = ?`, b.rowid)
		return err
	})
	if err != nil {
		return fmt.Errorf("remove knowledge base %s: %w", name, err)
	}
	s.dropVectors(b.ID)
	s.dropKeywordIndex(b.ID)
	s.sumMu.Lock()
	delete(s.sums, b.ID)
	s.sumMu.Unlock()
	return nil
}

// write runs fn in one write transaction.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
