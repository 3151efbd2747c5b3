package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// rule returns the rule of a refusal in err, or "".
func rule(err error) string {
	var re *RefusedError
	if errors.As(err, &re) {
		return re.Rule
	}
	return ""
}

func get(t *testing.T, c *Client, u string) (string, error) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestAllowListReachesLoopback(t *testing.T) {
	srv := newServer(t, ok)
	refused := New(Config{})
	if _, err := get(t, refused, srv.URL); rule(err) != RuleLoopback {
		t.Fatalf("without allow list: %v, want a loopback refusal", err)
	}
	if srv.hits.Load() != 0 {
		t.Fatalf("refused request reached the server")
	}
	allowed := New(Config{AllowPrivateHosts: []string{srv.hostport()}})
	if body, err := get(t, allowed, srv.URL); err != nil || body != "ok" {
		t.Fatalf("with %s allowed: %q, %v", srv.hostport(), body, err)
	}
	other := New(Config{AllowPrivateHosts: []string{"127.0.0.1:1"}})
	if _, err := get(t, other, srv.URL); rule(err) != RuleLoopback {
		t.Fatalf("another port allowed: %v, want a loopback refusal", err)
	}
}

func TestRedirectChainFollowedAndBounded(t *testing.T) {
	var srv *countingServer
	srv = newServer(t, func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/%d", &n)
		if n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/%d", n-1), http.StatusFound)
			return
		}
		fmt.Fprint(w, "end")
	})
	c := New(Config{AllowPrivateHosts: []string{srv.hostport()}})
	if body, err := get(t, c, srv.URL+"/5"); err != nil || body != "end" {
		t.Fatalf("5 redirects: %q, %v", body, err)
	}
	if srv.hits.Load() != 6 {
		t.Fatalf("5 redirects made %d requests, want 6", srv.hits.Load())
	}
	srv.hits.Store(0)
	if _, err := get(t, c, srv.URL+"/6"); rule(err) != RuleRedirects {
		t.Fatalf("6 redirects: %v, want a redirects refusal", err)
	}
	if srv.hits.Load() != 6 {
		t.Fatalf("6 redirects made %d requests, want 6 (the 7th refused)", srv.hits.Load())
	}
}

func TestRedirectToLoopbackRefused(t *testing.T) {
	inner := newServer(t, ok)
	outer := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/admin", http.StatusFound)
	})
	c := New(Config{AllowPrivateHosts: []string{outer.hostport()}})
	_, err := get(t, c, outer.URL)
	if rule(err) != RuleLoopback {
		t.Fatalf("redirect to %s: %v, want a loopback refusal", inner.URL, err)
	}
	if outer.hits.Load() != 1 || inner.hits.Load() != 0 {
		t.Fatalf("outer got %d requests (want 1), inner %d (want 0)", outer.hits.Load(), inner.hits.Load())
	}
}

func TestRedirectCheckedByCheckURL(t *testing.T) {
	inner := newServer(t, ok)
	outer := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://blocked.test:"+inner.port()+"/", http.StatusFound)
	})
	res := newResolver().on("blocked.test", "93.184.216.34")
	var asked []string
	c := New(Config{AllowPrivateHosts: []string{outer.hostport()}, Resolver: res,
		CheckURL: func(_ context.Context, u *url.URL) error {
			asked = append(asked, u.Hostname())
			if u.Hostname() == "blocked.test" {
				return errors.New("blocked.test is not on the allowlist")
			}
			return nil
		}})
	if _, err := get(t, c, outer.URL); err == nil || !strings.Contains(err.Error(), "allowlist") {
		t.Fatalf("got %v, want the CheckURL refusal", err)
	}
	if !slices.Equal(asked, []string{"127.0.0.1", "blocked.test"}) || outer.hits.Load() != 1 || inner.hits.Load() != 0 {
		t.Fatalf("asked %v, outer %d, inner %d", asked, outer.hits.Load(), inner.hits.Load())
	}
	if res.lookups("blocked.test") != 0 {
		t.Fatalf("a refused URL was resolved")
	}
}

