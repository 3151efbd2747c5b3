package kb

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Mode is a search mode of search_knowledge.
type Mode string

// Search modes.
const (
	ModeHybrid   Mode = "hybrid"   // vector and keyword rankings fused (default)
	ModeSemantic Mode = "semantic" // vectors only
	ModeKeyword  Mode = "keyword"  // BM25 only
)

// ParseMode reads a mode name; "" is hybrid.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeHybrid, nil
	case ModeHybrid, ModeSemantic, ModeKeyword:
		return m, nil
	}
	return "", fmt.Errorf("unknown search mode %q: use hybrid, semantic or keyword", s)
}

// Query is one search.
type Query struct {
	Text string
	Mode Mode // "" is hybrid
	// Bases are names or ids; empty means every base.
	Bases []string
	// Limit is how many hits to return; 0 is Retrieval.Limit, and more than
	// Retrieval.MaxLimit is capped.
	Limit int
}

// Hit is one chunk found.
type Hit struct {
	Chunk    string `json:"chunk"`
	Document string `json:"document"`
	Base     string `json:"base"`
	BaseName string `json:"base_name"`
	Title    string `json:"title"`
	Path     string `json:"path"`
	Headings string `json:"headings,omitempty"`
	Index    int    `json:"index"`
	Kind     string `json:"kind"`
	// Page is where the passage starts in a document with pages (PDF),
	// 1-based; 0 when unknown.
	Page int    `json:"page,omitempty"`
	Text string `json:"text"`
	// Score is the hit's final relevance in [0, 1]: the rerank score when
	// reranked, else the fused score relative to the best possible, else
	// the one index's score.
	Score   float64 `json:"score"`
	Vector  float64 `json:"vector_score,omitempty"`
	Keyword float64 `json:"keyword_score,omitempty"`
	Rerank  float64 `json:"rerank_score,omitempty"`
	// Classified is the classification rule of the document's path: the
	// passage may only go to a local model.
	Classified string `json:"classified,omitempty"`

	row       int64
	terms     string
	embedding []float32
}

// Fallback records a base searched in another mode than asked, and why.
type Fallback struct {
	Base   string `json:"base"`
	BaseID string `json:"base_id"`
	From   Mode   `json:"from"`
	To     Mode   `json:"to"`
	Reason string `json:"reason"`
}

// Result is what a search found.
type Result struct {
	Hits          []Hit      `json:"hits"`
	RequestedMode Mode       `json:"requested_mode"`
	Fallbacks     []Fallback `json:"mode_fallbacks,omitempty"`
	// Candidates counts the chunks that passed the thresholds.
	Candidates int  `json:"candidates"`
	Reranked   bool `json:"reranked,omitempty"`
	// RerankRejected reports that the reranker judged every candidate
	// irrelevant.
	RerankRejected bool `json:"rerank_rejected,omitempty"`
	// RerankSkipped says why the reranker was not used although one is
	// configured (the outbound policy refused it the candidates).
	RerankSkipped string `json:"rerank_skipped,omitempty"`
	// Hint tells the user (or the model) what to try when nothing came.
	Hint string `json:"hint,omitempty"`
	// Warnings says where the search took a slower path than usual, and
	// why (a query of more terms than top-k pruning handles).
	Warnings []string `json:"warnings,omitempty"`
}

// ErrNoIndex is returned when no base in scope has an index the search
// can use.
var ErrNoIndex = errors.New("no searchable index")

// Hints for empty results.
const (
	hintNothing  = "No passage passed the relevance thresholds. For identifiers, error codes or exact terms, try mode keyword; otherwise rephrase the query."
	hintRejected = "The reranker judged every candidate irrelevant. For identifiers, error codes or exact terms, try mode keyword."
)

