package oauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// expirySkew: a token this close to its expiry is refreshed before use, so
// that it does not expire on the way.
const expirySkew = 30 * time.Second

// ClientConfig configures the Transport of one server. Server, URL, Store
// and CheckURL are required.
type ClientConfig struct {
	// Server is the server's name in mcpServers; URL its MCP endpoint. The
	// pair names the saved tokens.
	Server string
	URL    string
	// Store holds the tokens.
	Store *Store
	// CheckURL is the outbound check (allowlist, organisation policy) run
	// on every request, to the server and to the token endpoint, before any
	// connection. A nil CheckURL refuses everything.
	CheckURL func(string) error
	// Base sends the requests; nil is http.DefaultTransport.
	Base http.RoundTripper
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Transport is the http.RoundTripper of one OAuth MCP server. It is safe for
// concurrent use.
type Transport struct {
	cfg    ClientConfig
	origin *url.URL
	next   http.RoundTripper // checked base
	token  *http.Client      // for the token endpoint, checked too

	mu     sync.Mutex
	cached *grant // the last grant loaded or refreshed
}

// NewTransport returns the Transport of cfg.
func NewTransport(cfg ClientConfig) (*Transport, error) {
	if cfg.Server == "" {
		return nil, errors.New("oauth transport: no server name")
	}
	if cfg.Store == nil {
		return nil, fmt.Errorf("oauth transport for %q: no token store", cfg.Server)
	}
	u, err := parseServerURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("oauth transport for %q: %w", cfg.Server, err)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	next := &checkedTransport{check: cfg.CheckURL, base: baseTransport(cfg.Base)}
	return &Transport{cfg: cfg, origin: u, next: next, token: &http.Client{Transport: next}}, nil
}

// Client returns an http.Client that sends through the Transport of cfg, for
// the MCP client manager (mcp.StreamableClientTransport.HTTPClient, or the
// SSE transport's).
func Client(cfg ClientConfig) (*http.Client, error) {
	t, err := NewTransport(cfg)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: t}, nil
}

// RoundTrip sends req with the server's bearer token. Requests to another
// origin (a redirect elsewhere) go without it. A 401 is answered by one
// refresh and one retry when a refresh token is saved; a 401 that remains
// is an error wrapping ErrLoginRequired, the response closed.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !sameOrigin(req.URL, t.origin) {
		return t.next.RoundTrip(req)
	}
	ctx := req.Context()
	g, err := t.current(ctx)
	if errors.Is(err, ErrNoToken) {
		// Not logged in: the server may not need it; a 401 says it does.
		return t.sendWithout(req)
	}
	if err != nil {
		closeBody(req)
		return nil, err
	}
	req, err = replayable(req)
	if err != nil {
		return nil, err
	}
	resp, err := t.send(req, g)
	if err != nil {
		return nil, err
	}
	if scopes := insufficientScope(resp); scopes != nil {
		drain(resp)
		return nil, t.stepUp(ctx, scopes)
	}
	if resp.StatusCode != http.StatusUnauthorized {
		return resp, nil
	}
	drain(resp)
	if g.RefreshToken == "" {
		return nil, loginRequired(t.cfg.Server, "the server refused the saved token and there is no refresh token", nil)
	}
	g, err = t.refresh(ctx, g.AccessToken)
	if err != nil {
		return nil, err
	}
	if req, err = rewind(req); err != nil {
		return nil, err
	}
	resp, err = t.send(req, g)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	drain(resp)
	return nil, loginRequired(t.cfg.Server, "the server refused a freshly refreshed token", nil)
}

func (t *Transport) sendWithout(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	drain(resp)
	return nil, loginRequired(t.cfg.Server, "the server asks for authorization and no token is saved", nil)
}

// send sends a copy of req bearing g's token: a RoundTripper must not change
// the request it is given.
func (t *Transport) send(req *http.Request, g *grant) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+g.AccessToken)
	return t.next.RoundTrip(r)
}

// current is the grant to send with: the cached one, or the saved one,
// refreshed first when it has expired.
func (t *Transport) current(ctx context.Context) (*grant, error) {
	t.mu.Lock()
	g := t.cached
	t.mu.Unlock()
	if g == nil {
		var err error
		if g, err = t.cfg.Store.load(t.cfg.Server, t.cfg.URL); err != nil {
			if errors.Is(err, ErrNoToken) {
				return nil, err
			}
			return nil, loginRequired(t.cfg.Server, "the saved token cannot be read", err)
		}
		t.setCached(g)
	}
	if !g.expired(t.cfg.Now(), expirySkew) {
		return g, nil
	}
	if g.RefreshToken == "" {
		return nil, loginRequired(t.cfg.Server, "the access token has expired and there is no refresh token", nil)
	}
	return t.refresh(ctx, g.AccessToken)
}

