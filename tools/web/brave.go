package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// braveBase is Brave Search's API.
const braveBase = "https://api.search.brave.com"

// brave speaks Brave's web search API: GET /res/v1/web/search with the key
// in X-Subscription-Token.
type brave struct {
	base string
	key  string
}

func (*brave) name() string { return ProviderBrave }

func (*brave) supports(string) bool { return true }

func (p *brave) request(ctx context.Context, q query) (*http.Request, error) {
	params := url.Values{"q": {q.Text}, "count": {strconv.Itoa(q.Count)}}
	if q.Country != "" {
		params.Set("country", strings.ToUpper(q.Country))
	}
	if q.Freshness != "" {
		params.Set("freshness", q.Freshness)
	}
	u, err := endpoint(p.base, "/res/v1/web/search", params)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", p.key)
	return req, nil
}

// braveAnswer is the part of Brave's answer the tool reads.
type braveAnswer struct {
	Web struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
			Age         string `json:"age"`
			PageAge     string `json:"page_age"`
		} `json:"results"`
	} `json:"web"`
}

func (*brave) decode(body []byte) ([]hit, error) {
	var a braveAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, err
	}
	hits := make([]hit, 0, len(a.Web.Results))
	for _, r := range a.Web.Results {
		hits = append(hits, hit{Title: r.Title, URL: r.URL, Snippet: r.Description, Published: orDefault(r.PageAge, r.Age)})
	}
	return hits, nil
}
