package kbeval

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/moteur/moteur/kb/analyze"
	"github.com/moteur/moteur/kb/beir"
	"github.com/moteur/moteur/kb/chunk"
	"github.com/moteur/moteur/kb/parse"
	_ "modernc.org/sqlite" // the FTS5 index
)

// Analysis names how the keyword index analyses documents and queries,
// as a base's analyzer does.
type Analysis string

const (
	// AnalysisMoteur is the "moteur" analyzer: folding, French and English
	// stop words, the light stemmer of kb/analyze.
	AnalysisMoteur Analysis = "moteur"
	// AnalysisSnowball detects each document's language and stems it with
	// that language's Snowball stemmer; queries are analysed in their own
	// language and in the documents' (analyze.QueryTermsIn).
	AnalysisSnowball Analysis = "snowball"
	// AnalysisRaw is the "raw" analyzer: FTS5's unicode61 over the text.
	AnalysisRaw Analysis = "raw"
)

// Weights are the bm25() column weights of title, heading path and body.
type Weights struct{ Title, Headings, Body float64 }

// MoteurWeights are the weights of kb/keyword.go for analysed bases.
var MoteurWeights = Weights{Title: 3, Headings: 1.5, Body: 1}

// KeywordOptions configure a KeywordIndex's ranking. Zero values are
// defaults.
type KeywordOptions struct {
	// Weights of bm25(); zero is MoteurWeights for an analysed index and
	// 1, 1, 1 (plain bm25()) for a raw one.
	Weights Weights
	// Threshold drops the passages whose score divided by the best is
	// below it, as retrieval's keyword_threshold does; 0 keeps them all.
	Threshold float64
	// TopK is the passages read from the index per query; 0 is 30, the
	// default top_k.
	TopK int
}

// KeywordIndex is a set's corpus indexed as a knowledge base's keyword
// index is: each document parsed as text and chunked with the default
// chunking, one FTS5 row per passage holding (title, heading path, body)
// analysed, ranked by weighted bm25() after leaving out the terms half the
// passages hold. It is the keyword stage of kb.Store.Search without the
// store, so that analyses, weights and thresholds that no base offers yet
// can be measured on the same passages. Rank may be called from one
// goroutine at a time.
type KeywordIndex struct {
	db       *sql.DB
	analysis Analysis
	docs     []string                 // passage row − 1 → document ID
	langs    map[analyze.Language]int // documents by language, for queries
	rows     int64
}

// NewKeywordIndex indexes set's corpus in an in-memory SQLite database.
func NewKeywordIndex(ctx context.Context, set beir.Set, a Analysis) (*KeywordIndex, error) {
	if a == "" {
		a = AnalysisMoteur
	}
	if a != AnalysisMoteur && a != AnalysisSnowball && a != AnalysisRaw {
		return nil, fmt.Errorf("keyword index: unknown analysis %q (want %q, %q or %q)", a, AnalysisMoteur, AnalysisSnowball, AnalysisRaw)
	}
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, fmt.Errorf("keyword index: %w", err)
	}
	db.SetMaxOpenConns(1) // each connection to :memory: is its own database
	ix := &KeywordIndex{db: db, analysis: a}
	if err := ix.build(ctx, set); err != nil {
		db.Close()
		return nil, err
	}
	return ix, nil
}

// Close frees the index.
func (ix *KeywordIndex) Close() error { return ix.db.Close() }

