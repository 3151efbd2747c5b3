package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/internal/npmtest"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// writeMCPJSON writes the project's .mcp.json with one stdio server,
// everything, and gives the harness the PATH the server's node needs.
func (h *harness) writeMCPJSON(t *testing.T, command string, extra string) {
	t.Helper()
	h.env["PATH"] = os.Getenv("PATH")
	cfg := `{"mcpServers": {"everything": {"command": ` + jsonString(command) + `}` + extra + `}}`
	if err := os.WriteFile(filepath.Join(h.dir, ".mcp.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRunCallsAnMCPToolOfATrustedProject: with --trust-project, the
// project's stdio server starts, SessionStarted lists it, the model is
// offered its tools as mcp_<server>_<tool> and a call reaches the server;
// the server's environment holds only what Moteur passes (not the model's
// key), and the audit log records the call and its result.
func TestRunCallsAnMCPToolOfATrustedProject(t *testing.T) {
	bin := npmtest.Bin(t, "mcp-server-everything")
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "mcp_everything_echo", `{"message":"hello over MCP"}`),
		openaitest.Calls("call_2", "mcp_everything_get-env", `{}`),
		openaitest.Answer("done"))
	h := newHarness(t, srv.BaseURL())
	h.writeMCPJSON(t, bin, "")
	res, evs := h.runJSON(t, "--trust-project", "use the MCP tools")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
	}
	started := payloads[event.SessionStartedPayload](evs)
	if len(started) != 1 || len(started[0].MCP) != 1 || started[0].MCP[0].Name != "everything" ||
		started[0].MCP[0].Transport != "stdio" || !slices.Contains(started[0].MCP[0].Tools, "echo") {
		t.Fatalf("SessionStarted MCP = %+v", started)
	}
	results := payloads[event.ToolResultPayload](evs)
	if len(results) != 2 || results[0].IsError || !strings.Contains(results[0].Content, "hello over MCP") || results[0].Risk != "read" {
		t.Fatalf("results: %+v", results)
	}
	if env := results[1].Content; !strings.Contains(env, "PATH") || strings.Contains(env, "sk-moteur") || strings.Contains(env, "MOTEUR_API_KEY") {
		t.Errorf("the server's environment: %s", env)
	}
	reqs := srv.Requests()
	if !slices.Contains(reqs[0].Tools, "mcp_everything_echo") {
		t.Errorf("the model was not offered mcp_everything_echo: %v", reqs[0].Tools)
	}
	id := evs[0].SessionID
	if n, err := h.auditRecords(t, id); err != nil || n != len(h.load(t, id)) {
		t.Errorf("audit log: %d records for %d events, %v", n, len(h.load(t, id)), err)
	}
	srv.CheckPairing(t)
}

// TestRunDoesNotStartAnUntrustedProjectServer: off a terminal, without
// --trust-project, the project's server is reported (McpServerDown saying
// how to trust it) and not started: the model is offered none of its tools.
// Trusted once on a terminal, it starts in later runs without asking, until
// the file changes.
func TestRunDoesNotStartAnUntrustedProjectServer(t *testing.T) {
	bin := npmtest.Bin(t, "mcp-server-everything")
	srv := openaitest.NewServer(t, openaitest.Answer("one"), openaitest.Answer("two"), openaitest.Answer("three"), openaitest.Answer("four"))
	h := newHarness(t, srv.BaseURL())
	h.writeMCPJSON(t, bin, "")
	res, evs := h.runJSON(t, "hello")
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
	}
	down := payloads[event.McpServerDownPayload](evs)
	if len(down) != 1 || down[0].Name != "everything" || !strings.Contains(down[0].Error, "not trusted") ||
		!strings.Contains(down[0].Error, "--trust-project") {
		t.Fatalf("McpServerDown = %+v", down)
	}
	if names := srv.Requests()[0].Tools; slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "mcp_") }) {
		t.Fatalf("an untrusted server's tools were offered: %v", names)
	}
	// On a terminal the user is asked, once; yes is remembered.
	h.tty, h.stdin = true, strings.NewReader("y\n")
	res = h.run(t, "run", "hello")
	if res.code != 0 || !strings.Contains(res.stderr, "Trust them") || !strings.Contains(res.stderr, bin) {
		t.Fatalf("exit %d, stderr: %s", res.code, res.stderr)
	}
	h.tty, h.stdin = false, strings.NewReader("")
	if names := srv.Requests()[1].Tools; !slices.Contains(names, "mcp_everything_echo") {
		t.Fatalf("after yes, the tools were not offered: %v", names)
	}
	if res, _ := h.runJSON(t, "hello"); res.code != 0 || !slices.Contains(srv.Requests()[2].Tools, "mcp_everything_echo") {
		t.Fatalf("the trust was not remembered: exit %d, %s", res.code, res.stderr)
	}
	// A changed file is a new question: untrusted again.
	h.writeMCPJSON(t, bin, `, "other": {"command": "false", "disabled": true}`)
	res, evs = h.runJSON(t, "hello")
	if down := payloads[event.McpServerDownPayload](evs); res.code != 0 || len(down) != 1 || !strings.Contains(down[0].Error, "not trusted") {
		t.Fatalf("a changed file was still trusted: %+v", down)
	}
}

