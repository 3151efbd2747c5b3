package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordingGuard records every check and refuses what its funcs refuse.
type recordingGuard struct {
	mu        sync.Mutex
	endpoints []string
	args      []string
	endpoint  func(string) error
	argument  func(string) error
}

func (g *recordingGuard) CheckEndpoint(_ ServerInfo, url string) error {
	g.mu.Lock()
	g.endpoints = append(g.endpoints, url)
	g.mu.Unlock()
	if g.endpoint != nil {
		return g.endpoint(url)
	}
	return nil
}

func (g *recordingGuard) CheckArguments(s ServerInfo, tool string, args json.RawMessage) error {
	g.mu.Lock()
	g.args = append(g.args, s.Name+"/"+tool+" "+string(args))
	g.mu.Unlock()
	if g.argument != nil {
		return g.argument(string(args))
	}
	return nil
}

func (g *recordingGuard) snapshot() (endpoints, args []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.endpoints...), append([]string(nil), g.args...)
}

// testHTTPServer is a go-sdk server over streamable HTTP (or SSE) on
// loopback, counting the TCP connections it accepts and the calls of its
// echo tool, and recording the Authorization header it saw.
type testHTTPServer struct {
	*httptest.Server
	conns     atomic.Int64
	echoCalls atomic.Int64
	mu        sync.Mutex
	auth      []string
	status    atomic.Int64 // when non-zero, every request gets it
}

func newTestHTTPServer(t testing.TB, sse bool) *testHTTPServer {
	t.Helper()
	ts := &testHTTPServer{}
	srv := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "http-test", Version: "1"}, nil)
	mcpsdk.AddTool(srv, &mcpsdk.Tool{Name: "echo"}, func(_ context.Context, _ *mcpsdk.CallToolRequest, in textArgs) (*mcpsdk.CallToolResult, any, error) {
		ts.echoCalls.Add(1)
		return textResult(in.Text), nil, nil
	})
	mcpsdk.AddTool(srv, &mcpsdk.Tool{Name: "add_tool"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
		mcpsdk.AddTool(srv, &mcpsdk.Tool{Name: "added"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
			return textResult("added works"), nil, nil
		})
		return textResult("ok"), nil, nil
	})
	var h http.Handler
	if sse {
		h = mcpsdk.NewSSEHandler(func(*http.Request) *mcpsdk.Server { return srv }, nil)
	} else {
		h = mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return srv }, nil)
	}
	ts.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		ts.auth = append(ts.auth, r.Header.Get("Authorization"))
		ts.mu.Unlock()
		if code := ts.status.Load(); code != 0 {
			http.Error(w, http.StatusText(int(code)), int(code))
			return
		}
		h.ServeHTTP(w, r)
	}))
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			ts.conns.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

func httpServerConfig(name, transport, url string) ServerConfig {
	return ServerConfig{Name: name, Transport: transport, URL: url, Source: "test", Trusted: true}
}

func TestStreamableHTTPServer(t *testing.T) {
	ts := newTestHTTPServer(t, false)
	sc := httpServerConfig("web", TransportHTTP, ts.URL)
	sc.Headers = map[string]string{"Authorization": "Bearer configured-token"}
	changed := make(chan string, 4)
	guard := &recordingGuard{}
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{sc}, Guard: guard, OnToolsChanged: func(s string) { changed <- s }})
	if st := statusOf(t, m, "web"); st.State != StateConnected {
		t.Fatalf("status %+v", st)
	}
	if got := callText(t, m, "web", "echo", `{"text":"over http"}`); got != "over http" {
		t.Fatalf("echo = %q", got)
	}
	ts.mu.Lock()
	auth := append([]string(nil), ts.auth...)
	ts.mu.Unlock()
	for _, a := range auth {
		if a != "Bearer configured-token" {
			t.Fatalf("a request without the configured header: %q of %q", a, auth)
		}
	}
	endpoints, args := guard.snapshot()
	if len(endpoints) < 2 || len(args) != 1 || !strings.Contains(args[0], "over http") {
		t.Fatalf("guard saw endpoints %v, args %v", endpoints, args)
	}
	callText(t, m, "web", "add_tool", `{}`)
	if s := <-changed; s != "web" {
		t.Fatalf("changed %q", s)
	}
	if got := toolNames(m.ServerTools("web")); !strings.Contains(strings.Join(got, ","), "added") {
		t.Fatalf("tools after list_changed over HTTP: %v", got)
	}
}

func TestSSEServer(t *testing.T) {
	ts := newTestHTTPServer(t, true)
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{httpServerConfig("legacy", TransportSSE, ts.URL)}})
	if got := callText(t, m, "legacy", "echo", `{"text":"over sse"}`); got != "over sse" {
		t.Fatalf("echo = %q", got)
	}
}

func TestGuardRefusingTheHostMeansNoConnection(t *testing.T) {
	ts := newTestHTTPServer(t, false)
	guard := &recordingGuard{endpoint: func(u string) error {
		return fmt.Errorf("host %s is not in the allowlist", u)
	}}
	m := startTest(t, ManagerConfig{Guard: guard, Servers: []ServerConfig{
		httpServerConfig("remote", TransportHTTP, ts.URL+"/mcp"),
		httpServerConfig("remote-sse", TransportSSE, ts.URL+"/sse"),
	}})
	endpoints, _ := guard.snapshot()
	if !slicesContain(endpoints, ts.URL+"/mcp") || !slicesContain(endpoints, ts.URL+"/sse") {
		t.Fatalf("the guard was not asked: %v", endpoints)
	}
	if n := ts.conns.Load(); n != 0 {
		t.Fatalf("%d connections reached the refused server", n)
	}
	for _, name := range []string{"remote", "remote-sse"} {
		st := statusOf(t, m, name)
		if st.State != StateDown || !strings.Contains(st.Error, "not in the allowlist") {
			t.Fatalf("%s: %+v", name, st)
		}
	}
	// A later attempt (Refresh reconnects a down server) is checked again.
	before := len(endpoints)
	_ = m.Refresh(context.Background(), "remote")
	endpoints, _ = guard.snapshot()
	if len(endpoints) <= before || ts.conns.Load() != 0 {
		t.Fatalf("reconnection: guard calls %d→%d, connections %d", before, len(endpoints), ts.conns.Load())
	}
}

