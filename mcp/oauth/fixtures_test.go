package oauth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/moteur/moteur/atrest"
)

// fakeAS is an authorization server the tests control fully: RFC 8414
// metadata, RFC 7591 registration, the authorization endpoint (which
// redirects at once, as a user who approves), and a token endpoint that
// verifies PKCE S256, the client, the redirect URI and the resource.
type fakeAS struct {
	t   *testing.T
	srv *httptest.Server

	// Options, set before use.
	dcr            bool          // offer a registration endpoint
	accessTTL      time.Duration // expires_in of access tokens
	noRefreshToken bool          // issue no refresh token
	refuseRefresh  bool          // answer every refresh invalid_grant

	mu       sync.Mutex
	clients  map[string]asClient
	codes    map[string]asCode
	access   map[string]asToken
	refresh  map[string]asRefresh
	authReqs []url.Values // authorization requests received
	tokReqs  []url.Values // token requests received
	regs     int
	conns    atomic.Int64
}

type asClient struct{ redirects []string }

type asCode struct {
	client, redirect, challenge, resource, scope string
}

type asRefresh struct{ client, resource, scope string }

// asToken is what an access token grants.
type asToken struct{ resource, scope string }

func newFakeAS(t *testing.T) *fakeAS {
	a := &fakeAS{t: t, dcr: true, accessTTL: time.Hour,
		clients: map[string]asClient{}, codes: map[string]asCode{},
		access: map[string]asToken{}, refresh: map[string]asRefresh{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	mux.HandleFunc("POST /register", a.register)
	mux.HandleFunc("GET /authorize", a.authorize)
	mux.HandleFunc("POST /token", a.token)
	a.srv = httptest.NewUnstartedServer(mux)
	a.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			a.conns.Add(1)
		}
	}
	a.srv.Start()
	t.Cleanup(a.srv.Close)
	return a
}

func (a *fakeAS) url() string { return a.srv.URL }

// preregister makes a client known without registration.
func (a *fakeAS) preregister(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.clients[id] = asClient{} // any loopback redirect
}

func (a *fakeAS) metadata(w http.ResponseWriter, r *http.Request) {
	m := map[string]any{
		"issuer":                                a.url(),
		"authorization_endpoint":                a.url() + "/authorize",
		"token_endpoint":                        a.url() + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                      []string{"mcp:tools", "offline_access"},
	}
	if a.dcr {
		m["registration_endpoint"] = a.url() + "/register"
	}
	writeJSON(w, http.StatusOK, m)
}

func (a *fakeAS) register(w http.ResponseWriter, r *http.Request) {
	var md oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&md); err != nil || len(md.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := "client-" + randomString()
	a.mu.Lock()
	a.clients[id] = asClient{redirects: md.RedirectURIs}
	a.regs++
	a.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "redirect_uris": md.RedirectURIs,
		"token_endpoint_auth_method": "none", "grant_types": md.GrantTypes,
	})
}

func (a *fakeAS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	a.authReqs = append(a.authReqs, q)
	c, ok := a.clients[q.Get("client_id")]
	a.mu.Unlock()
	redirect := q.Get("redirect_uri")
	switch {
	case !ok:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case c.redirects != nil && !contains(c.redirects, redirect):
		http.Error(w, "redirect_uri not registered", http.StatusBadRequest)
		return
	case !strings.HasPrefix(redirect, "http://127.0.0.1:"):
		http.Error(w, "not a loopback redirect", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE S256 required", http.StatusBadRequest)
		return
	}
	code := "code-" + randomString()
	a.mu.Lock()
	a.codes[code] = asCode{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource"), scope: q.Get("scope")}
	a.mu.Unlock()
	to, _ := url.Parse(redirect)
	v := to.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	to.RawQuery = v.Encode()
	http.Redirect(w, r, to.String(), http.StatusFound)
}

func (a *fakeAS) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	if id, _, ok := r.BasicAuth(); ok && f.Get("client_id") == "" {
		// client_secret_basic, or oauth2's first guess for a public client
		id, _ = url.QueryUnescape(id)
		f.Set("client_id", id)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tokReqs = append(a.tokReqs, f)
	fail := func(code, why string) {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": why})
	}
	var client, resource, scope string
	switch f.Get("grant_type") {
	case "authorization_code":
		c, ok := a.codes[f.Get("code")]
		delete(a.codes, f.Get("code")) // one use
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok:
			fail("invalid_grant", "unknown or used code")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			fail("invalid_grant", "PKCE verifier does not match the challenge")
			return
		case f.Get("client_id") != c.client:
			fail("invalid_client", "client_id")
			return
		case f.Get("redirect_uri") != c.redirect:
			fail("invalid_grant", "redirect_uri")
			return
		case f.Get("resource") == "" || f.Get("resource") != c.resource:
			fail("invalid_target", "resource")
			return
		}
		client, resource, scope = c.client, c.resource, c.scope
	case "refresh_token":
		rt, ok := a.refresh[f.Get("refresh_token")]
		switch {
		case a.refuseRefresh || !ok:
			fail("invalid_grant", "refresh token unknown, used or revoked")
			return
		case f.Get("client_id") != rt.client:
			fail("invalid_client", "client_id")
			return
		case f.Get("resource") != rt.resource:
			fail("invalid_target", "resource")
			return
		}
		delete(a.refresh, f.Get("refresh_token")) // rotation: one use
		client, resource, scope = rt.client, rt.resource, rt.scope
	default:
		fail("unsupported_grant_type", f.Get("grant_type"))
		return
	}
	at := "at-" + randomString()
	a.access[at] = asToken{resource: resource, scope: scope}
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(a.accessTTL.Seconds()), "scope": scope}
	if !a.noRefreshToken {
		rt := "rt-" + randomString()
		a.refresh[rt] = asRefresh{client: client, resource: resource, scope: scope}
		resp["refresh_token"] = rt
	}
	writeJSON(w, http.StatusOK, resp)
}