// writeUserMCP writes the user's own mcp.json.
func (h *harness) writeUserMCP(t *testing.T, cfg string) {
	t.Helper()
	dir := filepath.Join(h.env["XDG_CONFIG_HOME"], "moteur")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestMCPListReportsEveryServer: mcp list starts what may start and says
// where each server stands — connected with its tools, untrusted, down
// with why, disabled — with the file's warnings; --json for scripts.
func TestMCPListReportsEveryServer(t *testing.T) {
	bin := npmtest.Bin(t, "mcp-server-everything")
	h := newHarness(t, "http://127.0.0.1:1/v1")
	h.writeMCPJSON(t, bin, "")
	h.writeUserMCP(t, `{"mcpServers": {
		"mine": {"command": `+jsonString(bin)+`},
		"broken": {"command": "/nonexistent/server"},
		"off": {"command": "x", "disabled": true},
		"bad name!": {"command": "x"}
	}}`)
	res := h.run(t, "mcp", "list", "--json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var rep struct {
		Servers []struct {
			Name, Transport, State, Error, Source string
			Trusted                               bool
			Tools                                 int
		}
		Project *struct{ Path, SHA256 string }
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, res.stdout)
	}
	states := map[string]string{}
	for _, s := range rep.Servers {
		states[s.Name] = s.State
		switch s.Name {
		case "mine":
			if s.Tools < 5 || !s.Trusted || s.Transport != "stdio" {
				t.Errorf("mine: %+v", s)
			}
		case "broken":
			if !strings.Contains(s.Error, "/nonexistent/server") {
				t.Errorf("broken: %+v", s)
			}
		case "everything":
			if s.Trusted || !strings.HasSuffix(s.Source, ".mcp.json") {
				t.Errorf("everything: %+v", s)
			}
		}
	}
	want := map[string]string{"mine": "connected", "broken": "down", "off": "disabled", "bad name!": "down", "everything": "untrusted"}
	for name, st := range want {
		if states[name] != st {
			t.Errorf("%s: state %q, want %q (all: %v)", name, states[name], st, states)
		}
	}
	if rep.Project == nil || len(rep.Project.SHA256) != 64 {
		t.Errorf("project file: %+v", rep.Project)
	}
	// Trusted from here, the project's server starts.
	res = h.run(t, "mcp", "list", "--json", "--trust-project")
	if res.code != 0 || !strings.Contains(res.stdout, `"name":"everything","transport":"stdio","source":`) ||
		strings.Contains(res.stdout, `"state":"untrusted"`) {
		t.Fatalf("--trust-project: exit %d: %s", res.code, res.stdout)
	}
	// The table, for people; the trust was remembered.
	res = h.run(t, "mcp", "list")
	if res.code != 0 || !strings.Contains(res.stdout, "NAME") || strings.Contains(res.stdout, "untrusted") {
		t.Fatalf("exit %d:\n%s\n%s", res.code, res.stdout, res.stderr)
	}
}

// TestMCPLoginChecksTheHostFirst: mcp login names what it cannot log in
// to, and an HTTP server outside the allowlist gets no connection at all.
func TestMCPLoginChecksTheHostFirst(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	h := newHarness(t, "http://127.0.0.1:1/v1")
	h.writeUserMCP(t, `{"mcpServers": {"docs": {"type": "http", "url": `+jsonString(srv.URL+"/mcp")+`}, "prog": {"command": "x"}}}`)
	if res := h.run(t, "mcp", "login", "nosuch"); res.code != 1 || !strings.Contains(res.stderr, `no MCP server "nosuch"`) {
		t.Errorf("unknown server: exit %d, %s", res.code, res.stderr)
	}
	if res := h.run(t, "mcp", "login", "prog"); res.code != 1 || !strings.Contains(res.stderr, "stdio") {
		t.Errorf("stdio server: exit %d, %s", res.code, res.stderr)
	}
	// A server of the project's file is not reached before the file is
	// trusted.
	if err := os.WriteFile(filepath.Join(h.dir, ".mcp.json"), []byte(`{"mcpServers": {"proj": {"type": "http", "url": `+jsonString(srv.URL+"/mcp")+`}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := h.run(t, "mcp", "login", "proj"); res.code != 1 || !strings.Contains(res.stderr, "not trusted") || hits.Load() != 0 {
		t.Errorf("untrusted project server: exit %d, %d requests, %s", res.code, hits.Load(), res.stderr)
	}
	h.writeProjectConfig(t, "allowlist: [api.example.com]\n")
	res := h.run(t, "mcp", "login", "docs")
	if res.code != 1 || !strings.Contains(res.stderr, "allowlist") {
		t.Fatalf("refused host: exit %d, %s", res.code, res.stderr)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the refused server got %d requests", n)
	}
	// Allowed, the same login reaches the server (which asks for a login it
	// cannot offer: no authorization metadata).
	h.writeProjectConfig(t, "allowlist: [127.0.0.1]\n")
	if res := h.run(t, "mcp", "login", "docs"); res.code != 1 || hits.Load() == 0 {
		t.Fatalf("allowed host: exit %d, %d requests, %s", res.code, hits.Load(), res.stderr)
	}
}
