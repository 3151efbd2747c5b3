package oauth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/atrest"
)

func TestLoginDiscoversRegistersAndUsesPKCEAndResource(t *testing.T) {
	f := newFixture(t, nil, rsOptions{})
	b := newBrowser(t)
	var opened []string
	cfg := f.loginConfig(t, b)
	cfg.OpenBrowser = func(_ context.Context, u string) error { opened = append(opened, u); return nil }
	if err := Login(t.Context(), cfg); err != nil {
		t.Fatalf("Login: %v\noutput:\n%s", err, b.output())
	}
	if err := <-b.done; err != nil {
		t.Fatalf("browser: %v", err)
	}
	if f.as.regs != 1 {
		t.Errorf("dynamic registrations: %d, want 1", f.as.regs)
	}
	if len(f.as.authReqs) != 1 {
		t.Fatalf("authorization requests: %d, want 1", len(f.as.authReqs))
	}
	ar := f.as.authReqs[0]
	if ar.Get("code_challenge_method") != "S256" || ar.Get("resource") != f.rs.url() || ar.Get("state") == "" {
		t.Errorf("authorization request: method %q resource %q state %q; want S256, %s and a state",
			ar.Get("code_challenge_method"), ar.Get("resource"), ar.Get("state"), f.rs.url())
	}
	tr := f.as.lastTokenRequest()
	sum := sha256.Sum256([]byte(tr.Get("code_verifier")))
	if base64.RawURLEncoding.EncodeToString(sum[:]) != ar.Get("code_challenge") || tr.Get("resource") != f.rs.url() {
		t.Errorf("token request: verifier does not match the challenge, or resource %q is not %s", tr.Get("resource"), f.rs.url())
	}
	if urls := b.printedURLs(); len(urls) != 1 || len(opened) != 1 || opened[0] != urls[0] {
		t.Errorf("printed %q, opened %q: want the same one URL", urls, opened)
	}
	out := b.output()
	for _, want := range []string{`Logged in to MCP server "notes"`, "Tokens saved, encrypted, in " + f.store.Path("notes", f.rs.url())} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	st, err := f.store.Status("notes", f.rs.url())
	if err != nil || !st.LoggedIn || !st.CanRefresh || st.Expiry.IsZero() {
		t.Fatalf("status after login: %+v, %v", st, err)
	}

	// The saved token opens an MCP session and calls a tool.
	c, err := Client(f.clientConfig())
	if err != nil {
		t.Fatal(err)
	}
	s, err := connect(t.Context(), f.rs.url(), c)
	if err != nil {
		t.Fatalf("connect with the saved token: %v", err)
	}
	defer s.Close()
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError || f.rs.calls.Load() != 1 {
		t.Fatalf("tool call: %+v, %v (calls %d)", res, err, f.rs.calls.Load())
	}
}

func TestLoginFindsMetadataFromTheWWWAuthenticateHeaderOrTheWellKnownURL(t *testing.T) {
	for name, o := range map[string]rsOptions{
		// Only the header leads there: no well-known lookup tries this path.
		"header": {prmPath: "/meta/protected-resource.json"},
		// No header hint: only the well-known URL leads there.
		"well-known": {noHeaderHint: true},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, nil, o)
			b := newBrowser(t)
			if err := Login(t.Context(), f.loginConfig(t, b)); err != nil {
				t.Fatalf("Login: %v", err)
			}
			found := false
			for _, u := range f.checkedURLs() {
				found = found || strings.HasSuffix(u, f.rs.prmPath)
			}
			if !found {
				t.Errorf("metadata at %s never fetched; fetched %q", f.rs.prmPath, f.checkedURLs())
			}
		})
	}
}

