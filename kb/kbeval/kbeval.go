// Package kbeval measures retrieval quality: it indexes a BEIR test set's
// corpus in a temporary knowledge base, runs its queries in every search
// mode available, and scores the rankings (nDCG@10, recall@10, MRR@10)
// beside a baseline, SQLite FTS5's plain bm25() over the same corpus.
//
// KeywordIndex (keyword.go) ranks a set as the store's keyword stage does
// (chunked passages, weighted bm25(), common terms left out, a threshold)
// but under analyses, weights and thresholds the store does not offer, so
// they can be measured before a base gets them. Run and KeywordIndex are
// safe to use from one goroutine each; neither shares state with another.
package kbeval

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/kb/beir"
	"github.com/moteur/moteur/kb/retrieval"
)

// K is the rank cut-off of the scores.
const K = 10

// Options configures a run. Zero values are defaults.
type Options struct {
	// Embedder, when set, adds the semantic and hybrid modes.
	Embedder kb.Embedder
	Reranker kb.Reranker
	// Retrieval overrides retrieval defaults.
	Retrieval retrieval.Settings
	// Progress, when set, is told of the documents indexed.
	Progress func(done, total int)
	// TempDir holds the temporary database; "" is os.TempDir().
	TempDir string
	// Analyzer is the analyzer of the base the corpus is indexed in; "" is
	// the store's default for new bases.
	Analyzer string
}

// Scores are one ranking's figures.
type Scores struct {
	Name   string  `json:"name"`
	NDCG   float64 `json:"ndcg@10"`
	Recall float64 `json:"recall@10"`
	MRR    float64 `json:"mrr@10"`
}

// Report is the outcome of a run.
type Report struct {
	Documents int      `json:"documents"`
	Queries   int      `json:"queries"`
	Modes     []Scores `json:"modes"`
	Baseline  Scores   `json:"baseline"`
}

// Run evaluates set.
func Run(ctx context.Context, set beir.Set, opt Options) (Report, error) {
	dir, err := os.MkdirTemp(opt.TempDir, "moteur-eval-")
	if err != nil {
		return Report{}, fmt.Errorf("eval: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "eval.db")
	s, err := kb.Open(ctx, kb.Config{Path: path, Embedder: opt.Embedder, Reranker: opt.Reranker, Retrieval: opt.Retrieval})
	if err != nil {
		return Report{}, fmt.Errorf("eval: %w", err)
	}
	defer s.Close()
	if err := index(ctx, s, set, opt.Analyzer, opt.Progress); err != nil {
		return Report{}, err
	}
	rep := Report{Documents: len(set.Corpus), Queries: len(set.Queries)}
	modes := []kb.Mode{kb.ModeKeyword}
	if opt.Embedder != nil {
		modes = append(modes, kb.ModeSemantic, kb.ModeHybrid)
	}
	for _, m := range modes {
		sc, err := score(set, string(m), func(q beir.Query) ([]string, error) { return searchRank(ctx, s, q.Text, m) })
		if err != nil {
			return rep, err
		}
		rep.Modes = append(rep.Modes, sc)
	}
	base, err := baseline(ctx, path, set)
	if err != nil {
		return rep, err
	}
	rep.Baseline = base
	return rep, nil
}

const evalBase = "eval"

func index(ctx context.Context, s *kb.Store, set beir.Set, analyzer string, progress func(int, int)) error {
	if _, err := s.Create(ctx, evalBase, kb.CreateOptions{Analyzer: analyzer}); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for i, d := range set.Corpus {
		if _, err := s.AddText(ctx, evalBase, kb.Text{Key: d.ID, Title: d.Title, Body: d.Text}); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// An empty document of the set cannot be indexed: it cannot
			// be found, as it could not in real use.
		}
		if progress != nil {
			progress(i+1, len(set.Corpus))
		}
	}
	return nil
}

func score(set beir.Set, name string, rank func(beir.Query) ([]string, error)) (Scores, error) {
	sc, err := beir.Evaluate(set, K, rank)
	if err != nil {
		return Scores{}, fmt.Errorf("eval %s: %w", name, err)
	}
	return Scores{Name: name, NDCG: sc.NDCG, Recall: sc.Recall, MRR: sc.MRR}, nil
}

// searchRank is Moteur's ranking of documents for a query: the documents
// of the passages found, in order, each once.
func searchRank(ctx context.Context, s *kb.Store, query string, m kb.Mode) ([]string, error) {
	res, err := s.Search(ctx, kb.Query{Text: query, Mode: m, Bases: []string{evalBase}, Limit: s.Retrieval().MaxLimit})
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, h := range res.Hits {
		if !seen[h.Path] {
			seen[h.Path] = true
			out = append(out, h.Path)
		}
	}
	return out, nil
}

// baseline ranks with SQLite FTS5 alone: a table of (title, text) with
// the default tokenizer, the query's words OR-ed, ordered by bm25().
func baseline(ctx context.Context, path string, set beir.Set) (Scores, error) {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return Scores{}, fmt.Errorf("eval baseline: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE baseline USING fts5(id UNINDEXED, title, text)`); err != nil {
		return Scores{}, fmt.Errorf("eval baseline: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return Scores{}, err
	}
	for _, d := range set.Corpus {
		if _, err := tx.ExecContext(ctx, `INSERT INTO baseline (id, title, text) VALUES (?, ?, ?)`, d.ID, d.Title, d.Text); err != nil {
			tx.Rollback()
			return Scores{}, fmt.Errorf("eval baseline: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Scores{}, fmt.Errorf("eval baseline: %w", err)
	}
	return score(set, "fts5 bm25()", func(q beir.Query) ([]string, error) { return baselineRank(ctx, db, q.Text) })
}

func baselineRank(ctx context.Context, db *sql.DB, query string) ([]string, error) {
	words := strings.FieldsFunc(query, func(r rune) bool { return !isWordRune(r) })
	if len(words) == 0 {
		return nil, nil
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	rows, err := db.QueryContext(ctx, `SELECT id FROM baseline WHERE baseline MATCH ? ORDER BY bm25(baseline) LIMIT ?`,
		strings.Join(quoted, " OR "), K)
	if err != nil {
		return nil, fmt.Errorf("eval baseline: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
