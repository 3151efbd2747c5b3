package serve_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/mcp/serve"
)

// connectHTTP serves s on a loopback httptest server and connects a go-sdk
// client to it over streamable HTTP.
func connectHTTP(t testing.TB, s *serve.Server) (*mcp.ClientSession, *httptest.Server) {
	t.Helper()
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + serve.Path, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, ts
}

func TestStreamableHTTP(t *testing.T) {
	f := newFixture(t)
	cs, _ := connectHTTP(t, f.server(t, false))
	tl, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tl.Tools) != 4 {
		t.Fatalf("tools over HTTP: %v, %v", tl, err)
	}
	s := call(t, cs, "search_knowledge", map[string]any{"query": "congés payés par mois", "mode": "keyword"})
	if _, ok := s.chunkOf("conges.md"); !ok || !strings.Contains(s.text, "2,5 jours ouvrables") {
		t.Fatalf("search over HTTP: %s", s.text)
	}
	a := call(t, cs, "ask", map[string]any{"question": "combien de jours de congés payés ?"})
	if _, ok := a.chunkOf("conges.md"); !ok {
		t.Fatalf("ask over HTTP: %s", a.text)
	}
	tc := classifiedCases[0]
	f.directHit(t, tc.query, tc.file)
	w := call(t, cs, "search_knowledge", map[string]any{"query": tc.query, "mode": "keyword"})
	assertWithheld(t, w, tc.file, tc.phrase, tc.rule)
}

func TestStreamableHTTPServedClassified(t *testing.T) {
	cs, _ := connectHTTP(t, newFixture(t).server(t, true))
	tc := classifiedCases[0]
	s := call(t, cs, "search_knowledge", map[string]any{"query": tc.query, "mode": "keyword"})
	if !strings.Contains(s.text, tc.phrase) || len(s.out.Served) != 1 {
		t.Fatalf("with --serve-classified over HTTP: %s", s.text)
	}
}

// initialize is the body of an initialize request.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func post(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestHTTPRefusesOtherHostsAndOrigins(t *testing.T) {
	_, ts := connectHTTP(t, newFixture(t).server(t, false))
	url := ts.URL + serve.Path
	host := strings.TrimPrefix(ts.URL, "http://")
	// The same request is accepted from this machine's own client: what
	// is refused below is refused for its Host or Origin.
	if code := post(t, url, map[string]string{"Origin": ts.URL}); code != http.StatusOK {
		t.Fatalf("initialize from the server's own origin: HTTP %d, want 200", code)
	}
	for name, h := range map[string]map[string]string{
		"DNS rebinding":       {"Host": "evil.example.com", "Origin": "http://evil.example.com"},
		"cross-origin page":   {"Host": host, "Origin": "http://evil.example.com", "Sec-Fetch-Site": "cross-site"},
		"cross-origin, no SF": {"Host": host, "Origin": "http://evil.example.com"},
	} {
		if code := post(t, url, h); code != http.StatusForbidden {
			t.Errorf("%s: HTTP %d, want 403", name, code)
		}
	}
}