func slicesContain(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestGuardChecksArgumentsOfServersNotLocal(t *testing.T) {
	guard := &recordingGuard{argument: func(args string) error {
		if strings.Contains(args, "CLASSIFIED") {
			return errors.New("classified text may not leave for a server that is not local")
		}
		return nil
	}}
	local := testServerConfig(t, "local", "ok")
	local.Local = true
	m := startTest(t, ManagerConfig{Guard: guard, Servers: []ServerConfig{testServerConfig(t, "remote", "ok"), local}})

	_, err := m.CallTool(context.Background(), "remote", "echo", json.RawMessage(`{"text":"CLASSIFIED plans"}`))
	if err == nil || !strings.Contains(err.Error(), "not sent") || !strings.Contains(err.Error(), "not local") {
		t.Fatalf("err = %v", err)
	}
	_, args := guard.snapshot()
	if len(args) != 1 || !strings.Contains(args[0], "remote/echo") {
		t.Fatalf("the guard was not asked: %v", args)
	}
	if got := callText(t, m, "remote", "echo_calls", `{}`); got != "0" {
		t.Fatalf("the refused call reached the server: %s echo calls", got)
	}
	// A local server may receive it, unchecked.
	if got := callText(t, m, "local", "echo", `{"text":"CLASSIFIED plans"}`); got != "CLASSIFIED plans" {
		t.Fatalf("local echo = %q", got)
	}
	_, args = guard.snapshot()
	for _, a := range args {
		if strings.HasPrefix(a, "local/") {
			t.Fatalf("a local server's arguments were checked: %v", args)
		}
	}
	// ReadResource sends its URI: checked as well.
	if _, err := m.ReadResource(context.Background(), "remote", "file:///CLASSIFIED"); err == nil || !strings.Contains(err.Error(), "not sent") {
		t.Fatalf("ReadResource: %v", err)
	}
}

func TestHTTP401MeansLoginRequired(t *testing.T) {
	ts := newTestHTTPServer(t, false)
	ts.status.Store(http.StatusUnauthorized)
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{httpServerConfig("secure", TransportHTTP, ts.URL)}})
	st := statusOf(t, m, "secure")
	if st.State != StateDown || !strings.Contains(st.Error, "moteur mcp login secure") {
		t.Fatalf("status %+v", st)
	}

	// Mid-session: the server starts refusing the token.
	ts.status.Store(0)
	if err := m.Refresh(context.Background(), "secure"); err != nil {
		t.Fatal(err)
	}
	ts.status.Store(http.StatusUnauthorized)
	_, err := m.CallTool(context.Background(), "secure", "echo", json.RawMessage(`{"text":"x"}`))
	if !errors.Is(err, ErrLoginRequired) || !strings.Contains(err.Error(), "moteur mcp login secure") {
		t.Fatalf("err = %v", err)
	}
}

func TestHTTPClientHookIsUsedAndStillGuarded(t *testing.T) {
	ts := newTestHTTPServer(t, false)
	var used atomic.Int64
	guard := &recordingGuard{}
	m := startTest(t, ManagerConfig{
		Guard:   guard,
		Servers: []ServerConfig{httpServerConfig("web", TransportHTTP, ts.URL)},
		HTTPClient: func(s ServerInfo) *http.Client {
			return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				used.Add(1)
				r.Header.Set("Authorization", "Bearer from-oauth")
				return http.DefaultTransport.RoundTrip(r)
			})}
		},
	})
	callText(t, m, "web", "echo", `{"text":"x"}`)
	endpoints, _ := guard.snapshot()
	if used.Load() == 0 || int64(len(endpoints)) < used.Load() {
		t.Fatalf("client used %d times, guard asked %d times", used.Load(), len(endpoints))
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestRedirectElsewhereIsGuardedAndGetsNoHeaders(t *testing.T) {
	var sawAuth atomic.Value
	sawAuth.Store("unset")
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuth.Store(r.Header.Get("Authorization"))
		http.Error(w, "no", http.StatusNotFound)
	}))
	t.Cleanup(other.Close)
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/elsewhere", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(first.Close)

	guard := &recordingGuard{}
	sc := httpServerConfig("redir", TransportHTTP, first.URL)
	sc.Headers = map[string]string{"Authorization": "Bearer for-first-only"}
	m := startTest(t, ManagerConfig{Guard: guard, Servers: []ServerConfig{sc}})
	if st := statusOf(t, m, "redir"); st.State != StateDown {
		t.Fatalf("status %+v", st)
	}
	endpoints, _ := guard.snapshot()
	if !slicesContain(endpoints, other.URL+"/elsewhere") {
		t.Fatalf("the redirect's target was not checked: %v", endpoints)
	}
	if got := sawAuth.Load().(string); got != "" {
		t.Fatalf("the other host got Authorization %q", got)
	}
}
