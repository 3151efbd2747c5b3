package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
)

// publicAddr is the address the fake resolver gives the "internet"
// names; the fake dialer connects it to the test server.
const publicAddr = "93.184.216.34"

// fakeGate records the sends it is asked about and refuses those refuse
// names.
type fakeGate struct {
	mu     sync.Mutex
	sends  []Send
	refuse func(Send) error
}

func (g *fakeGate) CheckWeb(_ context.Context, s Send) error {
	g.mu.Lock()
	g.sends = append(g.sends, s)
	g.mu.Unlock()
	if g.refuse != nil {
		return g.refuse(s)
	}
	return nil
}

func (g *fakeGate) asked() []Send {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Send(nil), g.sends...)
}

// fakeNet resolves names by a table (counting lookups) and dials the
// public addresses to the test server, everything else for real.
type fakeNet struct {
	mu      sync.Mutex
	names   map[string][]string // host → successive answers
	lookups map[string]int
	dialed  []string
	to      string // the test server standing in for the internet
}

func newFakeNet(to string) *fakeNet {
	return &fakeNet{names: map[string][]string{}, lookups: map[string]int{}, to: to}
}

func (n *fakeNet) on(host string, answers ...string) *fakeNet {
	n.names[host] = answers
	return n
}

func (n *fakeNet) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	i := n.lookups[host]
	n.lookups[host]++
	as, ok := n.names[host]
	if !ok {
		as = []string{publicAddr}
	}
	return []netip.Addr{netip.MustParseAddr(as[min(i, len(as)-1)])}, nil
}

func (n *fakeNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	n.dialed = append(n.dialed, addr)
	n.mu.Unlock()
	host, _, _ := net.SplitHostPort(addr)
	if host == publicAddr {
		addr = n.to
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func (n *fakeNet) dials() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.dialed...)
}

func (n *fakeNet) lookupsOf(host string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.lookups[host]
}

// site is a test server standing in for the web, counting requests by
// path.
type site struct {
	*httptest.Server
	mux  *http.ServeMux
	hits sync.Map // path → *atomic.Int64
}

func newSite(t testing.TB) *site {
	t.Helper()
	s := &site{mux: http.NewServeMux()}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := s.hits.LoadOrStore(r.URL.Path, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
		s.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) handle(path string, h http.HandlerFunc) { s.mux.HandleFunc(path, h) }

func (s *site) page(path, contentType, body string) {
	s.handle(path, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write([]byte(body))
	})
}

func (s *site) count(path string) int64 {
	if c, ok := s.hits.Load(path); ok {
		return c.(*atomic.Int64).Load()
	}
	return 0
}

func (s *site) port() string {
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	return p
}

// url is the address of path on a public-looking name served by s.
func (s *site) url(host, path string) string { return "http://" + host + ":" + s.port() + path }

// fixture is a registry with the web tools on a fake network.
type fixture struct {
	reg   *tools.Registry
	gate  *fakeGate
	net   *fakeNet
	site  *site
	table *cite.Table
	snaps *MemorySnapshots
}

func newFixture(t testing.TB, edit func(*Config, *site)) *fixture {
	t.Helper()
	s := newSite(t)
	f := &fixture{gate: &fakeGate{}, site: s, net: newFakeNet(s.Listener.Addr().String()), table: cite.NewTable(),
		snaps: NewMemorySnapshots(0)}
	cfg := Config{Gate: f.gate, Resolver: f.net, Dial: f.net.dial, Snapshots: f.snaps}
	if edit != nil {
		edit(&cfg, s)
	}
	f.reg = tools.NewRegistry(tools.Config{MaxOutput: 200000})
	if err := Register(f.reg, cfg); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) call(t testing.TB, name, args string) tools.Result {
	t.Helper()
	ctx := cite.WithTable(context.Background(), f.table)
	return f.reg.Execute(ctx, llm.ToolCall{ID: "1", Name: name, Arguments: args})
}

func mustContain(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Fatalf("result lacks %q:\n%s", w, got)
		}
	}
}

func mustNotContain(t *testing.T, got string, nots ...string) {
	t.Helper()
	for _, w := range nots {
		if strings.Contains(got, w) {
			t.Fatalf("result holds %q:\n%s", w, got)
		}
	}
}

var errBlocked = errors.New("blocked by the test gate")