func TestLoginWithAConfiguredClientIDDoesNotRegister(t *testing.T) {
	as := newFakeAS(t)
	as.dcr = false
	as.preregister("moteur-cli")
	f := newFixture(t, as, rsOptions{})
	cfg := f.loginConfig(t, newBrowser(t))
	cfg.ClientID = "moteur-cli"
	if err := Login(t.Context(), cfg); err != nil {
		t.Fatalf("Login: %v", err)
	}
	if as.regs != 0 || as.authReqs[0].Get("client_id") != "moteur-cli" {
		t.Fatalf("registrations %d, client_id %q: want 0 and moteur-cli", as.regs, as.authReqs[0].Get("client_id"))
	}
}

func TestLoginWithoutRegistrationOrClientIDSaysWhatToDo(t *testing.T) {
	as := newFakeAS(t)
	as.dcr = false
	f := newFixture(t, as, rsOptions{})
	err := Login(t.Context(), f.loginConfig(t, newBrowser(t)))
	if err == nil || !strings.Contains(err.Error(), "no dynamic client registration") || !strings.Contains(err.Error(), "client id") {
		t.Fatalf("Login: %v, want an error saying to configure a client id", err)
	}
}

func TestLoginToAServerThatDoesNotAskIsNotProtected(t *testing.T) {
	open := newFakeRSWithoutAuth(t)
	f := newFixture(t, nil, rsOptions{})
	cfg := f.loginConfig(t, newBrowser(t))
	cfg.URL = open
	if err := Login(t.Context(), cfg); !errors.Is(err, ErrNotProtected) {
		t.Fatalf("Login: %v, want ErrNotProtected", err)
	}
}

