package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// searxng speaks SearXNG's search API: GET /search?q=…&format=json (the
// json format enabled in the instance's settings.yml).
type searxng struct {
	base string
	key  string // optional: sent as a bearer token to an instance behind a proxy
}

func (*searxng) name() string { return ProviderSearXNG }

func (*searxng) supports(option string) bool { return option == "freshness" }

// searxngRanges maps freshness to SearXNG's time_range.
var searxngRanges = map[string]string{"pd": "day", "pw": "week", "pm": "month", "py": "year"}

func (p *searxng) request(ctx context.Context, q query) (*http.Request, error) {
	params := url.Values{"q": {q.Text}, "format": {"json"}, "pageno": {strconv.Itoa(1)}}
	if r, ok := searxngRanges[q.Freshness]; ok {
		params.Set("time_range", r)
	}
	u, err := endpoint(p.base, "/search", params)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if p.key != "" {
		req.Header.Set("Authorization", "Bearer "+p.key)
	}
	return req, nil
}

// searxngAnswer is the part of SearXNG's JSON answer the tool reads.
type searxngAnswer struct {
	Results []struct {
		URL           string `json:"url"`
		Title         string `json:"title"`
		Content       string `json:"content"`
		PublishedDate string `json:"publishedDate"`
	} `json:"results"`
}

func (*searxng) decode(body []byte) ([]hit, error) {
	var a searxngAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, err
	}
	hits := make([]hit, 0, len(a.Results))
	for _, r := range a.Results {
		hits = append(hits, hit{Title: r.Title, URL: r.URL, Snippet: r.Content, Published: r.PublishedDate})
	}
	return hits, nil
}
