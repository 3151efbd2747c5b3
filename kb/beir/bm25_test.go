package beir

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/analyze"
	_ "modernc.org/sqlite"
)

// bm25Setup is one way of indexing and querying the shipped set with SQLite
// FTS5 and BM25.
type bm25Setup struct {
	name      string
	tokenizer string              // FTS5 tokenize option; "" for FTS5's default (unicode61, diacritics removed)
	column    func(string) string // what a title or text column stores
	query     func(string) []string
	rank      string // ORDER BY expression
}

var (
	rawSetup = bm25Setup{
		name:   "raw",
		column: func(s string) string { return s },
		query:  func(q string) []string { return analyze.QueryTerms(q, analyze.Options{Raw: true}) },
		rank:   "bm25(docs)",
	}
	analysedSetup = bm25Setup{
		name:      "analysed",
		tokenizer: analyze.Tokenizer,
		column:    func(s string) string { return analyze.Join(analyze.Terms(s, analyze.Options{})) },
		query:     func(q string) []string { return analyze.QueryTerms(q, analyze.Options{}) },
		rank:      "bm25(docs, 3.0, 1.0)",
	}
)

// TestAnalysisBeatsRawBM25 measures BM25 on the shipped set (a) over the
// raw text with FTS5's default tokenizer and the raw query words, (b) over
// analysed terms with analysed queries and the title weighted 3, and
// requires (b) to rank better. The other setups are logged to tell the
// share of each ingredient.
func TestAnalysisBeatsRawBM25(t *testing.T) {
	set := loadShipped(t)
	const k = 10
	raw := evaluateBM25(t, set, rawSetup, k)
	analysed := evaluateBM25(t, set, analysedSetup, k)
	t.Logf("%-40s nDCG@10 %.3f  recall@10 %.3f  MRR@10 %.3f", "raw (unicode61, bm25)", raw.NDCG, raw.Recall, raw.MRR)
	t.Logf("%-40s nDCG@10 %.3f  recall@10 %.3f  MRR@10 %.3f", "analysed (bm25 title 3.0)", analysed.NDCG, analysed.Recall, analysed.MRR)
	for _, s := range []bm25Setup{
		{name: "raw, title 3.0", column: rawSetup.column, query: rawSetup.query, rank: "bm25(docs, 3.0, 1.0)"},
		{name: "analysed, title 1.0", tokenizer: analysedSetup.tokenizer, column: analysedSetup.column, query: analysedSetup.query, rank: "bm25(docs)"},
		{name: "analysed, plain unicode61 tokenizer", tokenizer: "unicode61 remove_diacritics 0", column: analysedSetup.column, query: analysedSetup.query, rank: analysedSetup.rank},
	} {
		sc := evaluateBM25(t, set, s, k)
		t.Logf("%-40s nDCG@10 %.3f  recall@10 %.3f  MRR@10 %.3f", s.name, sc.NDCG, sc.Recall, sc.MRR)
	}
	if analysed.NDCG <= raw.NDCG {
		t.Errorf("nDCG@10: analysed %.3f, raw %.3f; want analysed > raw", analysed.NDCG, raw.NDCG)
	}
}

// evaluateBM25 indexes the corpus in an in-memory FTS5 table as s says and
// evaluates its BM25 ranking.
func evaluateBM25(t *testing.T, set Set, s bm25Setup, k int) Scores {
	t.Helper()
	db := indexFTS5(t, set.Corpus, s)
	scores, err := Evaluate(set, k, func(q Query) ([]string, error) {
		return searchFTS5(db, set.Corpus, s, q.Text, k)
	})
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	return scores
}

// indexFTS5 creates docs(title, text) in a fresh in-memory database; the
// rowid of a document is its index in corpus plus one.
func indexFTS5(t *testing.T, corpus []Doc, s bm25Setup) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	db.SetMaxOpenConns(1) // each connection to :memory: is its own database
	t.Cleanup(func() { db.Close() })
	create := `CREATE VIRTUAL TABLE docs USING fts5(title, text)`
	if s.tokenizer != "" {
		create = fmt.Sprintf(`CREATE VIRTUAL TABLE docs USING fts5(title, text, tokenize=%q)`, s.tokenizer)
	}
	if _, err := db.Exec(create); err != nil {
		t.Fatalf("%s: %v", create, err)
	}
	for i, d := range corpus {
		if _, err := db.Exec(`INSERT INTO docs(rowid, title, text) VALUES (?, ?, ?)`, i+1, s.column(d.Title), s.column(d.Text)); err != nil {
			t.Fatalf("%s: index %s: %v", s.name, d.ID, err)
		}
	}
	return db
}

// searchFTS5 returns the IDs of the k best documents for query: its terms
// OR-ed, each quoted so that no text is read as FTS5 syntax.
func searchFTS5(db *sql.DB, corpus []Doc, s bm25Setup, query string, k int) ([]string, error) {
	terms := s.query(query)
	if len(terms) == 0 {
		return nil, nil
	}
	quoted := make([]string, len(terms))
	for i, term := range terms {
		quoted[i] = `"` + strings.ReplaceAll(term, `"`, `""`) + `"`
	}
	rows, err := db.Query(`SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY `+s.rank+` LIMIT ?`, strings.Join(quoted, " OR "), k)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", query, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var rowid int
		if err := rows.Scan(&rowid); err != nil {
			return nil, fmt.Errorf("search %q: %w", query, err)
		}
		ids = append(ids, corpus[rowid-1].ID)
	}
	return ids, rows.Err()
}
