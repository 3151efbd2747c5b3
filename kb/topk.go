package kb

import (
	"container/heap"
	"math"
	"slices"

	"modernc.org/libc"
)

// bm25IDF is FTS5's IDF of a term n of N rows hold: log((N−n+0.5)/(n+0.5)),
// clamped to 10⁻⁶ where it would be zero or less. The logarithm is the C
// library's that SQLite calls (modernc.org/libc's, musl's on Linux): Go's
// math.Log differs from it in the last bit for some arguments, which would
// reorder passages whose scores tie but for that bit.
func bm25IDF(rows, n int) float64 {
	idf := libc.Xlog(nil, (float64(rows-n)+0.5)/(float64(n)+0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// slack widens every pruning bound: a score is a sum of float64 terms in
// the query's order, a bound the same terms' maxima in another order, and
// the two roundings may differ by n·ε (n terms, ε = 2⁻⁵³). 10⁻⁹ covers
// queries of a million terms; a candidate is dropped only when it is short
// by more than that.
const slack = 1 + 1e-9

// below reports whether a bound summing n terms' values cannot beat theta.
// One term's bound is its exact value: no slack, so that passages tied at
// a single term's best stop the search once k of them are kept.
func below(bound float64, n int, theta float64) bool {
	if n > 1 {
		bound *= slack
	}
	return bound <= theta
}

// maxScoreTerms is the number of terms (found in the index) up to which
// top uses MaxScore; above it, scoring term at a time into one array is
// cheaper than choosing the next passage among so many lists.
const maxScoreTerms = 64

// cursor walks one query term's postings.
type cursor struct {
	pos int     // the term's position in the query
	idf float64 // its IDF
	ub  float64 // the most it adds to a score: idf × maxPart
	pl  *postingList
	i   int // next posting
}

func (c *cursor) doc() (uint32, bool) {
	if c.i < len(c.pl.docs) {
		return c.pl.docs[c.i], true
	}
	return 0, false
}

// seek moves to the first posting at or after d.
func (c *cursor) seek(d uint32) {
	if c.i < len(c.pl.docs) && c.pl.docs[c.i] < d {
		j, _ := slices.BinarySearch(c.pl.docs[c.i:], d)
		c.i += j
	}
}

// cursors returns one cursor per term the index holds, with the query
// position of each.
func (ix *keywordIndex) cursors(terms []string) []cursor {
	var cs []cursor
	for pos, t := range terms {
		pl := ix.terms[t]
		if pl == nil {
			continue
		}
		idf := bm25IDF(ix.size(), len(pl.docs))
		cs = append(cs, cursor{pos: pos, idf: idf, ub: idf * pl.maxPart, pl: pl})
	}
	return cs
}

// top returns the k best rows for terms by FTS5's bm25() (the terms OR-ed,
// one phrase each, in order), best first, ties by rowid: exactly what
// `ORDER BY bm25(...), rowid LIMIT k` returns, scores to the last bit.
func (ix *keywordIndex) top(terms []string, k int) []scored {
	if k <= 0 || ix.size() == 0 {
		return nil
	}
	cs := ix.cursors(terms)
	if len(cs) > maxScoreTerms {
		return ix.exhaustive(cs, k)
	}
	out, _ := ix.maxScore(cs, k)
	return out
}

// worst is a min-heap of candidates, the worst on top: lower score, or on
// equal scores the greater rowid.
type worst []scored

func (h worst) Len() int { return len(h) }
func (h worst) Less(i, j int) bool {
	if h[i].raw != h[j].raw {
		return h[i].raw < h[j].raw
	}
	return h[i].row > h[j].row
}
func (h worst) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *worst) Push(x any)   { *h = append(*h, x.(scored)) }
func (h *worst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// best sorts the kept candidates best first.
func (h worst) best() []scored {
	out := []scored(h)
	slices.SortFunc(out, func(a, b scored) int {
		switch {
		case a.raw > b.raw:
			return -1
		case a.raw < b.raw:
			return 1
		case a.row < b.row:
			return -1
		case a.row > b.row:
			return 1
		}
		return 0
	})
	return out
}

// maxScore is MaxScore document-at-a-time retrieval (Turtle and Flood,
// 1995). Terms sorted by upper bound; the lowest ones whose bounds sum to
// no more than the k-th best score so far are non-essential: a passage
// holding only those cannot enter the top k, so passages are enumerated
// from the essential terms' lists alone, and a non-essential list is read
// (by binary search) only while the passage can still make it.
//
// Passages come in rowid order, so a later one ties with the k-th best
// only to lose (ties go to the smaller rowid): a candidate must beat the
// threshold strictly, and a bound equal to it prunes.
//
// It also returns how many passages it scored to the end, for the tests
// that prove it prunes.
func (ix *keywordIndex) maxScore(cs []cursor, k int) (top []scored, full int) {
	if len(cs) == 0 {
		return nil, 0
	}
	slices.SortFunc(cs, func(a, b cursor) int {
		switch {
		case a.ub < b.ub:
			return -1
		case a.ub > b.ub:
			return 1
		}
		return a.pos - b.pos
	})
	// prefix[i] is the sum of the i lowest bounds.
	prefix := make([]float64, len(cs)+1)
	for i, c := range cs {
		prefix[i+1] = prefix[i] + c.ub
	}
	h := make(worst, 0, k)
	theta := math.Inf(-1) // the k-th best score, once there are k
	essential := 0        // cs[essential:] are the essential terms
	type part struct {
		pos int
		v   float64
	}
	parts := make([]part, 0, len(cs))
	for {
		for essential < len(cs) && below(prefix[essential+1], essential+1, theta) {
			essential++
		}
		if essential == len(cs) {
			break
		}
		// The next passage: the least current posting of the essential terms.
		d, found := uint32(math.MaxUint32), false
		for j := essential; j < len(cs); j++ {
			if x, ok := cs[j].doc(); ok && x <= d {
				d, found = x, true
			}
		}
		if !found {
			break
		}
		parts = parts[:0]
		partial := 0.0
		for j := essential; j < len(cs); j++ {
			c := &cs[j]
			if x, ok := c.doc(); ok && x == d {
				v := float64(c.idf * c.pl.part[c.i])
				parts = append(parts, part{c.pos, v})
				partial += v
				c.i++
			}
		}
		pruned := false
		for j := essential - 1; j >= 0; j-- {
			if below(partial+prefix[j+1], len(parts)+j+1, theta) {
				pruned = true
				break
			}
			c := &cs[j]
			c.seek(d)
			if x, ok := c.doc(); ok && x == d {
				v := float64(c.idf * c.pl.part[c.i])
				parts = append(parts, part{c.pos, v})
				partial += v
				c.i++
			}
		}
		if pruned {
			continue
		}
		full++
		// The score as bm25() sums it: phrase by phrase, in query order.
		slices.SortFunc(parts, func(a, b part) int { return a.pos - b.pos })
		score := 0.0
		for _, p := range parts {
			score += p.v
		}
		switch {
		case len(h) < k:
			heap.Push(&h, scored{row: ix.rows[d], raw: score})
			if len(h) == k {
				theta = h[0].raw
			}
		case score > theta:
			h[0] = scored{row: ix.rows[d], raw: score}
			heap.Fix(&h, 0)
			theta = h[0].raw
		}
	}
	return h.best(), full
}

// exhaustive scores every passage holding a term, term at a time in query
// order (so each passage's sum is bm25()'s, in its order), then keeps the
// best k. Its cost is the terms' postings, read once each.
func (ix *keywordIndex) exhaustive(cs []cursor, k int) []scored {
	slices.SortFunc(cs, func(a, b cursor) int { return a.pos - b.pos })
	acc := make([]float64, ix.size())
	seen := make([]bool, ix.size())
	var touched []uint32
	for _, c := range cs {
		for i, d := range c.pl.docs {
			if !seen[d] {
				seen[d] = true
				touched = append(touched, d)
			}
			acc[d] += float64(c.idf * c.pl.part[i])
		}
	}
	h := make(worst, 0, k)
	for _, d := range touched {
		sc := scored{row: ix.rows[d], raw: acc[d]}
		switch {
		case len(h) < k:
			heap.Push(&h, sc)
		case worstThan(h[0], sc):
			h[0] = sc
			heap.Fix(&h, 0)
		}
	}
	return h.best()
}

// worstThan reports whether a ranks below b.
func worstThan(a, b scored) bool {
	if a.raw != b.raw {
		return a.raw < b.raw
	}
	return a.row > b.row
}