func newFakeRSWithoutAuth(t *testing.T) string {
	server := mcp.NewServer(&mcp.Implementation{Name: "open", Version: "1"}, nil)
	srv := newHTTPServer(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	return srv + "/mcp"
}

func TestLoginIgnoresAnAnswerWithAnotherState(t *testing.T) {
	f := newFixture(t, nil, rsOptions{})
	b := newBrowser(t)
	stray := make(chan int, 1)
	b.before = func(authURL string) {
		// A page trying its luck on the loopback port before the user
		// approves: refused, and the login goes on.
		redirect, _ := url.Parse(mustQuery(t, authURL, "redirect_uri"))
		q := redirect.Query()
		q.Set("code", "forged")
		q.Set("state", "not-the-state")
		redirect.RawQuery = q.Encode()
		resp, err := http.Get(redirect.String())
		if err != nil {
			stray <- -1
			return
		}
		resp.Body.Close()
		stray <- resp.StatusCode
	}
	if err := Login(t.Context(), f.loginConfig(t, b)); err != nil {
		t.Fatalf("Login: %v", err)
	}
	if code := <-stray; code != http.StatusBadRequest {
		t.Fatalf("answer with another state: HTTP %d, want 400", code)
	}
	if tr := f.as.lastTokenRequest(); tr.Get("code") == "forged" {
		t.Fatal("the forged code was exchanged")
	}
}

func mustQuery(t *testing.T, u, key string) string {
	p, err := url.Parse(u)
	if err != nil {
		t.Error(err)
		return ""
	}
	return p.Query().Get(key)
}

func TestLoginReportsTheAuthorizationServersRefusal(t *testing.T) {
	f := newFixture(t, nil, rsOptions{})
	b := newBrowser(t)
	b.follow = false
	cfg := f.loginConfig(t, b)
	cfg.OpenBrowser = func(_ context.Context, authURL string) error {
		// The user clicks "deny": the server redirects with an error.
		redirect, _ := url.Parse(mustQuery(t, authURL, "redirect_uri"))
		q := redirect.Query()
		q.Set("error", "access_denied")
		q.Set("state", mustQuery(t, authURL, "state"))
		redirect.RawQuery = q.Encode()
		go func() {
			if resp, err := http.Get(redirect.String()); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	err := Login(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "access_denied") {
		t.Fatalf("Login: %v, want the refusal access_denied", err)
	}
	if _, err := os.Stat(f.store.Path("notes", f.rs.url())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused login saved a file: %v", err)
	}
}

func TestLoginTimesOutWithAClearMessage(t *testing.T) {
	f := newFixture(t, nil, rsOptions{})
	b := newBrowser(t)
	b.follow = false // the user never comes back
	cfg := f.loginConfig(t, b)
	cfg.Timeout = 300 * time.Millisecond
	err := Login(t.Context(), cfg)
	if !errors.Is(err, ErrLoginTimeout) || !strings.Contains(err.Error(), "no answer from the browser") ||
		!strings.Contains(err.Error(), "moteur mcp login notes") {
		t.Fatalf("Login: %v, want ErrLoginTimeout saying to run moteur mcp login notes", err)
	}
	if len(b.printedURLs()) != 1 {
		t.Errorf("the URL was not printed before the wait:\n%s", b.output())
	}
}

func TestLoginRefusesANonLoopbackRedirectAddress(t *testing.T) {
	f := newFixture(t, nil, rsOptions{})
	cfg := f.loginConfig(t, newBrowser(t))
	cfg.RedirectAddr = "0.0.0.0:0"
	if err := Login(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("Login on 0.0.0.0: %v, want a refusal naming loopback", err)
	}
}

func TestARefusedHostGetsNoConnection(t *testing.T) {
	t.Run("authorization server", func(t *testing.T) {
		f := newFixture(t, nil, rsOptions{})
		asHost := mustHost(t, f.as.url())
		f.refuse = func(u *url.URL) bool { return u.Host == asHost }
		err := Login(t.Context(), f.loginConfig(t, newBrowser(t)))
		if err == nil {
			t.Fatal("Login went through a refused authorization server")
		}
		asked := false
		for _, u := range f.checkedURLs() {
			asked = asked || mustHost(t, u) == asHost
		}
		if !asked {
			t.Fatalf("the check was never asked about %s (asked %q): the test proves nothing", asHost, f.checkedURLs())
		}
		if n := f.as.conns.Load(); n != 0 {
			t.Fatalf("%d connections to the refused authorization server", n)
		}
	})
	t.Run("MCP server", func(t *testing.T) {
		f := newFixture(t, nil, rsOptions{})
		f.refuse = func(*url.URL) bool { return true }
		err := Login(t.Context(), f.loginConfig(t, newBrowser(t)))
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not in the allowlist") {
			t.Fatalf("Login: %v, want ErrRefused with the check's reason", err)
		}
		if len(f.checkedURLs()) == 0 {
			t.Fatal("the check was never called")
		}
		if n := f.rs.conns.Load() + f.as.conns.Load(); n != 0 {
			t.Fatalf("%d connections although every host is refused", n)
		}
	})
	t.Run("token endpoint on refresh", func(t *testing.T) {
		f := newFixture(t, nil, rsOptions{})
		if err := Login(t.Context(), f.loginConfig(t, newBrowser(t))); err != nil {
			t.Fatal(err)
		}
		asHost := mustHost(t, f.as.url())
		before := f.as.conns.Load()
		f.refuse = func(u *url.URL) bool { return u.Host == asHost }
		cfg := f.clientConfig()
		cfg.Now = func() time.Time { return time.Now().Add(2 * time.Hour) } // expired: refresh first
		c, _ := Client(cfg)
		_, err := connect(t.Context(), f.rs.url(), c)
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("connect: %v, want ErrRefused", err)
		}
		if f.as.conns.Load() != before || f.as.refreshCount() != 0 {
			t.Fatalf("the refused token endpoint got %d new connections", f.as.conns.Load()-before)
		}
	})
}

func mustHost(t *testing.T, u string) string {
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Host
}

func TestLoginNeedsACheck(t *testing.T) {
	f := newFixture(t, nil, rsOptions{})
	cfg := f.loginConfig(t, newBrowser(t))
	cfg.CheckURL = nil
	if err := Login(t.Context(), cfg); !errors.Is(err, ErrRefused) || f.rs.conns.Load() != 0 {
		t.Fatalf("Login without a check: %v (%d connections), want ErrRefused and none", err, f.rs.conns.Load())
	}
}

func TestNoTokenIsEverOnDiskInClear(t *testing.T) {
	f := newFixture(t, nil, rsOptions{})
	// Watch the directory through the whole login and a refresh: every
	// file that ever appears in it is read.
	var seen [][]byte
	snapshot := func() {
		entries, _ := os.ReadDir(f.dir)
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join(f.dir, e.Name())); err == nil {
				seen = append(seen, b)
			}
		}
	}
	if err := Login(t.Context(), f.loginConfig(t, newBrowser(t))); err != nil {
		t.Fatal(err)
	}
	snapshot()
	path := f.store.Path("notes", f.rs.url())
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v, mode %v; want 0600", path, err, fi.Mode().Perm())
	}
	if di, _ := os.Stat(f.dir); di.Mode().Perm() != 0o700 {
		t.Errorf("store directory mode %v, want 0700", di.Mode().Perm())
	}
	g, err := f.store.load("notes", f.rs.url())
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.clientConfig()
	cfg.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	c, _ := Client(cfg)
	s, err := connect(t.Context(), f.rs.url(), c)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	snapshot()
	g2, err := f.store.load("notes", f.rs.url())
	if err != nil || g2.AccessToken == g.AccessToken {
		t.Fatalf("no refresh happened (%v); the test proves less than it says", err)
	}
	secrets := []string{g.AccessToken, g.RefreshToken, g2.AccessToken, g2.RefreshToken}
	for _, b := range seen {
		if !atrest.IsSealed(b) {
			t.Errorf("a file in the store is not sealed: %.40q", b)
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Fatalf("a token is on disk in clear")
			}
		}
	}
	if len(seen) < 2 {
		t.Fatalf("read %d files, want the file after login and after the refresh", len(seen))
	}
}

