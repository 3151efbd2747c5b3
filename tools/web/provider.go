package web

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/moteur/moteur/netguard"
)

// Search providers.
const (
	ProviderSearXNG = "searxng"
	ProviderBrave   = "brave"
	ProviderTavily  = "tavily"
)

// Defaults of SearchConfig.
const (
	DefaultSearchTimeout  = 30 * time.Second
	DefaultMaxRetries     = 2
	DefaultCount          = 5
	MaxCount              = 20
	DefaultContentPages   = 3
	DefaultContentChars   = 5000
	DefaultContentTimeout = 15 * time.Second
	// maxRetryWait bounds a Retry-After the tool honours: a provider
	// asking for longer gets a clear result instead of a stalled call.
	maxRetryWait = 10 * time.Second
)

// SearchConfig configures web_search (config web.search).
type SearchConfig struct {
	// Provider is searxng, brave or tavily.
	Provider string
	// BaseURL is the provider's address: required for SearXNG
	// (self-hosted), the public API by default for Brave and Tavily.
	BaseURL string
	// APIKey is the provider's key (required for Brave and Tavily).
	APIKey string
	// Local declares the provider local: it may receive a sensitive
	// session's queries.
	Local bool
	// MaxResults caps count (0 or more than MaxCount: MaxCount).
	MaxResults int
	// Timeout bounds the provider's answer, retries included (0:
	// DefaultSearchTimeout).
	Timeout time.Duration
	// MaxRetries bounds the retries of a 429, a 5xx or a failed
	// connection (0: DefaultMaxRetries; negative: none).
	MaxRetries int
	// ContentPages, ContentChars and ContentTimeout shape content: true:
	// the first ContentPages results fetched in parallel within
	// ContentTimeout, ContentChars characters each (0: 3, 5000, 15 s).
	ContentPages   int
	ContentChars   int
	ContentTimeout time.Duration
}

// query is one search as the providers take it.
type query struct {
	Text      string
	Count     int
	Country   string // two letters or ALL; "" for none
	Freshness string // pd, pw, pm, py or YYYY-MM-DDtoYYYY-MM-DD; "" for none
}

// hit is one search result.
type hit struct {
	Title     string
	URL       string
	Snippet   string
	Published string
}

// provider speaks one search API.
type provider interface {
	// name is the provider's name in results.
	name() string
	// request builds the HTTP request of q (called again for each try).
	request(ctx context.Context, q query) (*http.Request, error)
	// decode reads a 200 answer.
	decode(body []byte) ([]hit, error)
	// supports says which options of q the API takes ("country",
	// "freshness", "date_range").
	supports(option string) bool
}

// newProvider builds the provider of cfg.
func newProvider(cfg SearchConfig) (provider, error) {
	switch strings.ToLower(cfg.Provider) {
	case ProviderSearXNG:
		if cfg.BaseURL == "" {
			return nil, errors.New("web.search: searxng needs base_url (the address of the SearXNG instance)")
		}
		return &searxng{base: strings.TrimRight(cfg.BaseURL, "/"), key: cfg.APIKey}, nil
	case ProviderBrave:
		if cfg.APIKey == "" {
			return nil, errors.New("web.search: brave needs an API key (api_key_env)")
		}
		return &brave{base: orDefault(cfg.BaseURL, braveBase), key: cfg.APIKey}, nil
	case ProviderTavily:
		if cfg.APIKey == "" {
			return nil, errors.New("web.search: tavily needs an API key (api_key_env)")
		}
		return &tavily{base: orDefault(cfg.BaseURL, tavilyBase), key: cfg.APIKey}, nil
	}
	return nil, fmt.Errorf("web.search: unknown provider %q: searxng, brave or tavily", cfg.Provider)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return strings.TrimRight(s, "/")
}

// searcher asks the provider, retrying what may pass on a later try.
type searcher struct {
	cfg    SearchConfig
	p      provider
	host   string
	client *netguard.Client
	// wait pauses between tries; tests replace it so that nothing sleeps.
	wait func(ctx context.Context, d time.Duration) error
}

