package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// RerankConfig configures a Reranker. Zero values are defaults, as in
// EmbedConfig.
type RerankConfig struct {
	// BaseURL is the API root, as Config.BaseURL; requests go to
	// BaseURL + "/rerank". Required.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <APIKey>" when set.
	APIKey string
	// Model is the reranking model. Required.
	Model string
	// MaxRetries is the number of retries of a transient failure: 0 means
	// 2, a negative number none.
	MaxRetries int
	// HTTPClient sends the requests; nil means the chat client's default
	// with 60 s for a whole exchange.
	HTTPClient *http.Client
	// Headers are added to every request, after the default ones.
	Headers map[string]string
	// Sleep waits between attempts; nil means a timer that ends with ctx.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Reranker scores documents against a query with the /rerank endpoint
// served by vLLM, llama.cpp, Jina and Cohere-compatible servers. It is safe
// for concurrent use.
type Reranker struct {
	post  *poster
	model string
}

// NewReranker checks cfg and returns a Reranker.
func NewReranker(cfg RerankConfig) (*Reranker, error) {
	if cfg.Model == "" {
		return nil, errors.New("rerank: Model is required")
	}
	p, err := newPoster(postConfig{baseURL: cfg.BaseURL, path: "/rerank", apiKey: cfg.APIKey,
		maxRetries: cfg.MaxRetries, httpClient: cfg.HTTPClient, headers: cfg.Headers, sleep: cfg.Sleep})
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	return &Reranker{post: p, model: cfg.Model}, nil
}

// Model returns the configured model.
func (r *Reranker) Model() string { return r.model }

// Endpoint is the URL requests are sent to, for the checks made before a
// send.
func (r *Reranker) Endpoint() string { return r.post.endpoint }

// Rerank returns one relevance score per document, in the documents' order
// (the server answers best first). All documents go in one request, with
// top_n set to their number; a document the server leaves out of its
// results anyway (a server that caps top_n) gets score 0. Scores are the
// server's: probabilities for some models, logits for others, so only
// their order means something across models. Errors wrap a
// *provider.Error or the context's error.
func (r *Reranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if len(docs) == 0 {
		return []float64{}, nil
	}
	req := wireRerankRequest{Model: r.model, Query: query, Documents: docs, TopN: len(docs)}
	var scores []float64
	err := r.post.post(ctx, req, func(body []byte) error {
		var ans wireRerankAnswer
		if err := r.post.decodeAnswer(body, &ans); err != nil {
			return err
		}
		var err error
		if scores, err = ans.scores(len(docs)); err != nil {
			return r.post.badAnswer(err, "%v", err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	return scores, nil
}

type wireRerankRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n"`
}

type wireRerankAnswer struct {
	answerError
	// Results is a pointer so that an answer without the field, which is
	// not a rerank answer, is told from an empty list.
	Results *[]wireRerankResult `json:"results"`
}

type wireRerankResult struct {
	Index *int `json:"index"`
	// RelevanceScore is the usual name; some servers say Score.
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"`
}

// scores puts each result's score at its document's position.
func (a *wireRerankAnswer) scores(n int) ([]float64, error) {
	if a.Results == nil {
		return nil, errors.New(`answer has no "results"`)
	}
	out := make([]float64, n)
	seen := make([]bool, n)
	for i, res := range *a.Results {
		score := res.RelevanceScore
		if score == nil {
			score = res.Score
		}
		switch {
		case res.Index == nil:
			// Results come sorted by score: without an index, the
			// position says nothing of the document.
			return nil, fmt.Errorf("result %d has no index", i)
		case *res.Index < 0 || *res.Index >= n:
			return nil, fmt.Errorf("result %d has index %d, outside the %d documents sent", i, *res.Index, n)
		case seen[*res.Index]:
			return nil, fmt.Errorf("two results for document %d", *res.Index)
		case score == nil:
			return nil, fmt.Errorf("result %d (document %d) has no relevance_score", i, *res.Index)
		}
		seen[*res.Index] = true
		out[*res.Index] = *score
	}
	return out, nil
}