func TestLoginGoesOnToToolsListWhenInitializeIsOpen(t *testing.T) {
	f := newFixture(t, nil, rsOptions{openInitialize: true})
	if err := Login(t.Context(), f.loginConfig(t, newBrowser(t))); err != nil {
		t.Fatalf("Login against a server that refuses tools/list only: %v", err)
	}
	if st, _ := f.store.Status("notes", f.rs.url()); !st.LoggedIn {
		t.Fatal("not logged in")
	}
}

func TestAStepUpIsALoginAskingForTheNewScope(t *testing.T) {
	f := newFixture(t, nil, rsOptions{callScope: "mcp:write"})
	if err := Login(t.Context(), f.loginConfig(t, newBrowser(t))); err != nil {
		t.Fatal(err)
	}
	if got := f.as.authReqs[0].Get("scope"); strings.Contains(got, "mcp:write") {
		t.Fatalf("first login asked for %q already", got)
	}
	call := func() error {
		c, _ := Client(f.clientConfig())
		s, err := connect(t.Context(), f.rs.url(), c)
		if err != nil {
			return err
		}
		defer s.Close()
		_, err = s.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
		return err
	}
	err := call()
	if !errors.Is(err, ErrLoginRequired) || !strings.Contains(err.Error(), "scope mcp:tools mcp:write") {
		t.Fatalf("call without the scope: %v, want ErrLoginRequired naming the scope", err)
	}
	if err := Login(t.Context(), f.loginConfig(t, newBrowser(t))); err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(f.as.authReqs[1].Get("scope")); !contains(got, "mcp:write") || !contains(got, "mcp:tools") {
		t.Fatalf("second login asked for %q, want mcp:tools and mcp:write", got)
	}
	if err := call(); err != nil {
		t.Fatalf("call after the step-up: %v", err)
	}
	if len(f.saved(t).WantScopes) != 0 {
		t.Error("the wanted scopes outlived the login that got them")
	}
}
