package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// testServer is a real Server behind a real listener, with a scripted
// model, its own data directory and project, and one key of every scope.
type testServer struct {
	*Server
	t      testing.TB
	http   *httptest.Server
	model  *openaitest.Server
	home   string
	root   string
	env    map[string]string
	key    string // a key of every scope
	keys   *apikey.Store
	agents *agentstore.Store
}

// testOptions tune newTestServer.
type testOptions struct {
	// mode is the access mode of every session ("": auto_write).
	mode string
	// config is the project's .moteur/config.yaml ("": none).
	config string
}

// newTestServer starts a server whose sessions talk to a scripted model
// answering with replies, in order.
func newTestServer(t testing.TB, o testOptions, replies ...http.HandlerFunc) *testServer {
	t.Helper()
	ts := &testServer{t: t, model: openaitest.NewServer(t, replies...), home: t.TempDir(), root: t.TempDir()}
	ts.env = map[string]string{
		"MOTEUR_BASE_URL": ts.model.BaseURL(),
		"MOTEUR_MODEL":    "test-model",
		"MOTEUR_API_KEY":  "sk-moteur",
		"MOTEUR_HOME":     ts.home,
		"XDG_CONFIG_HOME": t.TempDir(),
		"MOTEUR_LANG":     "en",
	}
	if o.config != "" {
		writeFile(t, ts.root+"/.moteur/config.yaml", o.config)
	}
	ctx := context.Background()
	path := session.DefaultPath(ts.home)
	var err error
	if ts.keys, err = apikey.Open(ctx, apikey.Config{Path: path}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ts.keys.Close() })
	if ts.agents, err = agentstore.Open(ctx, agentstore.Config{Path: path}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ts.agents.Close() })
	ts.key = ts.newKey("all", apikey.Scope{})
	base := app.Options{DataDir: ts.home, ProjectRoot: ts.root, Env: func(k string) string { return ts.env[k] },
		Sandbox: "none", NoMCP: true}
	if o.mode != "" {
		base.Mode = policyMode(t, o.mode)
	}
	if ts.Server, err = New(ctx, Config{Base: base, Keys: ts.keys, Agents: ts.agents}); err != nil {
		t.Fatal(err)
	}
	ts.http = httptest.NewServer(ts.Server)
	t.Cleanup(func() {
		ts.http.Close()
		_ = ts.Shutdown(context.Background())
	})
	return ts
}

// newKey makes a key of scope and returns its secret.
func (ts *testServer) newKey(name string, sc apikey.Scope) string {
	ts.t.Helper()
	secret, _, err := ts.keys.Create(context.Background(), name, sc)
	if err != nil {
		ts.t.Fatal(err)
	}
	return secret
}

// newAgent stores a custom agent.
func (ts *testServer) newAgent(name string, cfg agentconfig.CustomAgentConfig) agentconfig.Agent {
	ts.t.Helper()
	a, err := ts.agents.Create(context.Background(), agentconfig.Agent{Name: name, Config: cfg})
	if err != nil {
		ts.t.Fatal(err)
	}
	return a
}

// do sends a request with key (none when "") and a JSON body (none when
// nil) and returns the response, whose body the test closes.
func (ts *testServer) do(method, path, key string, body any) *http.Response {
	ts.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			ts.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ts.t.Context(), method, ts.http.URL+path, rd)
	if err != nil {
		ts.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := ts.http.Client().Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// decodeJSON reads a JSON response of status want into v.
func decodeJSON(t testing.TB, resp *http.Response, want int, v any) {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d: %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s %s: %v: %s", resp.Request.Method, resp.Request.URL.Path, err, b)
		}
	}
}

// wantError checks a JSON error response's status and code.
func wantError(t testing.TB, resp *http.Response, status int, code string) string {
	t.Helper()
	var body struct {
		Error struct{ Code, Message string }
	}
	decodeJSON(t, resp, status, &body)
	if body.Error.Code != code || body.Error.Message == "" {
		t.Fatalf("%s %s: error %+v, want code %q and a message", resp.Request.Method, resp.Request.URL.Path, body.Error, code)
	}
	return body.Error.Message
}

// streamOf reads resp's body as an event stream.
func streamOf(t testing.TB, resp *http.Response) *sseReader {
	t.Helper()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: status %d, %s, want an event stream: %s", resp.Request.Method, resp.Request.URL.Path,
			resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return &sseReader{br: bufio.NewReader(resp.Body)}
}

// until reads frames up to and including the first of type typ.
func (s *sseReader) until(t *testing.T, typ string) []frame {
	t.Helper()
	var got []frame
	for {
		f, err := s.next(t)
		if err != nil {
			t.Fatalf("stream ended before %s (%v); got %s", typ, err, frameTypes(got))
		}
		if f.comment != "" {
			continue
		}
		got = append(got, f)
		if f.event == typ {
			return got
		}
	}
}

// rest reads frames to the end of the stream, comments left out.
func (s *sseReader) rest(t *testing.T) []frame {
	t.Helper()
	var got []frame
	for {
		f, err := s.next(t)
		if err != nil {
			return got
		}
		if f.comment == "" {
			got = append(got, f)
		}
	}
}

func frameTypes(fs []frame) string {
	var b strings.Builder
	for i, f := range fs {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(f.event)
	}
	return b.String()
}

// writeFile writes a file of the test, its directories made.
func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func policyMode(t testing.TB, s string) policy.Mode {
	t.Helper()
	m, err := policy.ParseMode(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
