package kb

import (
	"context"
	"fmt"
	"strings"

	"github.com/moteur/moteur/kb/analyze"
)

// Column weights of bm25() (title, heading path, body). A raw base uses
// SQLite's plain bm25(): every column weighs 1.
var (
	moteurWeights = [3]float64{3, 1.5, 1}
	rawWeights    = [3]float64{1, 1, 1}
)

// matchQuery turns terms into an FTS5 expression: OR-ed, each quoted so
// that no user text is read as FTS5 syntax.
func matchQuery(terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " OR ")
}

// dropCommon leaves out of a Moteur base's query the terms that half of
// its passages or more hold, when a rarer term that some passage holds
// remains. FTS5's BM25 gives
// such a term an IDF of log((N−n+0.5)/(n+0.5)) ≤ 0, clamped to 10⁻⁶: it
// adds nothing to any score, yet its posting list is the longest to read
// and makes bm25() run on most rows. A raw base keeps every term, so that
// its scores stay SQLite's to the last digit.
func (s *Store) dropCommon(ctx context.Context, b Base, terms []string) ([]string, error) {
	if b.Analyzer == AnalyzerRaw || len(terms) < 2 {
		return terms, nil
	}
	// b.Chunks, read with the base, is the number of rows of its index.
	total := int64(b.Chunks)
	args := make([]any, len(terms))
	marks := make([]string, len(terms))
	for i, t := range terms {
		args[i], marks[i] = t, "?"
	}
	rows, err := s.r.QueryContext(ctx, `SELECT term, doc FROM `+vocabTable(b.rowid)+` WHERE term IN (`+strings.Join(marks, ",")+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	common := map[string]bool{}
	rare := false // a term some passage holds remains
	for rows.Next() {
		var term string
		var n int64
		if err := rows.Scan(&term, &n); err != nil {
			return nil, err
		}
		common[term] = 2*n >= total
		rare = rare || (n > 0 && !common[term])
	}
	if err := rows.Err(); err != nil {
		return nil, err
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

// keyword returns the base's top k chunks for query by BM25, best first,
// those whose score divided by the best is at least threshold.
func (s *Store) keyword(ctx context.Context, b Base, query string, k int, threshold float64) ([]scored, error) {
	terms := analyze.QueryTerms(query, analyze.Options{Raw: b.Analyzer == AnalyzerRaw})
	if len(terms) == 0 || !b.Keyword {
		return nil, nil
	}
	terms, err := s.dropCommon(ctx, b, terms)
	if err != nil {
		return nil, fmt.Errorf("keyword search in %s: %w", b.Name, err)
	}
	expr := matchQuery(terms)
	w := moteurWeights
	if b.Analyzer == AnalyzerRaw {
		w = rawWeights
	}
	t := ftsTable(b.rowid)
	q := fmt.Sprintf(`SELECT rowid, bm25(%s, %g, %g, %g) AS r FROM %s WHERE %s MATCH ? ORDER BY r LIMIT ?`,
		t, w[0], w[1], w[2], t, t)
	rows, err := s.r.QueryContext(ctx, q, expr, k)
	if err != nil {
		return nil, fmt.Errorf("keyword search in %s: %w", b.Name, err)
	}
	defer rows.Close()
	var out []scored
	for rows.Next() {
		var sc scored
		if err := rows.Scan(&sc.row, &sc.raw); err != nil {
			return nil, fmt.Errorf("keyword search in %s: %w", b.Name, err)
		}
		sc.raw = -sc.raw
		out = append(out, sc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("keyword search in %s: %w", b.Name, err)
	}
	if len(out) == 0 || out[0].raw <= 0 {
		return nil, nil
	}
	best := out[0].raw
	kept := out[:0]
	for _, sc := range out {
		sc.score = sc.raw / best
		if sc.score >= threshold {
			kept = append(kept, sc)
		}
	}
	return kept, nil
}