func TestHostResolvingToPrivateRefused(t *testing.T) {
	res := newResolver().on("intranet.test", "10.0.0.5")
	d := &fakeDialer{}
	c := New(Config{Resolver: res, Dial: d.dial})
	_, err := get(t, c, "http://intranet.test/")
	want := "refused: intranet.test resolves to 10.0.0.5, which is a private address (allow_private_hosts to allow it)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	if res.lookups("intranet.test") != 1 || len(d.addrs()) != 0 {
		t.Fatalf("lookups %d (want 1), dials %v (want none)", res.lookups("intranet.test"), d.addrs())
	}
}

func TestRebindingPinsFirstAnswer(t *testing.T) {
	srv := newServer(t, ok)
	res := newResolver().on("rebind.test", "93.184.216.34", "127.0.0.1")
	d := &fakeDialer{to: srv.hostport()}
	c := New(Config{Resolver: res, Dial: d.dial})
	if body, err := get(t, c, "http://rebind.test:"+srv.port()+"/"); err != nil || body != "ok" {
		t.Fatalf("got %q, %v", body, err)
	}
	if n := res.lookups("rebind.test"); n != 1 {
		t.Fatalf("%d lookups, want 1", n)
	}
	if got := d.addrs(); !slices.Equal(got, []string{"93.184.216.34:" + srv.port()}) {
		t.Fatalf("dialled %v, want the first answer only", got)
	}
}

func TestLiteralAddressesRefused(t *testing.T) {
	srv := newServer(t, ok)
	d := &fakeDialer{}
	c := New(Config{Dial: d.dial, Resolver: newResolver()})
	for u, want := range map[string]string{
		"http://169.254.169.254/latest/meta-data/":      RuleMetadata,
		"http://[fd00:ec2::254]/latest/meta-data/":      RuleMetadata,
		"http://[::ffff:127.0.0.1]:" + srv.port() + "/": RuleLoopback,
		"http://[::ffff:a9fe:a9fe]/":                    RuleMetadata,
		"http://0.0.0.0:" + srv.port() + "/":            RuleUnspecified,
		"http://100.64.1.2/":                            RuleShared,
	} {
		if _, err := get(t, c, u); rule(err) != want {
			t.Errorf("%s: %v, want rule %s", u, err, want)
		}
	}
	if len(d.addrs()) != 0 || srv.hits.Load() != 0 {
		t.Fatalf("refused addresses dialled: %v, server hits %d", d.addrs(), srv.hits.Load())
	}
	// The mapped loopback address does reach the server once allowed: the
	// refusal above was the rule, not an unreachable address.
	mapped := "[::ffff:127.0.0.1]:" + srv.port()
	allowed := New(Config{AllowPrivateHosts: []string{mapped}})
	if body, err := get(t, allowed, "http://"+mapped+"/"); err != nil || body != "ok" {
		t.Fatalf("allowed %s: %q, %v", mapped, body, err)
	}
}

func TestSchemeRefused(t *testing.T) {
	c := New(Config{})
	for _, u := range []string{"ftp://example.com/x", "file:///etc/passwd", "gopher://example.com/"} {
		if _, err := get(t, c, u); rule(err) != RuleScheme {
			t.Errorf("%s: %v, want a scheme refusal", u, err)
		}
	}
}

func TestTLSVerifiesURLHostName(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(ok))
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	_, port, _ := strings.Cut(srv.Listener.Addr().String(), ":")
	// httptest's certificate is for example.com, not for other.test.
	res := newResolver().on("example.com", "93.184.216.34").on("other.test", "93.184.216.34")
	d := &fakeDialer{to: srv.Listener.Addr().String()}
	c := New(Config{Resolver: res, Dial: d.dial, TLS: &tls.Config{RootCAs: pool}})
	if body, err := get(t, c, "https://example.com:"+port+"/"); err != nil || body != "ok" {
		t.Fatalf("example.com: %q, %v", body, err)
	}
	var certErr *tls.CertificateVerificationError
	if _, err := get(t, c, "https://other.test:"+port+"/"); !errors.As(err, &certErr) {
		t.Fatalf("other.test: %v, want a certificate verification error", err)
	}
	if len(d.addrs()) != 2 {
		t.Fatalf("dials %v, want 2", d.addrs())
	}
}