// revokeAccess makes every access token issued so far invalid, as a server
// that expired them early.
func (a *fakeAS) revokeAccess() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.access)
}

func (a *fakeAS) validAccess(tok string) (asToken, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	at, ok := a.access[tok]
	return at, ok
}

func (a *fakeAS) refreshCount() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, f := range a.tokReqs {
		if f.Get("grant_type") == "refresh_token" {
			n++
		}
	}
	return n
}

func (a *fakeAS) lastTokenRequest() url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.tokReqs) == 0 {
		return nil
	}
	return a.tokReqs[len(a.tokReqs)-1]
}

// fakeRS is a protected MCP server: the go-sdk's streamable handler with one
// tool, behind the go-sdk's bearer middleware, which answers 401 with
// resource_metadata in WWW-Authenticate, and its protected-resource
// metadata (RFC 9728).
type fakeRS struct {
	srv     *httptest.Server
	as      *fakeAS
	prmPath string
	calls   atomic.Int64 // tool calls served
	conns   atomic.Int64
	bearers sync.Map // tokens seen
}

type rsOptions struct {
	// prmPath serves the metadata there only, and names it in
	// WWW-Authenticate (a path no well-known lookup would try).
	prmPath string
	// noHeaderHint leaves resource_metadata out of WWW-Authenticate, so
	// the client must find the metadata at its well-known URL.
	noHeaderHint bool
	// issuer overrides the authorization server named in the metadata.
	issuer string
	// verify overrides the token check.
	verify auth.TokenVerifier
	// openInitialize lets initialize through without a token: the first
	// request refused is tools/list.
	openInitialize bool
	// callScope is a scope tools/call needs beyond the others: a token
	// without it gets 403 insufficient_scope (step-up).
	callScope string
}

func newFakeRS(t *testing.T, as *fakeAS, o rsOptions) *fakeRS {
	rs := &fakeRS{as: as, prmPath: o.prmPath}
	if rs.prmPath == "" {
		rs.prmPath = "/.well-known/oauth-protected-resource/mcp"
	}
	mux := http.NewServeMux()
	rs.srv = httptest.NewUnstartedServer(mux)
	rs.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			rs.conns.Add(1)
		}
	}
	rs.srv.Start()
	t.Cleanup(rs.srv.Close)

	issuer := o.issuer
	if issuer == "" {
		issuer = as.url()
	}
	mux.Handle("GET "+rs.prmPath, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             rs.url(),
		AuthorizationServers: []string{issuer},
		ScopesSupported:      []string{"mcp:tools"},
	}))
	server := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "echoes"}, func(ctx context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		rs.calls.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	verify := o.verify
	if verify == nil {
		verify = func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
			at, ok := as.validAccess(tok)
			if !ok || at.resource != rs.url() {
				return nil, auth.ErrInvalidToken
			}
			return &auth.TokenInfo{Scopes: strings.Fields(at.scope), Expiration: time.Now().Add(time.Hour)}, nil
		}
	}
	seen := func(ctx context.Context, tok string, r *http.Request) (*auth.TokenInfo, error) {
		rs.bearers.Store(tok, true)
		return verify(ctx, tok, r)
	}
	opts := &auth.RequireBearerTokenOptions{}
	if !o.noHeaderHint {
		opts.ResourceMetadataURL = rs.srv.URL + rs.prmPath
	}
	protected := auth.RequireBearerToken(seen, opts)(rs.scoped(o.callScope, handler))
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.openInitialize {
			switch rpcMethod(r) {
			case "initialize", "notifications/initialized":
				handler.ServeHTTP(w, r)
				return
			}
		}
		protected.ServeHTTP(w, r)
	}))
	return rs
}

