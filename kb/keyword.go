package kb

import (
	"context"
	"database/sql"
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

// dropCommon leaves out of a Moteur base's query the terms that half of
// its passages or more hold, when a rarer term that some passage holds
// remains. FTS5's BM25 gives such a term an IDF of log((N−n+0.5)/(n+0.5))
// ≤ 0, clamped to 10⁻⁶: it adds next to nothing to any score, yet its
// posting list is the longest to read. A raw base keeps every term, so that
// its scores stay SQLite's to the last digit.
func (s *Store) dropCommon(ctx context.Context, b Base, terms []string) ([]string, error) {
	if b.Analyzer == AnalyzerRaw || len(terms) < 2 {
		return terms, nil
	}
	ix, err := s.keywordIndex(ctx, b)
	if err != nil {
		return nil, err
	}
	return ix.dropCommon(terms), nil
}

func (ix *keywordIndex) dropCommon(terms []string) []string {
	total := ix.size()
	common := make([]bool, len(terms))
	rare := false // a term some passage holds remains
	for i, t := range terms {
		n := ix.df(t)
		common[i] = n > 0 && 2*n >= total
		rare = rare || (n > 0 && !common[i])
	}
	if !rare {
		return terms
	}
	var kept []string
	for i, t := range terms {
		if !common[i] {
			kept = append(kept, t)
		}
	}
	return kept
}

// keyword returns the base's top k chunks for query by BM25, best first,
// those whose score divided by the best is at least threshold. The scores
// are FTS5's bm25() of the OR query of the terms, computed on the base's
// memory index with top-k pruning (topk.go); a raw base's by SQLite itself
// on its FTS5 table, whose default tokenizer removes diacritics, which the
// raw analysis does not. warn, when not empty, tells the user why the
// search took a slower path (too many terms to prune, or a query of stop
// words only, answered by phraseScan).
func (s *Store) keyword(ctx context.Context, b Base, query string, k int, threshold float64) (out []scored, warn string, err error) {
	if !b.Keyword {
		return nil, "", nil
	}
	if b.Analyzer == AnalyzerRaw {
		terms := analyze.QueryTerms(query, analyze.Options{Raw: true})
		if len(terms) == 0 {
			return nil, "", nil
		}
		if out, err = ftsTop(ctx, s.r, ftsTable(b.rowid), rawWeights, terms, k); err != nil {
			return nil, "", fmt.Errorf("keyword search in %s: %w", b.Name, err)
		}
	} else {
		ix, err := s.keywordIndex(ctx, b)
		if err != nil {
			return nil, "", fmt.Errorf("keyword search in %s: %w", b.Name, err)
		}
		terms := queryTerms(b, ix, query)
		if len(terms) == 0 {
			return nil, "", nil
		}
		terms = ix.dropCommon(terms)
		if n := ix.found(terms); n > maxScoreTerms {
			warn = fmt.Sprintf("the query has %d terms found in the index, more than the %d top-k pruning handles: every passage holding one of them was scored", n, maxScoreTerms)
		}
		out = ix.top(terms, k)
		if len(out) == 0 && stopWordsOnly(b, query) {
			if out, err = s.phraseScan(ctx, b, query, k); err != nil {
				return nil, "", err
			}
			warn = phraseScanWarning
		}
	}
	if len(out) == 0 || out[0].raw <= 0 {
		return nil, warn, nil
	}
	best := out[0].raw
	kept := out[:0]
	for _, sc := range out {
		sc.score = sc.raw / best
		if sc.score >= threshold {
			kept = append(kept, sc)
		}
	}
	return kept, warn, nil
}

// stopWordsOnly reports whether the analysis of analysed base b leaves
// nothing of query: its terms are then the fallback of analyze.QueryTerms
// (the words as they are), which the index, analysed without that
// fallback, does not hold.
func stopWordsOnly(b Base, query string) bool {
	opt := analyze.Options{}
	if b.Analyzer == AnalyzerSnowball {
		opt.Snowball = true
	}
	return len(analyze.Terms(query, opt)) == 0
}

// found is how many of terms the index holds: top scores them term at a
// time, without pruning, beyond maxScoreTerms.
func (ix *keywordIndex) found(terms []string) int {
	if len(terms) <= maxScoreTerms {
		return len(terms) // no more than that, which is all that matters
	}
	n := 0
	for _, t := range terms {
		if ix.terms[t] != nil {
			n++
		}
	}
	return n
}

// queryTerms analyses query for analysed base b, whose index is ix: a
// snowball base's in the query's language and in its documents' (the
// counts ix was read with), a Moteur base's by the Moteur analysis.
func queryTerms(b Base, ix *keywordIndex, query string) []string {
	if b.Analyzer == AnalyzerSnowball {
		return analyze.QueryTermsIn(query, ix.langs)
	}
	return analyze.QueryTerms(query, analyze.Options{})
}

// matchQuery turns terms into an FTS5 expression: OR-ed, each quoted so
// that no user text is read as FTS5 syntax.
func matchQuery(terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " OR ")
}

// ftsTop returns the top k rows of FTS5 table t for the OR query of terms
// by SQLite's bm25() with column weights w, best first, ties by rowid.
func ftsTop(ctx context.Context, db *sql.DB, t string, w [3]float64, terms []string, k int) ([]scored, error) {
	q := fmt.Sprintf(`SELECT rowid, bm25(%s, %g, %g, %g) AS r FROM %s WHERE %s MATCH ? ORDER BY r, rowid LIMIT ?`,
		t, w[0], w[1], w[2], t, t)
	rows, err := db.QueryContext(ctx, q, matchQuery(terms), k)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []scored
	for rows.Next() {
		var sc scored
		if err := rows.Scan(&sc.row, &sc.raw); err != nil {
			return nil, err
		}
		sc.raw = -sc.raw
		out = append(out, sc)
	}
	return out, rows.Err()
}
