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

// matchQuery turns a query into an FTS5 expression: its terms OR-ed, each
// quoted so that no user text is read as FTS5 syntax. ok is false when the
// query has no term at all.
func matchQuery(b Base, query string) (expr string, ok bool) {
	terms := analyze.QueryTerms(query, analyze.Options{Raw: b.Analyzer == AnalyzerRaw})
	if len(terms) == 0 {
		return "", false
	}
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " OR "), true
}

// keyword returns the base's top k chunks for query by BM25, best first,
// those whose score divided by the best is at least threshold.
func (s *Store) keyword(ctx context.Context, b Base, query string, k int, threshold float64) ([]scored, error) {
	expr, ok := matchQuery(b, query)
	if !ok || !b.Keyword {
		return nil, nil
	}
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
