package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
)

// tavilyBase is Tavily's API.
const tavilyBase = "https://api.tavily.com"

// tavily speaks Tavily's search API: POST /search with a JSON body and the
// key as a bearer token.
type tavily struct {
	base string
	key  string
}

func (*tavily) name() string { return ProviderTavily }

func (*tavily) supports(option string) bool { return option == "freshness" }

// tavilyRanges maps freshness to Tavily's time_range.
var tavilyRanges = map[string]string{"pd": "day", "pw": "week", "pm": "month", "py": "year"}

type tavilyRequest struct {
	Query             string `json:"query"`
	MaxResults        int    `json:"max_results"`
	SearchDepth       string `json:"search_depth"`
	Topic             string `json:"topic"`
	TimeRange         string `json:"time_range,omitempty"`
	IncludeAnswer     bool   `json:"include_answer"`
	IncludeRawContent bool   `json:"include_raw_content"`
}

func (p *tavily) request(ctx context.Context, q query) (*http.Request, error) {
	body, err := json.Marshal(tavilyRequest{Query: q.Text, MaxResults: q.Count, SearchDepth: "basic", Topic: "general",
		TimeRange: tavilyRanges[q.Freshness]})
	if err != nil {
		return nil, err
	}
	u, err := endpoint(p.base, "/search", nil)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+p.key)
	return req, nil
}

// tavilyAnswer is the part of Tavily's answer the tool reads.
type tavilyAnswer struct {
	Results []struct {
		Title         string  `json:"title"`
		URL           string  `json:"url"`
		Content       string  `json:"content"`
		Score         float64 `json:"score"`
		PublishedDate string  `json:"published_date"`
	} `json:"results"`
}

func (*tavily) decode(body []byte) ([]hit, error) {
	var a tavilyAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, err
	}
	hits := make([]hit, 0, len(a.Results))
	for _, r := range a.Results {
		hits = append(hits, hit{Title: r.Title, URL: r.URL, Snippet: r.Content, Published: r.PublishedDate})
	}
	return hits, nil
}
