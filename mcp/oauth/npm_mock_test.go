package oauth

import (
	"bufio"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/internal/npmtest"
)

// startOAuth2MockServer runs oauth2-mock-server on a free loopback port
// and returns its issuer URL; the process is killed at the end of the test.
func startOAuth2MockServer(t *testing.T) string {
	node := npmtest.Node22(t)
	bin := npmtest.Need(t, filepath.Join(npmtest.Prefix(), "node_modules/oauth2-mock-server/dist/oauth2-mock-server.mjs"), "the npm package oauth2-mock-server")
	cmd := exec.Command(node, bin, "-a", "127.0.0.1", "-p", "0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting oauth2-mock-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	issuer := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "OAuth 2 issuer is "); ok {
				issuer <- strings.TrimSpace(rest)
			}
		}
		close(issuer)
	}()
	select {
	case u, ok := <-issuer:
		if !ok {
			t.Fatal("oauth2-mock-server exited before saying its issuer")
		}
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("oauth2-mock-server did not start within 30s")
	}
	return ""
}

// jwtVerifier checks the mock's tokens as a resource server would: an
// RS256 signature by a key of the issuer's JWKS, the issuer, the expiry.
func jwtVerifier(t *testing.T, issuer string) auth.TokenVerifier {
	var doc struct {
		JWKSURI string `json:"jwks_uri"`
	}
	getJSON(t, issuer+"/.well-known/openid-configuration", &doc)
	var set struct {
		Keys []struct{ Kid, N, E string }
	}
	getJSON(t, doc.JWKSURI, &set)
	keys := map[string]*rsa.PublicKey{}
	for _, k := range set.Keys {
		n, err1 := base64.RawURLEncoding.DecodeString(k.N)
		e, err2 := base64.RawURLEncoding.DecodeString(k.E)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		keys[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	}
	return func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		parts := strings.Split(tok, ".")
		if len(parts) != 3 {
			return nil, auth.ErrInvalidToken
		}
		var hdr struct{ Alg, Kid string }
		var claims struct {
			Iss   string
			Exp   int64
			Scope string
		}
		if decodeSegment(parts[0], &hdr) != nil || decodeSegment(parts[1], &claims) != nil || hdr.Alg != "RS256" {
			return nil, auth.ErrInvalidToken
		}
		sig, err := base64.RawURLEncoding.DecodeString(parts[2])
		key := keys[hdr.Kid]
		sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
		if err != nil || key == nil || rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], sig) != nil || claims.Iss != issuer {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: strings.Fields(claims.Scope), Expiration: time.Unix(claims.Exp, 0)}, nil
	}
}

func decodeSegment(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

// TestLoginAgainstOAuth2MockServer runs the flow against a real OAuth 2
// server from npm: OpenID discovery (it has no RFC 8414 document, so the
// fallback is what finds it), PKCE S256 (it checks the verifier), a client
// id configured beforehand (it has no registration), signed JWT access
// tokens, and refresh.
func TestLoginAgainstOAuth2MockServer(t *testing.T) {
	issuer := startOAuth2MockServer(t)
	as := newFakeAS(t) // unused as an authorization server: its connection count must stay 0
	f := newFixture(t, as, rsOptions{issuer: issuer, verify: jwtVerifier(t, issuer)})
	b := newBrowser(t)
	cfg := f.loginConfig(t, b)
	cfg.ClientID = "moteur-test"
	if err := Login(t.Context(), cfg); err != nil {
		t.Fatalf("Login: %v\n%s", err, b.output())
	}
	if err := <-b.done; err != nil {
		t.Fatal(err)
	}
	if as.conns.Load() != 0 {
		t.Fatal("the flow went to the Go server, not the npm one")
	}
	oidc := false
	for _, u := range f.checkedURLs() {
		oidc = oidc || strings.HasSuffix(u, "/.well-known/openid-configuration")
	}
	if !oidc {
		t.Errorf("OpenID discovery never asked: %q", f.checkedURLs())
	}
	first := f.saved(t)
	if first.RefreshToken == "" || strings.Count(first.AccessToken, ".") != 2 {
		t.Fatalf("saved: refresh token %v, a JWT %v", first.RefreshToken != "", strings.Count(first.AccessToken, ".") == 2)
	}

	call := func(now func() time.Time) {
		t.Helper()
		cc := f.clientConfig()
		cc.Now = now
		c, _ := Client(cc)
		s, err := connect(t.Context(), f.rs.url(), c)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer s.Close()
		if _, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
			t.Fatalf("call: %v", err)
		}
	}
	call(nil)
	// Two hours on, the one-hour token has expired: refreshed at the mock.
	call(func() time.Time { return time.Now().Add(2 * time.Hour) })
	// (The access token may come out byte for byte the same: the mock's
	// JWTs hold no id, and both were signed in one second.)
	if g := f.saved(t); g.RefreshToken == first.RefreshToken || !g.Saved.After(first.Saved.Add(time.Hour)) {
		t.Fatal("the token was not refreshed")
	}
	if f.rs.calls.Load() != 2 {
		t.Fatalf("tool calls: %d, want 2", f.rs.calls.Load())
	}
}
