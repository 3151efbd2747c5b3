package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/redact"
)

// loggedIn is a fixture after a successful Login.
func loggedIn(t *testing.T, as *fakeAS) *fixture {
	t.Helper()
	f := newFixture(t, as, rsOptions{})
	if err := Login(t.Context(), f.loginConfig(t, newBrowser(t))); err != nil {
		t.Fatalf("Login: %v", err)
	}
	return f
}

func (f *fixture) saved(t *testing.T) *grant {
	t.Helper()
	g, err := f.store.load("notes", f.rs.url())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestAnExpiredTokenIsRefreshedWithTheResourceAndSaved(t *testing.T) {
	f := loggedIn(t, nil)
	old := f.saved(t)
	cfg := f.clientConfig()
	cfg.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	c, _ := Client(cfg)
	s, err := connect(t.Context(), f.rs.url(), c)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	s.Close()
	if n := f.as.refreshCount(); n != 1 {
		t.Fatalf("refreshes: %d, want 1", n)
	}
	if tr := f.as.lastTokenRequest(); tr.Get("resource") != f.rs.url() || tr.Get("refresh_token") != old.RefreshToken {
		t.Errorf("refresh request: resource %q, want %s, with the saved refresh token", tr.Get("resource"), f.rs.url())
	}
	n := f.saved(t)
	if n.AccessToken == old.AccessToken || n.RefreshToken == old.RefreshToken {
		t.Fatal("the refreshed (and rotated) tokens were not saved")
	}
	if _, ok := f.rs.bearers.Load(old.AccessToken); ok {
		t.Error("the expired token was sent before the refresh")
	}
}

func TestA401IsAnsweredByOneRefreshAndOneRetry(t *testing.T) {
	f := loggedIn(t, nil)
	f.as.revokeAccess() // the server no longer takes the token it issued
	c, _ := Client(f.clientConfig())
	s, err := connect(t.Context(), f.rs.url(), c)
	if err != nil {
		t.Fatalf("connect after a 401: %v", err)
	}
	s.Close()
	if n := f.as.refreshCount(); n != 1 {
		t.Fatalf("refreshes: %d, want 1", n)
	}
}

func TestA401ThatCannotBeFixedTellsTheUserToLogIn(t *testing.T) {
	cases := map[string]func(t *testing.T, f *fixture){
		"refresh refused": func(_ *testing.T, f *fixture) { f.as.revokeAccess(); f.as.refuseRefresh = true },
		"no refresh token": func(t *testing.T, f *fixture) {
			f.as.revokeAccess()
			g := f.saved(t)
			g.RefreshToken = ""
			if err := f.store.save(g); err != nil {
				t.Fatal(err)
			}
		},
		"expired, no refresh token": func(t *testing.T, f *fixture) {
			g := f.saved(t)
			g.RefreshToken = ""
			g.Expiry = time.Now().Add(-time.Minute)
			if err := f.store.save(g); err != nil {
				t.Fatal(err)
			}
		},
		"never logged in": func(t *testing.T, f *fixture) {
			if err := f.store.Delete("notes", f.rs.url()); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, breakIt := range cases {
		t.Run(name, func(t *testing.T) {
			f := loggedIn(t, nil)
			breakIt(t, f)
			before := f.as.refreshCount()
			c, _ := Client(f.clientConfig())
			_, err := connect(t.Context(), f.rs.url(), c)
			if !errors.Is(err, ErrLoginRequired) || !strings.Contains(err.Error(), "run `moteur mcp login notes`") {
				t.Fatalf("connect: %v, want ErrLoginRequired telling to run moteur mcp login notes", err)
			}
			if f.as.refreshCount()-before > 1 {
				t.Errorf("%d refreshes for one request, want at most 1", f.as.refreshCount()-before)
			}
			if f.rs.calls.Load() != 0 {
				t.Error("a call reached the server")
			}
		})
	}
}

func TestConcurrentRequestsRefreshOnce(t *testing.T) {
	f := loggedIn(t, nil)
	cfg := f.clientConfig()
	cfg.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	// Two transports of one store, as two connections of one session;
	// the fake server rotates refresh tokens, so a second refresh with
	// the old one would be refused.
	t1, _ := NewTransport(cfg)
	t2, _ := NewTransport(cfg)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		rt := t1
		if i%2 == 1 {
			rt = t2
		}
		wg.Go(func() {
			s, err := connect(context.Background(), f.rs.url(), &http.Client{Transport: rt})
			if err == nil {
				s.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent connect: %v", err)
		}
	}
	if n := f.as.refreshCount(); n != 1 {
		t.Fatalf("refreshes: %d, want exactly 1", n)
	}
}

func TestTheTokenGoesToTheServersOriginOnly(t *testing.T) {
	f := loggedIn(t, nil)
	var got []string
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
	}))
	defer other.Close()
	tr, _ := NewTransport(f.clientConfig())
	req, _ := http.NewRequest(http.MethodGet, other.URL+"/mcp", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(got) != 1 || got[0] != "" {
		t.Fatalf("another origin received Authorization %q", got)
	}
	if req.Header.Get("Authorization") != "" {
		t.Fatal("RoundTrip changed the caller's request")
	}
	checked := false
	for _, u := range f.checkedURLs() {
		checked = checked || strings.HasPrefix(u, other.URL)
	}
	if !checked {
		t.Error("the request to another origin skipped the outbound check")
	}
}

func TestAWrongKeyCannotOpenTheTokenFile(t *testing.T) {
	f := loggedIn(t, nil)
	other, err := NewStore(StoreConfig{Dir: f.dir, Key: testKey(t, 2)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.Status("notes", f.rs.url())
	path := f.store.Path("notes", f.rs.url())
	if !errors.Is(err, atrest.ErrWrongKey) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "log in again") {
		t.Fatalf("Status with another key: %v, want ErrWrongKey naming %s and saying to log in again", err, path)
	}
	c, _ := Client(ClientConfig{Server: "notes", URL: f.rs.url(), Store: other, CheckURL: f.check})
	_, err = connect(t.Context(), f.rs.url(), c)
	if !errors.Is(err, ErrLoginRequired) || !errors.Is(err, atrest.ErrWrongKey) {
		t.Fatalf("connect with another key: %v, want ErrLoginRequired and ErrWrongKey", err)
	}
}

func TestATokenFileCopiedOverAnotherServersDoesNotOpen(t *testing.T) {
	f := loggedIn(t, nil)
	b, err := os.ReadFile(f.store.Path("notes", f.rs.url()))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.store.Path("wiki", "https://wiki.example/mcp"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Status("wiki", "https://wiki.example/mcp"); !errors.Is(err, atrest.ErrDamaged) {
		t.Fatalf("swapped file: %v, want ErrDamaged", err)
	}
	// Same name, other URL: another file, no token.
	if st, err := f.store.Status("notes", "https://elsewhere.example/mcp"); err != nil || st.LoggedIn {
		t.Fatalf("same name at another URL: %+v, %v; want not logged in", st, err)
	}
}

func TestTokensAreMaskedInStringsAndErrors(t *testing.T) {
	f := loggedIn(t, nil)
	g := f.saved(t)
	e := loginRequired("notes", "test", fmt.Errorf("cause"))
	for _, s := range []string{fmt.Sprint(g), fmt.Sprintf("%+v", g), fmt.Sprintf("%#v", g), fmt.Sprintf("%v", *g), e.Error()} {
		for _, secret := range []string{g.AccessToken, g.RefreshToken} {
			if strings.Contains(s, secret) {
				t.Fatalf("a token shows in %q", s)
			}
		}
	}
	// Should a header leak into a log, package redact masks it.
	masked, kinds := redact.String("Authorization: Bearer " + g.AccessToken)
	if strings.Contains(masked, g.AccessToken) || len(kinds) == 0 {
		t.Errorf("redact leaves a bearer token: %q", masked)
	}
}