// refresh replaces the access token stale, once for every goroutine and
// Transport of the store that finds it stale: under the server's lock, the
// file is read again, and a token someone else saved meanwhile is taken as
// it is.
func (t *Transport) refresh(ctx context.Context, stale string) (*grant, error) {
	unlock, err := t.cfg.Store.lock(ctx, t.cfg.Server, t.cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: waiting for a token refresh: %w", t.cfg.Server, err)
	}
	defer unlock()
	g, err := t.cfg.Store.load(t.cfg.Server, t.cfg.URL)
	if err != nil {
		t.setCached(nil)
		return nil, loginRequired(t.cfg.Server, "the saved token cannot be read", err)
	}
	now := t.cfg.Now()
	if g.AccessToken != stale && !g.expired(now, expirySkew) {
		t.setCached(g)
		return g, nil
	}
	if g.RefreshToken == "" {
		return nil, loginRequired(t.cfg.Server, "the access token is no longer accepted and there is no refresh token", nil)
	}
	if t.cfg.Store.wasRefused(g) {
		return nil, loginRequired(t.cfg.Server, "the refresh token was refused", nil)
	}
	n, err := refreshGrant(ctx, t.token, g, now)
	if errors.Is(err, errGrantRefused) {
		t.cfg.Store.markRefused(g)
		return nil, loginRequired(t.cfg.Server, "the refresh token was refused", err)
	}
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: %w", t.cfg.Server, err)
	}
	if err := t.cfg.Store.save(n); err != nil {
		// The new token works for this process; say why the next one
		// will have to log in again.
		return nil, fmt.Errorf("MCP server %q: a refreshed token could not be saved: %w", t.cfg.Server, err)
	}
	t.setCached(n)
	return n, nil
}

func (t *Transport) setCached(g *grant) {
	t.mu.Lock()
	t.cached = g
	t.mu.Unlock()
}

// maxReplayBody bounds the body kept in memory to send a request again
// after a refresh; MCP messages are far smaller.
const maxReplayBody = 32 << 20

// replayable makes sure req's body can be sent twice: http.NewRequest sets
// GetBody for in-memory bodies (the go-sdk's case); any other body is read
// into memory.
func replayable(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return req, nil
	}
	b, err := io.ReadAll(io.LimitReader(req.Body, maxReplayBody+1))
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the request body: %w", err)
	}
	if len(b) > maxReplayBody {
		return nil, fmt.Errorf("request body over %d bytes", maxReplayBody)
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	return r, nil
}

// rewind gives req a fresh copy of its body for a second send.
func rewind(req *http.Request) (*http.Request, error) {
	if req.GetBody == nil {
		return req, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, fmt.Errorf("replaying the request body: %w", err)
	}
	r := req.Clone(req.Context())
	r.Body = body
	return r, nil
}

// drain reads a little of a response that is done with, so that its
// connection can be reused, and closes it; an event stream, which may never
// end, is closed unread.
func drain(resp *http.Response) {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	}
	_ = resp.Body.Close()
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// insufficientScope returns the scopes a 403 insufficient_scope answer asks
// for (RFC 6750 §3.1), or nil when resp is not one.
func insufficientScope(resp *http.Response) []string {
	if resp.StatusCode != http.StatusForbidden {
		return nil
	}
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return nil
	}
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["error"] == "insufficient_scope" {
			return append([]string{}, strings.Fields(c.Params["scope"])...)
		}
	}
	return nil
}

// stepUp records the scopes the server wants, for the next login to ask
// for, and says a login is needed: more permissions take the user's
// consent, which only the browser flow gives.
func (t *Transport) stepUp(ctx context.Context, scopes []string) error {
	reason := "the server needs more permissions"
	if len(scopes) > 0 {
		reason += " (scope " + strings.Join(scopes, " ") + ")"
	}
	unlock, err := t.cfg.Store.lock(ctx, t.cfg.Server, t.cfg.URL)
	if err != nil {
		return loginRequired(t.cfg.Server, reason, nil)
	}
	defer unlock()
	g, err := t.cfg.Store.load(t.cfg.Server, t.cfg.URL)
	if err != nil {
		return loginRequired(t.cfg.Server, reason, err)
	}
	g.WantScopes = unionScopes(g.WantScopes, scopes)
	if err := t.cfg.Store.save(g); err != nil {
		return loginRequired(t.cfg.Server, reason, err)
	}
	t.setCached(g)
	return loginRequired(t.cfg.Server, reason, nil)
}

// unionScopes is a then the scopes of b it lacks, in order.
func unionScopes(a, b []string) []string {
	out := append([]string{}, a...)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
