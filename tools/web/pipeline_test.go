package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/policy"
)

// pipelineSearcher is a Searcher for SearXNG served by a new site at
// /search, behind gate.
func pipelineSearcher(t *testing.T, gate Gate, sc SearchConfig) (*Searcher, *site) {
	t.Helper()
	s := newSite(t)
	sc.Provider, sc.BaseURL = ProviderSearXNG, s.URL
	sr, err := NewSearcher(Config{Gate: gate, Search: &sc})
	if err != nil {
		t.Fatal(err)
	}
	return sr, s
}

func TestSearcherSearXNG(t *testing.T) {
	gate := &fakeGate{}
	sr, s := pipelineSearcher(t, gate, SearchConfig{Local: true})
	var q map[string][]string
	s.handle("/search", func(w http.ResponseWriter, r *http.Request) {
		q = r.URL.Query()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, searxngAnswerJSON(s))
	})
	hits, err := sr.Search(context.Background(), "  loire tides ", 0)
	if err != nil {
		t.Fatal(err)
	}
	if q["q"][0] != "loire tides" || q["format"][0] != "json" {
		t.Fatalf("request %v", q)
	}
	want := []Hit{
		{Title: "Tides of the Loire", URL: s.url("news.test", "/tides"), Snippet: "The estuary of the Loire rises & falls twice a day.", Published: "2026-11-02T00:00:00"},
		{Title: "Loire - Wiki", URL: s.url("wiki.test", "/loire"), Snippet: "The Loire is the longest river in France."},
	}
	if len(hits) != len(want) || hits[0] != want[0] || hits[1] != want[1] {
		t.Fatalf("hits %+v, want %+v", hits, want)
	}
	if sends := gate.asked(); len(sends) != 1 || sends[0].Kind != SendSearch || sends[0].Text != "loire tides" || !sends[0].Local || sends[0].Host != "127.0.0.1" {
		t.Fatalf("gate sends %+v", sends)
	}
	if sr.Provider() != ProviderSearXNG {
		t.Errorf("provider %q", sr.Provider())
	}
}

// TestSearcherCount: count bounds the results, and MaxResults bounds count.
func TestSearcherCount(t *testing.T) {
	sr, s := pipelineSearcher(t, &fakeGate{}, SearchConfig{MaxResults: 1})
	s.handle("/search", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, searxngAnswerJSON(s))
	})
	for _, count := range []int{1, 5} {
		hits, err := sr.Search(context.Background(), "loire", count)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 {
			t.Errorf("count %d with max_results 1: %d hits, want 1", count, len(hits))
		}
	}
}

// TestSearcherRefusedSendsNothing: the gate's refusal comes back as it is
// (a *policy.Refusal), and the provider gets no request.
func TestSearcherRefusedSendsNothing(t *testing.T) {
	gate := &fakeGate{refuse: func(Send) error {
		return &policy.Refusal{Rule: "sensitive session", Reason: "the provider is not declared local"}
	}}
	sr, s := pipelineSearcher(t, gate, SearchConfig{})
	s.handle("/search", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, searxngAnswerJSON(s))
	})
	_, err := sr.Search(context.Background(), "loire tides", 3)
	var r *policy.Refusal
	if !errors.As(err, &r) || r.Rule != "sensitive session" || !errors.Is(err, policy.ErrRefused) {
		t.Fatalf("error %v, want the gate's refusal", err)
	}
	if !strings.Contains(err.Error(), "not sent") {
		t.Errorf("error %q does not say that nothing was sent", err)
	}
	if n := len(gate.asked()); n != 1 {
		t.Fatalf("gate asked %d times, want 1: the search was attempted", n)
	}
	if n := s.count("/search"); n != 0 {
		t.Errorf("the provider got %d requests, want 0", n)
	}
}

// TestSearcherRetries: a 503 is retried as web_search retries it.
func TestSearcherRetries(t *testing.T) {
	sr, s := pipelineSearcher(t, &fakeGate{}, SearchConfig{})
	var waits []time.Duration
	sr.s.wait = func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}
	n := 0
	s.handle("/search", func(w http.ResponseWriter, r *http.Request) {
		if n++; n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, searxngAnswerJSON(s))
	})
	hits, err := sr.Search(context.Background(), "loire", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || n != 2 || len(waits) != 1 {
		t.Fatalf("%d hits after %d requests and waits %v, want 2 after 2 and one wait", len(hits), n, waits)
	}
}

// TestSearcherFailure: a provider that keeps failing is an error naming it.
func TestSearcherFailure(t *testing.T) {
	sr, s := pipelineSearcher(t, &fakeGate{}, SearchConfig{MaxRetries: -1})
	s.handle("/search", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
	})
	_, err := sr.Search(context.Background(), "loire", 2)
	if err == nil || !strings.Contains(err.Error(), "searxng answered") || !strings.Contains(err.Error(), "json format") {
		t.Fatalf("error %v, want the provider's refusal with its hint", err)
	}
	if s.count("/search") != 1 {
		t.Errorf("%d requests, want 1", s.count("/search"))
	}
}

func TestNewSearcherErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no provider", Config{Gate: &fakeGate{}}, "no search provider configured"},
		{"no gate", Config{Search: &SearchConfig{Provider: ProviderSearXNG, BaseURL: "http://127.0.0.1:8888"}}, "a gate is required"},
		{"unknown provider", Config{Gate: &fakeGate{}, Search: &SearchConfig{Provider: "altavista"}}, `unknown provider "altavista"`},
		{"searxng without address", Config{Gate: &fakeGate{}, Search: &SearchConfig{Provider: ProviderSearXNG}}, "needs base_url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewSearcher(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	sr, err := NewSearcher(Config{Gate: &fakeGate{}, Search: &SearchConfig{Provider: ProviderSearXNG, BaseURL: "http://127.0.0.1:8888"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sr.Search(context.Background(), "  ", 1); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("empty query: %v, want an error saying so", err)
	}
}
