// Package web holds the web tools of seed 000: web_search, which asks a
// search provider (SearXNG, Brave or Tavily, each through its real API),
// and web_fetch, which reads pages as Markdown or text through the
// SSRF-safe client of package netguard.
//
// Results show short ids (wN) that web_fetch accepts and that map back in
// citations, as cN does for a passage; every result lists in
// Result.References what its ids stand for. A query and a URL are outbound
// sends: each is put to the Gate before anything leaves the machine, and a
// refusal names its rule. The whole text of a page is kept as a web://
// snapshot (Snapshots) that can be read again page by page.
//
// The tools only read; they are safe for concurrent use.
package web

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/moteur/moteur/netguard"
	"github.com/moteur/moteur/tools"
)

// Tool names.
const (
	SearchName = "web_search"
	FetchName  = "web_fetch"
)

// Kinds of outbound send put to the Gate.
const (
	SendSearch = "search" // a query to a search provider
	SendFetch  = "fetch"  // a URL requested (a page, a redirect)
)

// Send is one outbound send: what would leave the machine, and where to.
type Send struct {
	// Kind is SendSearch or SendFetch.
	Kind string
	// Host is the host the text goes to (the provider's, the page's).
	Host string
	// Text is what is sent: the query, or the URL.
	Text string
	// Local reports that the receiver is declared local: a search provider
	// with local: true, or a host of allow_private_hosts. Only a local
	// receiver may get a sensitive session's text.
	Local bool
	// Redirect reports a URL the call did not name: a redirect of the
	// page it asked for. The call was judged on the URL it named; a gate
	// must judge this one itself.
	Redirect bool
}

// Gate decides whether a send may leave: the host allowlist and the
// organisation policy, markings in the text, a sensitive session (known
// from ctx). A refusal is an error whose text names the rule; it is shown
// to the model as it is.
type Gate interface {
	CheckWeb(ctx context.Context, s Send) error
}

// Defaults of Config.
const (
	DefaultPageTimeout  = 3 * time.Minute
	DefaultToolMargin   = 5 * time.Second
	DefaultMaxBodyBytes = 10 << 20
	DefaultMaxParallel  = 8
	// FetchBudget is the shared character budget of one web_fetch call,
	// and the largest limit of one item (seed 000).
	FetchBudget = 8000
	// SnapshotPageBytes is the page size in which read_file should serve a
	// web:// snapshot (seed 000: 50 KiB a page).
	SnapshotPageBytes = 50 << 10
)

// Config configures the tools. Gate is required.
type Config struct {
	// Gate is asked about every query and every URL (redirects included).
	Gate Gate
	// Search configures web_search; nil registers web_fetch alone.
	Search *SearchConfig
	// AllowPrivateHosts lists the hosts or host:port pairs that may be
	// private or loopback (config allow_private_hosts).
	AllowPrivateHosts []string
	// Snapshots keeps the pages read (nil: an in-memory store per
	// Register call).
	Snapshots Snapshots
	// PageTimeout bounds the fetch of one page (0: DefaultPageTimeout);
	// the pages of a call are fetched in parallel.
	PageTimeout time.Duration
	// ToolMargin is added to the longest step for the tool's deadline (0:
	// DefaultToolMargin).
	ToolMargin time.Duration
	// MaxBodyBytes caps the bytes read of one page (0:
	// DefaultMaxBodyBytes); the rest is cut and said to be.
	MaxBodyBytes int64
	// MaxParallel bounds the pages fetched at once (0:
	// DefaultMaxParallel).
	MaxParallel int
	// ConfirmFetch has the user confirm every call that fetches a page
	// (web_fetch, web_search with content), whatever the mode and the
	// allow rules say (profile restricted).
	ConfirmFetch bool

	// Resolver, Dial and TLS replace the network for tests (nil: the
	// system's).
	Resolver netguard.Resolver
	Dial     netguard.DialFunc
	TLS      *tls.Config
}

// Register adds web_fetch, and web_search when cfg.Search is set, to r.
func Register(r *tools.Registry, cfg Config) error {
	sc, err := newScope(cfg)
	if err != nil {
		return err
	}
	ts := []tools.Tool{&fetchTool{sc}}
	if sc.search != nil {
		ts = append(ts, &searchTool{sc})
	}
	for _, t := range ts {
		if err := r.Register(t); err != nil {
			return fmt.Errorf("web tools: %w", err)
		}
	}
	return nil
}

// scope is what the tools share.
type scope struct {
	cfg     Config
	client  *netguard.Client // pages: redirects followed, each gated
	ids     *ids
	search  *searcher
	fetcher *fetcher
}

func newScope(cfg Config) (*scope, error) {
	if cfg.Gate == nil {
		return nil, errors.New("web tools: a gate is required (every query and URL is an outbound send)")
	}
	if cfg.Snapshots == nil {
		cfg.Snapshots = NewMemorySnapshots(0)
	}
	if cfg.PageTimeout <= 0 {
		cfg.PageTimeout = DefaultPageTimeout
	}
	if cfg.ToolMargin <= 0 {
		cfg.ToolMargin = DefaultToolMargin
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxParallel <= 0 {
		cfg.MaxParallel = DefaultMaxParallel
	}
	sc := &scope{cfg: cfg, ids: newIDs()}
	sc.client = netguard.New(netguard.Config{
		AllowPrivateHosts: cfg.AllowPrivateHosts,
		Timeout:           cfg.PageTimeout,
		Resolver:          cfg.Resolver,
		Dial:              cfg.Dial,
		TLS:               cfg.TLS,
		CheckURL:          sc.checkURL,
	})
	sc.fetcher = &fetcher{client: sc.client, maxBytes: cfg.MaxBodyBytes, timeout: cfg.PageTimeout}
	if cfg.Search != nil {
		s, err := newSearcher(*cfg.Search, cfg)
		if err != nil {
			return nil, fmt.Errorf("web tools: %w", err)
		}
		sc.search = s
	}
	return sc, nil
}

// checkURL puts a URL about to be requested to the gate.
func (s *scope) checkURL(ctx context.Context, u *url.URL) error {
	text := u.String()
	err := s.cfg.Gate.CheckWeb(ctx, Send{Kind: SendFetch, Host: u.Hostname(), Text: text, Local: s.client.Allowed(hostPort(u)),
		Redirect: askedFrom(ctx) != text})
	if err != nil {
		return &deniedError{err}
	}
	return nil
}

// hostPort is u's host:port, the default port of its scheme filled in, as
// the client dials it.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// deniedError marks a gate refusal, so that the result says "denied"
// rather than a network failure.
type deniedError struct{ err error }

func (e *deniedError) Error() string { return e.err.Error() }
func (e *deniedError) Unwrap() error { return e.err }

// errResult is a failed call the model can correct.
func errResult(err error) (tools.Result, error) {
	return tools.Result{Content: err.Error(), IsError: true}, nil
}

// askedKey marks a request's context with the URL the call named, so that
// checkURL tells its redirects apart.
type askedKey struct{}

func withAsked(ctx context.Context, u string) context.Context {
	return context.WithValue(ctx, askedKey{}, u)
}

func askedFrom(ctx context.Context) string {
	u, _ := ctx.Value(askedKey{}).(string)
	return u
}
