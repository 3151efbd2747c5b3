package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/provider"
)

// rerankReply scores document i as len(document i) / 10 and lists the
// results best first, as servers do.
func rerankReply(w http.ResponseWriter, r *http.Request) {
	var req wireRerankRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	type result struct {
		Index int     `json:"index"`
		Score float64 `json:"relevance_score"`
	}
	results := make([]result, len(req.Documents))
	for i, d := range req.Documents {
		results[i] = result{Index: i, Score: float64(len(d)) / 10}
	}
	sort.SliceStable(results, func(a, b int) bool { return results[a].Score > results[b].Score })
	writeJSON(w, map[string]any{"id": "rr-1", "model": req.Model, "results": results})
}

func newReranker(t *testing.T, s *postServer, sl *sleeper) *Reranker {
	t.Helper()
	r, err := NewReranker(RerankConfig{BaseURL: s.baseURL(), APIKey: "sk-test", Model: "rr", Sleep: sl.sleep})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// rerank scores three documents against replies.
func rerank(t *testing.T, replies ...http.HandlerFunc) ([]float64, *postServer, *sleeper, error) {
	t.Helper()
	s := newPostServer(t, replies...)
	sl := &sleeper{}
	scores, err := newReranker(t, s, sl).Rerank(context.Background(), "q", []string{"a", "ccc", "bb"})
	return scores, s, sl, err
}

func TestNewRerankerValidates(t *testing.T) {
	for _, cfg := range []RerankConfig{{BaseURL: "http://x/v1"}, {Model: "m"}, {BaseURL: "x", Model: "m"}} {
		if _, err := NewReranker(cfg); err == nil {
			t.Errorf("NewReranker(%+v) accepted", cfg)
		}
	}
	r, err := NewReranker(RerankConfig{BaseURL: "http://localhost:8080/v1/", Model: "bge"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Model() != "bge" || r.Endpoint() != "http://localhost:8080/v1/rerank" {
		t.Errorf("model %q endpoint %q", r.Model(), r.Endpoint())
	}
}

func TestRerankScoresInDocumentOrder(t *testing.T) {
	scores, s, _, err := rerank(t, rerankReply)
	if err != nil || !slices.Equal(scores, []float64{0.1, 0.3, 0.2}) {
		t.Fatalf("got %v, %v", scores, err)
	}
	req := s.request(0)
	want := `{"model":"rr","query":"q","documents":["a","ccc","bb"],"top_n":3}`
	if req.Path != "/v1/rerank" || string(req.Body) != want || req.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("request %s %s %v", req.Path, req.Body, req.Header)
	}
}

func TestRerankScoreFieldAndMissingResults(t *testing.T) {
	// The second document is left out: it gets 0.
	scores, _, _, err := rerank(t, raw(200, `{"results":[{"index":2,"score":-1.5},{"index":0,"score":-3}]}`))
	if err != nil || !slices.Equal(scores, []float64{-3, 0, -1.5}) {
		t.Errorf("got %v, %v", scores, err)
	}
}

func TestRerankNothingSendsNothing(t *testing.T) {
	s := newPostServer(t)
	scores, err := newReranker(t, s, &sleeper{}).Rerank(context.Background(), "q", nil)
	if err != nil || scores == nil || len(scores) != 0 {
		t.Errorf("got %v, %v", scores, err)
	}
	wantRequests(t, s, 0)
}

func TestRerankRetriesTransientFailures(t *testing.T) {
	limited := raw(429, `{"error":"busy"}`, "Retry-After", "3")
	scores, s, sl, err := rerank(t, limited, failWith(503), cutBody(t))
	if err == nil || scores != nil {
		t.Fatalf("got %v, %v, want a failure after 3 attempts", scores, err)
	}
	if !strings.HasPrefix(err.Error(), "rerank: after 3 attempts: openai: answer cut short") {
		t.Errorf("got %v", err)
	}
	wantProviderError(t, err, provider.Transient)
	wantRequests(t, s, 3)
	wantWaits(t, sl, 3*time.Second, 2*time.Second)

	scores, s, sl, err = rerank(t, failWith(500), rerankReply)
	if err != nil || len(scores) != 3 {
		t.Fatalf("got %v, %v", scores, err)
	}
	wantRequests(t, s, 2)
	wantWaits(t, sl, time.Second)
}

func TestRerankPermanentFailsAtOnce(t *testing.T) {
	_, s, sl, err := rerank(t, failWith(401))
	if pe := wantProviderError(t, err, provider.Permanent); pe.Status != 401 {
		t.Errorf("got %v", err)
	}
	wantRequests(t, s, 1)
	wantWaits(t, sl)
}

func TestRerankBadAnswersArePermanent(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"malformed", `{"results":[`, "decoding answer: unexpected end of JSON input"},
		{"not rerank", `{"data":[]}`, `answer has no "results"`},
		{"no index", `{"results":[{"relevance_score":1}]}`, "result 0 has no index"},
		{"outside", `{"results":[{"index":3,"relevance_score":1}]}`, "result 0 has index 3, outside the 3 documents sent"},
		{"twice", `{"results":[{"index":1,"score":1},{"index":1,"score":2}]}`, "two results for document 1"},
		{"no score", `{"results":[{"index":1}]}`, "result 0 (document 1) has no relevance_score"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s, _, err := rerank(t, raw(200, tc.body))
			pe := wantProviderError(t, err, provider.Permanent)
			if !strings.Contains(pe.Message, tc.want) || !strings.HasPrefix(err.Error(), "rerank: openai: ") {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			wantRequests(t, s, 1)
		})
	}
}

func TestRerankCancelledDuringBackoffStops(t *testing.T) {
	s := newPostServer(t, failWith(429))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sl := &sleeper{hook: cancel}
	_, err := newReranker(t, s, sl).Rerank(ctx, "q", []string{"a"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	wantRequests(t, s, 1)
	wantWaits(t, sl, time.Second)
}
