package kb

import (
	"cmp"
	"slices"
)

// fuse merges rankings by weighted Reciprocal Rank Fusion: a chunk's score
// is Σ weight / (k + rank) over the rankings it appears in (rank from 1).
// The result is best first; ties keep the order of first appearance, so
// the fusion is deterministic.
func fuse(k int, rankings [][]scored, weights []float64) []scored {
	score := map[int64]float64{}
	var order []int64
	for i, r := range rankings {
		for rank, sc := range r {
			if _, seen := score[sc.row]; !seen {
				order = append(order, sc.row)
			}
			score[sc.row] += weights[i] / float64(k+rank+1)
		}
	}
	out := make([]scored, len(order))
	for i, row := range order {
		out[i] = scored{row: row, score: score[row]}
	}
	slices.SortStableFunc(out, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	return out
}

// byScore merges the per-base lists of one index into one ranking.
func byScore(lists ...[]scored) []scored {
	var all []scored
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	return all
}
