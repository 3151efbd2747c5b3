package kb

import "strings"

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
// hit already picked). Similarity is the cosine of the embeddings when
// both hits have one, else the Jaccard index of their term sets. hits must
// be best first with Score in [0, 1].
func mmr(hits []Hit, n int, lambda float64) []Hit {
	if n <= 0 {
		return nil
	}
	sets := make([]map[string]bool, len(hits))
	// sim returns the similarity of two hits and the level from which they
	// are copies.
	sim := func(i, j int) (float64, float64) {
		if a, b := hits[i].embedding, hits[j].embedding; a != nil && b != nil && len(a) == len(b) {
			return similarity(a, b), nearDuplicateCosine
		}
		for _, k := range [2]int{i, j} {
			if sets[k] == nil {
				sets[k] = termSet(hits[k].terms)
			}
		}
		return jaccard(sets[i], sets[j]), nearDuplicateJaccard
	}
	picked := []int{}
	left := make([]bool, len(hits))
	for i := range left {
		left[i] = true
	}
	for len(picked) < n {
		best, bestScore := -1, 0.0
		for i := range hits {
			if !left[i] {
				continue
			}
			maxSim, dup := 0.0, false
			for _, j := range picked {
				s, level := sim(i, j)
				maxSim, dup = max(maxSim, s), dup || s >= level
			}
			if dup {
				left[i] = false
				continue
			}
			s := lambda*hits[i].Score - (1-lambda)*maxSim
			if best < 0 || s > bestScore {
				best, bestScore = i, s
			}
		}
		if best < 0 {
			break
		}
		left[best] = false
		picked = append(picked, best)
	}
	out := make([]Hit, len(picked))
	for i, j := range picked {
		out[i] = hits[j]
	}
	return out
}

func termSet(terms string) map[string]bool {
	set := map[string]bool{}
	for _, t := range strings.Fields(terms) {
		set[t] = true
	}
	return set
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
