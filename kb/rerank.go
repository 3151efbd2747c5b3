package kb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/moteur/moteur/policy"
)

// rerank scores the best RerankMax candidates with the reranker (text =
// document title + chunk body, seed 000) and keeps those at or above the
// threshold, best first; when none is, the best one if it reaches the
// fallback score; when not even that, none, and res says the reranker
// rejected everything. Without a reranker, hits are returned as they are.
func (s *Store) rerank(ctx context.Context, query string, hits []Hit, res *Result) ([]Hit, error) {
	if s.reranker == nil || len(hits) == 0 {
		return hits, nil
	}
	r := s.retrieval
	hits = hits[:min(len(hits), r.RerankMax)]
	docs := make([]string, len(hits))
	for i, h := range hits {
		docs[i] = h.Title + "\n" + h.Text
	}
	rctx := ctx
	for _, h := range hits {
		if h.Classified != "" {
			rctx = withClassified(ctx, h.Classified)
			break
		}
	}
	scores, err := s.reranker.Rerank(rctx, query, docs)
	if errors.Is(err, policy.ErrRefused) {
		// The reranker may not see these candidates (classified, and it is
		// not local): the search goes on without it, and says so.
		res.RerankSkipped = err.Error()
		return hits, nil
	}
	if err != nil {
		return nil, fmt.Errorf("search: rerank: %w", err)
	}
	if len(scores) != len(hits) {
		return nil, fmt.Errorf("search: rerank: %d scores for %d candidates", len(scores), len(hits))
	}
	res.Reranked = true
	for i := range hits {
		hits[i].Rerank = scores[i]
		hits[i].Score = scores[i]
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Rerank, a.Rerank) })
	kept := hits[:0]
	for _, h := range hits {
		if h.Rerank >= r.RerankThreshold {
			kept = append(kept, h)
		}
	}
	if len(kept) > 0 {
		return kept, nil
	}
	if hits[0].Rerank >= r.RerankFallback {
		return hits[:1], nil
	}
	res.RerankRejected = true
	res.Hint = hintRejected
	return nil, nil
}