// Search runs q over its bases as seed 000's search_knowledge does:
// per-base modes with fallbacks, candidate pools cut by the thresholds,
// fusion, duplicates removed, rerank when configured, then MMR.
func (s *Store) Search(ctx context.Context, q Query) (Result, error) {
	mode := q.Mode
	if mode == "" {
		mode = ModeHybrid
	}
	res := Result{RequestedMode: mode, Hits: []Hit{}}
	if strings.TrimSpace(q.Text) == "" {
		return res, errors.New("search: empty query")
	}
	bases, err := s.scope(ctx, q.Bases)
	if err != nil {
		return res, err
	}
	r := s.retrieval
	var vecLists, kwLists [][]scored
	var qvec []float32
	searched := 0
	for _, b := range bases {
		m, fb := s.modeFor(b, mode)
		if fb != nil {
			res.Fallbacks = append(res.Fallbacks, *fb)
		}
		if m == "" {
			continue
		}
		searched++
		if m != ModeKeyword {
			if qvec == nil {
				if qvec, err = s.embedQuery(ctx, q.Text); err != nil {
					return res, err
				}
			}
			vs, err := s.vectors(ctx, b)
			if err != nil {
				return res, fmt.Errorf("search %s: %w", b.Name, err)
			}
			vecLists = append(vecLists, vs.nearest(qvec, r.TopK, r.VectorThreshold))
		}
		if m != ModeSemantic {
			kw, warn, err := s.keyword(ctx, b, q.Text, r.TopK, r.KeywordThreshold)
			if err != nil {
				return res, err
			}
			if warn != "" {
				res.Warnings = append(res.Warnings, b.Name+": "+warn)
			}
			kwLists = append(kwLists, kw)
		}
	}
	if searched == 0 {
		return res, fmt.Errorf("search: %w in %s", ErrNoIndex, baseNames(bases))
	}
	hits, err := s.candidates(ctx, bases, byScore(vecLists...), byScore(kwLists...))
	if err != nil {
		return res, err
	}
	res.Candidates = len(hits)
	if hits, err = s.rerank(ctx, q.Text, hits, &res); err != nil {
		return res, err
	}
	res.Hits = mmr(hits, s.limit(q.Limit), r.MMRLambda)
	if len(res.Hits) == 0 && !res.RerankRejected {
		res.Hint = hintNothing
	}
	return res, nil
}

func (s *Store) limit(n int) int {
	if n <= 0 {
		return s.retrieval.Limit
	}
	return min(n, s.retrieval.MaxLimit)
}

// scope resolves the bases to search; none named means all of them.
func (s *Store) scope(ctx context.Context, names []string) ([]Base, error) {
	if len(names) == 0 {
		all, err := s.List(ctx)
		if err != nil {
			return nil, err
		}
		if len(all) == 0 {
			return nil, fmt.Errorf("search: no knowledge base yet (create one with moteur kb create NAME)")
		}
		return all, nil
	}
	var out []Base
	seen := map[string]bool{}
	for _, n := range names {
		b, err := s.Base(ctx, n)
		if err != nil {
			return nil, err
		}
		if !seen[b.ID] {
			seen[b.ID] = true
			out = append(out, b)
		}
	}
	return out, nil
}

func baseNames(bases []Base) string {
	names := make([]string, len(bases))
	for i, b := range bases {
		names[i] = b.Name
	}
	return strings.Join(names, ", ")
}

// modeFor decides how base b is searched when mode is asked: the mode
// itself, or the fallback seed 000 gives (keyword on a vector-only base →
// semantic, semantic on a keyword-only base → keyword, hybrid on a base
// with one index → that index); "" when the base cannot be searched.
func (s *Store) modeFor(b Base, mode Mode) (Mode, *Fallback) {
	vec := b.Has(CapVector) && s.embedder != nil && s.embedder.Model() == b.EmbedModel
	kw := b.Has(CapKeyword)
	why := func(to Mode) *Fallback {
		reason := "the base has no keyword index"
		switch {
		case b.Has(CapVector) && s.embedder == nil:
			reason = "no embedding model is configured"
		case b.Has(CapVector) && !vec:
			reason = fmt.Sprintf("the base's vectors come from %s, not %s", b.EmbedModel, s.embedder.Model())
		case !b.Has(CapVector):
			reason = "the base has no vectors"
		}
		return &Fallback{Base: b.Name, BaseID: b.ID, From: mode, To: to, Reason: reason}
	}
	switch {
	case mode == ModeHybrid && vec && kw:
		return ModeHybrid, nil
	case mode == ModeSemantic && vec, mode == ModeKeyword && kw:
		return mode, nil
	case mode != ModeKeyword && kw:
		return ModeKeyword, why(ModeKeyword)
	case mode != ModeSemantic && vec:
		return ModeSemantic, why(ModeSemantic)
	case vec:
		return ModeSemantic, why(ModeSemantic)
	}
	return "", nil
}

func (s *Store) embedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := s.embedder.Embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("search: embedding the query: %w", err)
	}
	if len(v) != 1 || len(v[0]) == 0 {
		return nil, fmt.Errorf("search: embedding the query: got %d vectors", len(v))
	}
	normalize(v[0])
	return v[0], nil
}