func (ix *KeywordIndex) build(ctx context.Context, set beir.Set) error {
	tok := strings.ReplaceAll(analyze.Tokenizer, "'", "''")
	if ix.analysis == AnalysisRaw {
		tok = "unicode61"
	}
	if _, err := ix.db.ExecContext(ctx, `CREATE VIRTUAL TABLE fts USING fts5(title, headings, body, tokenize='`+tok+`')`); err != nil {
		return fmt.Errorf("keyword index: %w", err)
	}
	if _, err := ix.db.ExecContext(ctx, `CREATE VIRTUAL TABLE vocab USING fts5vocab(fts, row)`); err != nil {
		return fmt.Errorf("keyword index: %w", err)
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("keyword index: %w", err)
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO fts (rowid, title, headings, body) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("keyword index: %w", err)
	}
	defer ins.Close()
	ix.langs = map[analyze.Language]int{}
	for _, d := range set.Corpus {
		doc, err := parse.Bytes("text.txt", []byte(d.Text))
		if err != nil {
			continue // as the store: a document that does not parse is not indexed
		}
		if d.Title != "" {
			doc.Title = d.Title
		}
		var lang analyze.Language
		if ix.analysis == AnalysisSnowball {
			lang = analyze.Detect(d.Title + "\n" + d.Text)
			ix.langs[lang]++
		}
		title := ix.text(doc.Title, lang)
		for _, c := range chunk.Split(doc, chunk.Config{}) {
			ix.rows++
			ix.docs = append(ix.docs, d.ID)
			if _, err := ins.ExecContext(ctx, ix.rows, title, ix.text(strings.Join(c.Headings, " > "), lang), ix.text(c.Text, lang)); err != nil {
				return fmt.Errorf("keyword index: %s: %w", d.ID, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("keyword index: %w", err)
	}
	return nil
}

// text is what a column holds for text in a document of language lang.
func (ix *KeywordIndex) text(text string, lang analyze.Language) string {
	switch ix.analysis {
	case AnalysisRaw:
		return text
	case AnalysisSnowball:
		return analyze.Join(analyze.Terms(text, analyze.Options{Snowball: true, Language: lang}))
	default:
		return analyze.Join(analyze.Terms(text, analyze.Options{}))
	}
}

// Languages counts the corpus's documents by detected language ("" for
// those whose language was not told); empty unless the analysis is
// AnalysisSnowball.
func (ix *KeywordIndex) Languages() map[analyze.Language]int { return ix.langs }

// QueryTerms returns the terms a query is searched with, before the common
// ones are left out.
func (ix *KeywordIndex) QueryTerms(query string) []string {
	switch ix.analysis {
	case AnalysisRaw:
		return analyze.QueryTerms(query, analyze.Options{Raw: true})
	case AnalysisSnowball:
		return analyze.QueryTermsIn(query, ix.langs)
	default:
		return analyze.QueryTerms(query, analyze.Options{})
	}
}

// Rank returns the IDs of the documents of the passages found for query,
// best first, each once.
func (ix *KeywordIndex) Rank(ctx context.Context, query string, opt KeywordOptions) ([]string, error) {
	terms := ix.QueryTerms(query)
	if len(terms) == 0 {
		return nil, nil
	}
	w := opt.Weights
	if w == (Weights{}) {
		w = MoteurWeights
		if ix.analysis == AnalysisRaw {
			w = Weights{1, 1, 1}
		}
	}
	k := opt.TopK
	if k <= 0 {
		k = 30
	}
	if ix.analysis != AnalysisRaw {
		var err error
		if terms, err = ix.dropCommon(ctx, terms); err != nil {
			return nil, err
		}
	}
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	rows, err := ix.db.QueryContext(ctx, fmt.Sprintf(`SELECT rowid, bm25(fts, %g, %g, %g) AS r FROM fts WHERE fts MATCH ? ORDER BY r LIMIT ?`,
		w.Title, w.Headings, w.Body), strings.Join(quoted, " OR "), k)
	if err != nil {
		return nil, fmt.Errorf("keyword rank %q: %w", query, err)
	}
	defer rows.Close()
	var out []string
	seen := map[string]bool{}
	best := 0.0
	for rows.Next() {
		var row int64
		var r float64
		if err := rows.Scan(&row, &r); err != nil {
			return nil, fmt.Errorf("keyword rank %q: %w", query, err)
		}
		score := -r
		if best == 0 {
			best = score
		}
		if best <= 0 || score/best < opt.Threshold {
			break // scores only fall from here
		}
		if id := ix.docs[row-1]; !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, rows.Err()
}

// dropCommon leaves out the terms that half the passages or more hold when
// a rarer term that some passage holds remains, as kb/keyword.go does.
func (ix *KeywordIndex) dropCommon(ctx context.Context, terms []string) ([]string, error) {
	if len(terms) < 2 {
		return terms, nil
	}
	common := map[string]bool{}
	rare := false
	for _, t := range terms {
		var n int64
		err := ix.db.QueryRowContext(ctx, `SELECT doc FROM vocab WHERE term = ?`, t).Scan(&n)
		if err != nil && err != sql.ErrNoRows {
			return nil, fmt.Errorf("keyword rank: %w", err)
		}
		common[t] = 2*n >= ix.rows
		rare = rare || (n > 0 && !common[t])
	}
	if !rare {
		return terms, nil
	}
	var kept []string
	for _, t := range terms {
		if !common[t] {
			kept = append(kept, t)
		}
	}
	return kept, nil
}

// EvaluateKeyword scores ix's ranking of set's queries with opt.
func EvaluateKeyword(ctx context.Context, ix *KeywordIndex, set beir.Set, name string, opt KeywordOptions) (Scores, error) {
	return score(set, name, func(q beir.Query) ([]string, error) { return ix.Rank(ctx, q.Text, opt) })
}
