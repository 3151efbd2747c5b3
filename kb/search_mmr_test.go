package kb

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// mmrStepwise is MMR as defined, every similarity recomputed at every step
// against every hit picked, term sets as maps: what mmr must choose.
func mmrStepwise(hits []Hit, n int, lambda float64) []Hit {
	set := func(terms string) map[string]bool {
		m := map[string]bool{}
		for _, t := range strings.Fields(terms) {
			m[t] = true
		}
		return m
	}
	jac := func(a, b map[string]bool) float64 {
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
	sim := func(i, j int) (float64, float64) {
		if a, b := hits[i].embedding, hits[j].embedding; a != nil && b != nil && len(a) == len(b) {
			return similarity(a, b), nearDuplicateCosine
		}
		return jac(set(hits[i].terms), set(hits[j].terms)), nearDuplicateJaccard
	}
	var picked []int
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
			if s := lambda*hits[i].Score - (1-lambda)*maxSim; best < 0 || s > bestScore {
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

// mmr keeps each candidate's greatest similarity from step to step and
// compares sorted term sets: on random pools (small vocabularies, so that
// sets overlap, copies and ties occur; some hits with embeddings, some
// without) it must pick what the step-by-step definition picks.
func TestMMRMatchesStepwiseDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 2026))
	copies := 0
	for trial := range 3000 {
		nhits := 1 + rng.IntN(40)
		vocab := 2 + rng.IntN(12)
		hits := make([]Hit, nhits)
		score := 1.0
		for i := range hits {
			var terms []string
			for range rng.IntN(8) {
				terms = append(terms, fmt.Sprintf("t%d", rng.IntN(vocab)))
			}
			if i > 0 && rng.IntN(6) == 0 { // a copy of an earlier hit, reordered
				terms = strings.Fields(hits[rng.IntN(i)].terms)
				rng.Shuffle(len(terms), func(a, b int) { terms[a], terms[b] = terms[b], terms[a] })
			}
			if rng.IntN(3) > 0 { // equal relevance now and then
				score *= rng.Float64()
			}
			hits[i] = Hit{Chunk: fmt.Sprint(i), Score: score, terms: strings.Join(terms, " ")}
			if rng.IntN(3) == 0 {
				v := []float32{float32(rng.IntN(3)), float32(rng.IntN(3)), 1}
				normalize(v)
				hits[i].embedding = v
			}
		}
		n, lambda := 1+rng.IntN(12), []float64{0, 0.3, 0.7, 1}[rng.IntN(4)]
		got, want := mmr(hits, n, lambda), mmrStepwise(hits, n, lambda)
		if len(want) < min(n, nhits) {
			copies++
		}
		if chunks(got) != chunks(want) {
			t.Fatalf("trial %d (n %d, λ %g): mmr picked %s, the definition %s", trial, n, lambda, chunks(got), chunks(want))
		}
	}
	if copies == 0 {
		t.Fatal("no trial dropped a copy: the pools do not exercise duplicate removal")
	}
}

func chunks(hits []Hit) string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Chunk
	}
	return strings.Join(ids, " ")
}
