package web

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Searcher runs web searches for a pipeline that is not a tool call (the
// quick answer): the same provider, retries and Gate as web_search, its
// results handed back as data rather than rendered for a model. It is safe
// for concurrent use.
type Searcher struct {
	gate Gate
	s    *searcher
}

// Hit is one web search result.
type Hit struct {
	Title   string
	URL     string
	Snippet string
	// Published is the date the provider gives, as it gives it ("" when
	// none).
	Published string
}

// NewSearcher returns a Searcher for cfg's search provider. cfg.Gate and
// cfg.Search are required; the fetch settings of cfg are not used (a
// search reads no page), its network settings are.
func NewSearcher(cfg Config) (*Searcher, error) {
	if cfg.Gate == nil {
		return nil, errors.New("web search: a gate is required (every query is an outbound send)")
	}
	if cfg.Search == nil {
		return nil, errors.New("web search: no search provider configured (web.search in the configuration)")
	}
	s, err := newSearcher(*cfg.Search, cfg)
	if err != nil {
		return nil, fmt.Errorf("web search: %w", err)
	}
	return &Searcher{gate: cfg.Gate, s: s}, nil
}

// Provider is the name of the search provider (searxng, brave, tavily).
func (s *Searcher) Provider() string { return s.s.p.name() }

// Search asks the provider for count results of text (count <= 0: the
// default, DefaultCount; more than the configured MaxResults: that many).
// The query is put to the Gate first: a refusal is returned wrapped (%w),
// and nothing is sent.
func (s *Searcher) Search(ctx context.Context, text string, count int) ([]Hit, error) {
	q := query{Text: strings.TrimSpace(text), Count: count}
	if q.Text == "" {
		return nil, errors.New("web search: the query is empty")
	}
	if q.Count <= 0 {
		q.Count = DefaultCount
	}
	q.Count = min(q.Count, s.s.cfg.MaxResults)
	if err := s.gate.CheckWeb(ctx, Send{Kind: SendSearch, Host: s.s.host, Text: q.Text, Local: s.s.cfg.Local}); err != nil {
		return nil, fmt.Errorf("web search not sent: %w", err)
	}
	hits, err := s.s.search(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("web search failed: %w", err)
	}
	out := make([]Hit, len(hits))
	for i, h := range hits {
		out[i] = Hit(h)
	}
	return out, nil
}
