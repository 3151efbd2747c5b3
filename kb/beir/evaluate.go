package beir

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Scores are metrics at some cutoff k, macro-averaged over queries.
type Scores struct {
	NDCG, Recall, MRR float64
	Queries           int
}

// Evaluate ranks every query of set with rank, which returns document IDs
// best first, and averages nDCG@k, recall@k and MRR@k over the queries:
//
//   - nDCG@k: DCG = Σ (2^rel_i − 1) / log2(i + 2) over the first k documents
//     (i from 0), divided by the DCG of the ideal ranking of the query's
//     judgements;
//   - recall@k: relevant documents in the first k / all relevant documents;
//   - MRR@k: 1 / rank of the first relevant document in the first k, else 0.
//
// A document ID repeated in a ranking counts once, where it first appears;
// IDs outside the qrels count as not relevant. A query without any relevant
// document scores 0, as in trec_eval.
func Evaluate(set Set, k int, rank func(q Query) ([]string, error)) (Scores, error) {
	if k <= 0 {
		return Scores{}, fmt.Errorf("evaluate: cutoff k = %d, want k > 0", k)
	}
	if len(set.Queries) == 0 {
		return Scores{}, errors.New("evaluate: the set has no queries")
	}
	var sum Scores
	for _, q := range set.Queries {
		ids, err := rank(q)
		if err != nil {
			return Scores{}, fmt.Errorf("evaluate: rank query %s: %w", q.ID, err)
		}
		top := topK(ids, k)
		rels := set.Qrels[q.ID]
		sum.NDCG += ndcg(top, rels, k)
		sum.Recall += recall(top, rels)
		sum.MRR += reciprocalRank(top, rels)
	}
	n := float64(len(set.Queries))
	return Scores{NDCG: sum.NDCG / n, Recall: sum.Recall / n, MRR: sum.MRR / n, Queries: len(set.Queries)}, nil
}

// topK returns the first k distinct IDs of ids.
func topK(ids []string, k int) []string {
	seen := make(map[string]bool, k)
	out := make([]string, 0, k)
	for _, id := range ids {
		if len(out) == k {
			break
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// gain is the graded gain of a relevance: 2^rel − 1, 0 for rel ≤ 0.
func gain(rel int) float64 {
	if rel <= 0 {
		return 0
	}
	return math.Exp2(float64(rel)) - 1
}

func dcg(rels []int) float64 {
	var s float64
	for i, rel := range rels {
		s += gain(rel) / math.Log2(float64(i+2))
	}
	return s
}

func ndcg(top []string, rels map[string]int, k int) float64 {
	got := make([]int, len(top))
	for i, id := range top {
		got[i] = rels[id]
	}
	ideal := make([]int, 0, len(rels))
	for _, rel := range rels {
		ideal = append(ideal, rel)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	if len(ideal) > k {
		ideal = ideal[:k]
	}
	best := dcg(ideal)
	if best == 0 {
		return 0
	}
	return dcg(got) / best
}

func recall(top []string, rels map[string]int) float64 {
	relevant := 0
	for _, rel := range rels {
		if rel > 0 {
			relevant++
		}
	}
	if relevant == 0 {
		return 0
	}
	found := 0
	for _, id := range top {
		if rels[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(relevant)
}

func reciprocalRank(top []string, rels map[string]int) float64 {
	for i, id := range top {
		if rels[id] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}