func newSearcher(cfg SearchConfig, web Config) (*searcher, error) {
	p, err := newProvider(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.MaxResults <= 0 || cfg.MaxResults > MaxCount {
		cfg.MaxResults = MaxCount
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultSearchTimeout
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.ContentPages <= 0 {
		cfg.ContentPages = DefaultContentPages
	}
	if cfg.ContentChars <= 0 {
		cfg.ContentChars = DefaultContentChars
	}
	if cfg.ContentTimeout <= 0 {
		cfg.ContentTimeout = DefaultContentTimeout
	}
	req, err := p.request(context.Background(), query{Text: "x", Count: 1})
	if err != nil {
		return nil, fmt.Errorf("web.search: %w", err)
	}
	// The provider is the user's own choice (a SearXNG on this machine is
	// the sovereign default): its address may be private without being
	// listed again in allow_private_hosts, which governs the pages.
	private := append(slices.Clone(web.AllowPrivateHosts), hostPort(req.URL))
	return &searcher{cfg: cfg, p: p, host: req.URL.Hostname(),
		// An API does not redirect: a redirect is refused rather than
		// followed somewhere the gate did not see.
		client: netguard.New(netguard.Config{AllowPrivateHosts: private, MaxRedirects: -1,
			Timeout: cfg.Timeout, Resolver: web.Resolver, Dial: web.Dial, TLS: web.TLS}),
		wait: sleep,
	}, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// search asks the provider, retrying 429, 5xx and failed connections up to
// MaxRetries times (honouring Retry-After, at most maxRetryWait).
func (s *searcher) search(ctx context.Context, q query) ([]hit, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	tries := max(s.cfg.MaxRetries, 0) + 1
	var last error
	for i := range tries {
		hits, wait, err := s.try(ctx, q)
		if err == nil {
			return hits, nil
		}
		last = err
		var fe *fetchError
		if !errors.As(err, &fe) || !fe.Retryable || i == tries-1 {
			break
		}
		if wait <= 0 {
			wait = time.Duration(1<<i) * time.Second
		}
		if wait > maxRetryWait {
			break
		}
		if err := s.wait(ctx, wait); err != nil {
			break
		}
	}
	return nil, last
}

// try makes one request; wait is the Retry-After asked, if any.
func (s *searcher) try(ctx context.Context, q query) (hits []hit, wait time.Duration, err error) {
	req, err := s.p.request(ctx, q)
	if err != nil {
		return nil, 0, failure(codeInvalidURL, false, "%s: %v", s.p.name(), err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		fe := classify(context.Background(), err, s.cfg.Timeout)
		if fe.Code == codeNetwork || fe.Code == codeTimeout {
			fe.Msg = fmt.Sprintf("%s at %s is unreachable: %s", s.p.name(), s.host, fe.Msg)
		}
		return nil, 0, fe
	}
	defer resp.Body.Close()
	body, _, err := netguard.ReadBody(resp.Body, 8<<20)
	if err != nil {
		return nil, 0, failure(codeNetwork, true, "%s: %v", s.p.name(), err)
	}
	if resp.StatusCode != http.StatusOK {
		fe := statusFailure(resp)
		fe.Msg = s.p.name() + " answered " + fe.Msg + providerHint(s.p.name(), resp.StatusCode, body)
		return nil, retryAfter(resp.Header.Get("Retry-After")), fe
	}
	hits, err = s.p.decode(body)
	if err != nil {
		return nil, 0, failure(codeParse, false, "%s: unexpected answer: %v", s.p.name(), err)
	}
	for i := range hits {
		hits[i].Title = plain(hits[i].Title)
		hits[i].Snippet = plain(hits[i].Snippet)
	}
	if len(hits) > q.Count {
		hits = hits[:q.Count]
	}
	return hits, 0, nil
}

// providerHint says what to do about a refusal the user can fix.
func providerHint(name string, status int, body []byte) string {
	switch {
	case name == ProviderSearXNG && status == http.StatusForbidden:
		return ": enable the json format (search.formats in SearXNG's settings.yml)"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ": check the API key (api_key_env)"
	}
	if msg := strings.TrimSpace(string(body)); msg != "" && len(msg) < 300 {
		return ": " + oneLine(msg)
	}
	return ""
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

var tags = regexp.MustCompile(`<[^>]*>`)

// plain drops the markup providers put in titles and snippets (Brave's
// <strong>) and decodes entities.
func plain(s string) string {
	return oneLine(html.UnescapeString(tags.ReplaceAllString(s, "")))
}

// endpoint joins a base URL and a path with query parameters.
func endpoint(base, path string, params url.Values) (string, error) {
	u, err := url.Parse(base + path)
	if err != nil {
		return "", fmt.Errorf("invalid base_url %q: %w", base, err)
	}
	u.RawQuery = params.Encode()
	return u.String(), nil
}
