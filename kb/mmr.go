package kb

import (
	"slices"
	"strings"
)

// Similarities from which a candidate is a copy of one already chosen and
// is dropped whatever its relevance: for the cosine of embeddings (the same
// paragraph in two files, a word changed), and for the Jaccard index of
// term sets, only identical sets (the same words, reordered, recased or
// reformatted). Term sets are coarse: templated pages that answer
// different questions ("update a legacy HTTPS health check" beside "update
// an HTTPS health check") share 95 % of their terms and more; dropping
// them from 0.8 cost man-en's keyword ranking recall@10 0.970 → 0.837,
// and from 0.95 still 0.956, below plain BM25's 0.959, while no set lost
// anything by keeping them (kb/kbeval). MMR's similarity term still ranks
// them below a more different passage of the same relevance.
const (
	nearDuplicateCosine  = 0.9
	nearDuplicateJaccard = 1.0
)

// mmr picks up to n hits by Maximal Marginal Relevance: at each step the
// candidate maximising λ·relevance − (1−λ)·(its greatest similarity to a
// hit already picked), the first in hits' order on a tie. Similarity is
// the cosine of the embeddings when both hits have one, else the Jaccard
// index of their term sets; a candidate that copies a hit picked (see
// nearDuplicate*) is dropped. hits must be best first with Score in
// [0, 1], and λ in [0, 1].
//
// The choices are those of that step-by-step definition, for less work:
// a candidate's greatest similarity only grows as hits are picked, so the
// value computed with the hits it has been compared with so far bounds
// its value now (rounding keeps the order: (1−λ)·x is monotonic in x). At
// each step candidates are taken by bound, brought up to date (compared
// with the hits picked since) and the step stops at the first bound that
// cannot beat the best value found. A pair's similarity is computed at
// most once, and only for the few candidates near the top; term sets are
// sorted slices of hashed terms compared by a merge, not maps. A copy is
// dropped when it is brought up to date, before it could be chosen.
func mmr(hits []Hit, n int, lambda float64) []Hit {
	if n <= 0 || len(hits) == 0 {
		return nil
	}
	sets := make([][]term, len(hits))
	done := make([]bool, len(hits))
	set := func(i int) []term {
		if !done[i] {
			sets[i], done[i] = termSet(hits[i].terms), true
		}
		return sets[i]
	}
	// sim returns the similarity of two hits and the level from which they
	// are copies.
	sim := func(i, j int) (float64, float64) {
		if a, b := hits[i].embedding, hits[j].embedding; a != nil && b != nil && len(a) == len(b) {
			return similarity(a, b), nearDuplicateCosine
		}
		return jaccard(set(i), set(j)), nearDuplicateJaccard
	}
	value := func(i int, maxSim float64) float64 { return lambda*hits[i].Score - (1-lambda)*maxSim }
	type cand struct {
		i      int
		maxSim float64 // over picked[:seen]
		seen   int
		bound  float64 // value(i, maxSim)
	}
	left := make([]cand, len(hits))
	for i := range left {
		left[i] = cand{i: i, bound: value(i, 0)}
	}
	var picked []int
	out := make([]Hit, 0, min(n, len(hits)))
	for len(out) < n && len(left) > 0 {
		// By bound, then by position: the order in which a candidate can
		// still win.
		slices.SortFunc(left, func(a, b cand) int {
			switch {
			case a.bound > b.bound:
				return -1
			case a.bound < b.bound:
				return 1
			}
			return a.i - b.i
		})
		best, bestScore := -1, 0.0 // best indexes left
		for k := 0; k < len(left); k++ {
			c := &left[k]
			if best >= 0 && (c.bound < bestScore || c.bound == bestScore && c.i > left[best].i) {
				break
			}
			dup := false
			for ; c.seen < len(picked) && !dup; c.seen++ {
				s, level := sim(c.i, picked[c.seen])
				c.maxSim, dup = max(c.maxSim, s), s >= level
			}
			if dup {
				// Gone for good: remove it, keeping the order of the rest.
				left = slices.Delete(left, k, k+1)
				if best > k {
					best--
				}
				k--
				continue
			}
			c.bound = value(c.i, c.maxSim)
			if best < 0 || c.bound > bestScore || c.bound == bestScore && c.i < left[best].i {
				best, bestScore = k, c.bound
			}
		}
		if best < 0 {
			break
		}
		picked = append(picked, left[best].i)
		out = append(out, hits[left[best].i])
		left = slices.Delete(left, best, best+1)
	}
	return out
}

// term is one term of a set with its hash: sets are sorted by hash, then
// by text, so that a merge compares strings only where hashes meet (in
// practice, where the terms are equal) and stays exact on a collision.
type term struct {
	h uint64
	s string
}

func (a term) compare(b term) int {
	switch {
	case a.h < b.h:
		return -1
	case a.h > b.h:
		return 1
	}
	return strings.Compare(a.s, b.s)
}

// termSet is the distinct terms of a hit's space-separated terms, sorted
// by (hash, text).
func termSet(terms string) []term {
	set := make([]term, 0, strings.Count(terms, " ")+1)
	for f := range strings.FieldsSeq(terms) {
		set = append(set, term{fnv1a(f), f})
	}
	slices.SortFunc(set, term.compare)
	return slices.CompactFunc(set, func(a, b term) bool { return a.h == b.h && a.s == b.s })
}

// fnv1a is the 64-bit FNV-1a hash of s.
func fnv1a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// jaccard is the Jaccard index of two sets made by termSet.
func jaccard(a, b []term) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch c := a[i].compare(b[j]); {
		case c == 0:
			inter++
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
