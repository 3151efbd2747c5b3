package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// npmServer is the path of an MCP server program installed from the npm
// registry (under $MOTEUR_NPM, default /opt/moteur-npm, as .ci/run installs
// them). Without it the test is skipped, saying why, except under CI=true,
// where it fails.
func npmServer(t *testing.T, bin string) string {
	t.Helper()
	prefix := os.Getenv("MOTEUR_NPM")
	if prefix == "" {
		prefix = "/opt/moteur-npm"
	}
	path := filepath.Join(prefix, "node_modules", ".bin", bin)
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (.ci/run installs it): %v", bin, err)
		}
		t.Skipf("skipped: %s is not installed (npm install --prefix %s @modelcontextprotocol/server-everything): %v", bin, prefix, err)
	}
	return path
}

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
	bin := npmServer(t, "mcp-server-everything")
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
	bin := npmServer(t, "mcp-server-everything")
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
	if res.code != 0 || !strings.Contains(res.stderr, "Trust this file") || !strings.Contains(res.stderr, bin) {
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