// url is the MCP endpoint, which is also the resource identifier.
func (rs *fakeRS) url() string { return rs.srv.URL + "/mcp" }

// fixture is one server, its authorization server and a store.
type fixture struct {
	as    *fakeAS
	rs    *fakeRS
	key   *atrest.Key
	store *Store
	dir   string
	// checked records every URL given to the outbound check.
	checkedMu sync.Mutex
	checked   []string
	refuse    func(u *url.URL) bool
}

func newFixture(t *testing.T, as *fakeAS, o rsOptions) *fixture {
	t.Helper()
	if as == nil {
		as = newFakeAS(t)
	}
	f := &fixture{as: as, rs: newFakeRS(t, as, o), dir: filepath.Join(t.TempDir(), DirName)}
	f.key = testKey(t, 1)
	var err error
	if f.store, err = NewStore(StoreConfig{Dir: f.dir, Key: f.key}); err != nil {
		t.Fatal(err)
	}
	return f
}

func testKey(t *testing.T, b byte) *atrest.Key {
	t.Helper()
	k, err := atrest.New(bytes.Repeat([]byte{b}, atrest.Size))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func (f *fixture) check(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return err
	}
	f.checkedMu.Lock()
	f.checked = append(f.checked, u)
	refuse := f.refuse
	f.checkedMu.Unlock()
	if refuse != nil && refuse(p) {
		return fmt.Errorf("host %s is not in the allowlist", p.Host)
	}
	return nil
}

func (f *fixture) checkedURLs() []string {
	f.checkedMu.Lock()
	defer f.checkedMu.Unlock()
	return append([]string(nil), f.checked...)
}

// loginConfig logs in to the fixture's server with a browser that follows
// the printed URL.
func (f *fixture) loginConfig(t *testing.T, b *browser) LoginConfig {
	return LoginConfig{
		Server: "notes", URL: f.rs.url(), Store: f.store, CheckURL: f.check,
		Out: b, Timeout: 30 * time.Second,
	}
}

func (f *fixture) clientConfig() ClientConfig {
	return ClientConfig{Server: "notes", URL: f.rs.url(), Store: f.store, CheckURL: f.check}
}

// browser stands for the user's browser: an io.Writer for LoginConfig.Out
// that, on the line holding the authorization URL, follows it (redirects
// and all, to the loopback callback) with an http.Client, as a user who
// opened it and approved.
type browser struct {
	t      *testing.T
	before func(authURL string) // runs before following, if set
	mu     sync.Mutex
	out    bytes.Buffer
	urls   []string
	done   chan error
	follow bool
}

func newBrowser(t *testing.T) *browser {
	return &browser{t: t, done: make(chan error, 4), follow: true}
}

func (b *browser) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.out.Write(p)
	for line := range strings.Lines(string(p)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "http://") && strings.Contains(line, "?") {
			b.urls = append(b.urls, line)
			if b.follow {
				go b.visit(line)
			}
		}
	}
	return len(p), nil
}

func (b *browser) visit(u string) {
	if b.before != nil {
		b.before(u)
	}
	resp, err := http.Get(u)
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("browser landed on HTTP %d", resp.StatusCode)
		}
	}
	b.done <- err
}

func (b *browser) output() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.out.String()
}

func (b *browser) printedURLs() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.urls...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func randomString() string { return rand.Text() }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// connect opens an MCP session to the fixture's server through c.
func connect(ctx context.Context, rsURL string, c *http.Client) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "moteur-test", Version: "1"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rsURL, HTTPClient: c, DisableStandaloneSSE: true}, nil)
}

func newHTTPServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// scoped refuses tools/call with 403 insufficient_scope unless the token
// holds scope.
func (rs *fakeRS) scoped(scope string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if scope != "" && rpcMethod(r) == "tools/call" {
			ti := auth.TokenInfoFromContext(r.Context())
			if ti == nil || !contains(ti.Scopes, scope) {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="mcp:tools %s", resource_metadata="%s"`, scope, rs.srv.URL+rs.prmPath))
				http.Error(w, "insufficient scope", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// rpcMethod peeks at the JSON-RPC method of a POST, leaving the body whole.
func rpcMethod(r *http.Request) string {
	if r.Method != http.MethodPost || r.Body == nil {
		return ""
	}
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	var m struct{ Method string }
	_ = json.Unmarshal(b, &m)
	return m.Method
}
