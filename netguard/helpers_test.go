package netguard

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeResolver answers each name with its next answer in turn (the last one
// repeated) and counts the lookups.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	calls   map[string]int
}

func newResolver() *fakeResolver {
	return &fakeResolver{answers: map[string][][]netip.Addr{}, calls: map[string]int{}}
}

// on adds the answers of successive lookups of host.
func (r *fakeResolver) on(host string, answers ...string) *fakeResolver {
	for _, a := range answers {
		r.answers[host] = append(r.answers[host], []netip.Addr{netip.MustParseAddr(a)})
	}
	return r
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.calls[host]
	r.calls[host]++
	as := r.answers[host]
	if len(as) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return as[min(n, len(as)-1)], nil
}

func (r *fakeResolver) lookups(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
}

// fakeDialer records every address dialled and connects "public"
// addresses to the test server at to (the stand-in for the internet).
type fakeDialer struct {
	mu     sync.Mutex
	dialed []string
	to     string
}

func (d *fakeDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.dialed = append(d.dialed, addr)
	d.mu.Unlock()
	target := addr
	if d.to != "" {
		target = d.to
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, target)
}

func (d *fakeDialer) addrs() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.dialed...)
}

// countingServer is a test server that counts its requests.
type countingServer struct {
	*httptest.Server
	hits atomic.Int64
}

func newServer(t *testing.T, h http.HandlerFunc) *countingServer {
	t.Helper()
	s := &countingServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *countingServer) port() string {
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	return p
}

func (s *countingServer) hostport() string { return s.Listener.Addr().String() }

func ok(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") }
