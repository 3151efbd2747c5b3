package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/internal/npmtest"
	"github.com/moteur/moteur/mcp/serve"
)

// The classified document of the served base: under confidential/, which
// the user's configuration classifies.
const (
	servedPlan   = "# Plan stratégique\n\nLe plan de réorganisation prévoit la fermeture du site de Lyon en 2027.\n"
	servedPhrase = "plan de réorganisation prévoit"
	servedQuery  = "fermeture site Lyon"
)

// newServeProcs is a moteur setup with no model: a project whose docs/
// and confidential/ folders are in the base docs (the user's
// configuration classifies confidential/**), and a base other.
func newServeProcs(t *testing.T) *procs {
	t.Helper()
	bin := moteurBinary(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	p := &procs{t: t, ctx: ctx, bin: bin, home: t.TempDir(), project: t.TempDir()}
	cfg := t.TempDir()
	files := map[string]string{
		filepath.Join(cfg, "moteur", "config.yaml"):                 "classify:\n  paths: [\"confidential/**\"]\n",
		filepath.Join(p.project, "docs", "conges.md"):               kbDocs["conges.md"],
		filepath.Join(p.project, "docs", "frais.md"):                kbDocs["frais.md"],
		filepath.Join(p.project, "confidential", "plan.md"):         servedPlan,
		filepath.Join(p.project, "elsewhere", "teletravail.md"):     kbDocs["teletravail.md"],
		filepath.Join(p.project, "elsewhere", "unrelated-notes.md"): "# Notes\n\nRien de particulier.\n",
	}
	for path, text := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MOTEUR_HOME=" + p.home, "MOTEUR_LANG=en",
		"XDG_CONFIG_HOME=" + cfg, "XDG_DATA_HOME=" + t.TempDir()}
	for _, args := range [][]string{
		{"kb", "create", "docs"}, {"kb", "add", "docs", "docs", "confidential"},
		{"kb", "create", "other"}, {"kb", "add", "other", "elsewhere"},
	} {
		if res := p.run(args...); res.code != 0 {
			t.Fatalf("moteur %s: exit %d\n%s%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
		}
	}
	return p
}

// serveStdio starts moteur mcp serve with args as the client's subprocess
// and connects to it.
func serveStdio(t *testing.T, p *procs, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := p.command(append([]string{"mcp", "serve"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).
		Connect(p.ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to moteur mcp serve: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// mcpText calls a tool and returns its text and structured content.
func mcpText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, serve.Output, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var out serve.Output
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
	return text.String(), out, res.IsError
}

// assertPlanFound checks, with moteur kb search on the same base, that the
// search reaches the classified passage: what the server withholds, it
// found.
func assertPlanFound(t *testing.T, p *procs) {
	t.Helper()
	res := p.run("kb", "search", "docs", servedQuery, "--mode", "keyword", "--json")
	if res.code != 0 || !strings.Contains(res.stdout, servedPhrase) || !strings.Contains(res.stdout, `"classified"`) {
		t.Fatalf("moteur kb search does not find the classified passage (the test proves nothing): exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

func TestMCPServeStdio(t *testing.T) {
	p := newServeProcs(t)
	cs := serveStdio(t, p, "--kb", "docs")
	tl, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tl.Tools) != 4 {
		t.Fatalf("tools: %+v, %v", tl, err)
	}
	text, out, isErr := mcpText(t, cs, "search_knowledge", map[string]any{"query": "congés payés", "mode": "keyword"})
	if isErr || !strings.Contains(text, "2,5 jours ouvrables") || len(out.Citations) == 0 {
		t.Fatalf("search: %s %+v", text, out)
	}
	text, out, isErr = mcpText(t, cs, "ask", map[string]any{"question": "combien de jours de congés payés par an ?"})
	if isErr || !strings.Contains(text, "30 jours par an") || len(out.Citations) == 0 {
		t.Fatalf("ask: %s %+v", text, out)
	}
	// --kb docs: the other base is not served.
	text, _, isErr = mcpText(t, cs, "list_documents", map[string]any{"knowledge_base_id": "other"})
	if !isErr || !strings.Contains(text, "unknown knowledge base") {
		t.Fatalf("list_documents(other) under --kb docs: %s", text)
	}
	text, _, _ = mcpText(t, cs, "search_knowledge", map[string]any{"query": "télétravail semaine", "mode": "keyword"})
	if strings.Contains(text, "deux jours par semaine") {
		t.Fatalf("a passage of the base other was served under --kb docs:\n%s", text)
	}

	assertPlanFound(t, p)
	text, out, _ = mcpText(t, cs, "search_knowledge", map[string]any{"query": servedQuery, "mode": "keyword"})
	if strings.Contains(text, servedPhrase) {
		t.Fatalf("the classified passage reached the client:\n%s", text)
	}
	if len(out.Withheld) != 1 || out.Withheld[0].File != "plan.md" || out.Withheld[0].Rule != "path:confidential/**" ||
		!strings.Contains(text, "--serve-classified") {
		t.Fatalf("the withholding is not said: %+v\n%s", out.Withheld, text)
	}
}

func TestMCPServeStdioServeClassified(t *testing.T) {
	p := newServeProcs(t)
	cs := serveStdio(t, p, "--kb", "docs", "--serve-classified")
	text, out, _ := mcpText(t, cs, "search_knowledge", map[string]any{"query": servedQuery, "mode": "keyword"})
	if !strings.Contains(text, servedPhrase) || len(out.Served) != 1 || len(out.Withheld) != 0 {
		t.Fatalf("with --serve-classified: %+v\n%s", out, text)
	}
}

// serveHTTP starts moteur mcp serve --http addr and returns the process
// and the URL it serves, read from its standard error.
func serveHTTP(t *testing.T, p *procs, addr string, args ...string) (*proc, string) {
	t.Helper()
	pr := p.start(append([]string{"mcp", "serve", "--http", addr}, args...)...)
	t.Cleanup(func() {
		_ = pr.cmd.Process.Kill()
		_ = pr.wait()
	})
	line := pr.stderr.waitForText(t, "serving MCP on http://")
	url, _, _ := strings.Cut(line[strings.Index(line, "http://"):], ": ")
	return pr, url
}

func TestMCPServeHTTP(t *testing.T) {
	p := newServeProcs(t)
	pr, url := serveHTTP(t, p, "127.0.0.1:0")
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, serve.Path) {
		t.Fatalf("served at %q", url)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	text, out, _ := mcpText(t, cs, "search_knowledge", map[string]any{"query": "notes de frais", "mode": "keyword"})
	if !strings.Contains(text, "quinze jours") || len(out.Citations) == 0 {
		t.Fatalf("search over HTTP: %s", text)
	}
	assertPlanFound(t, p)
	text, out, _ = mcpText(t, cs, "search_knowledge", map[string]any{"query": servedQuery, "mode": "keyword"})
	if strings.Contains(text, servedPhrase) || len(out.Withheld) != 1 {
		t.Fatalf("over HTTP, the classified passage: %+v\n%s", out, text)
	}
	if strings.Contains(pr.stderr.text(), "listens beyond this machine") {
		t.Errorf("a loopback address was warned about:\n%s", pr.stderr.text())
	}
	// Ctrl-C stops the server cleanly.
	if err := pr.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := pr.wait(); err != nil {
		t.Fatalf("after Ctrl-C: %v\n%s", err, pr.stderr.text())
	}
}

func TestMCPServeWarnsOnANonLoopbackAddress(t *testing.T) {
	p := newServeProcs(t)
	pr, _ := serveHTTP(t, p, "0.0.0.0:0", "--kb", "docs")
	if !strings.Contains(pr.stderr.text(), "warning: --http 0.0.0.0:0 listens beyond this machine") {
		t.Fatalf("no warning for a non-loopback address:\n%s", pr.stderr.text())
	}
}

func TestMCPServeBadUsage(t *testing.T) {
	h := newKBHarness(t)
	res := h.run(t, "mcp", "serve")
	if res.code != exitUsage || !strings.Contains(res.stderr, "no knowledge base to serve") {
		t.Fatalf("no base at all: exit %d, stderr %q", res.code, res.stderr)
	}
	withBase(t, h, "docs")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kb", "nosuch"}, "nosuch"},
		{[]string{"--http", "8765"}, "--http \"8765\""},
		{[]string{"--mode", "fuzzy"}, "--mode"},
	} {
		res := h.run(t, append([]string{"mcp", "serve"}, tc.args...)...)
		if res.code != exitUsage || !strings.Contains(res.stderr, tc.want) || res.stdout != "" {
			t.Errorf("mcp serve %v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", tc.args, res.code, res.stdout, res.stderr, tc.want)
		}
	}
}

// conformanceScenarios are the server scenarios of @modelcontextprotocol/
// conformance that apply to a server offering only Moteur's tools (the
// README lists the others and why they do not apply).
var conformanceScenarios = []string{
	"server-initialize",           // the handshake
	"ping",                        // ping answers {}
	"tools-list",                  // every tool has a name, a description and an input schema
	"server-sse-multiple-streams", // concurrent POST streams on one session
	"dns-rebinding-protection",    // a non-localhost Host/Origin is refused, localhost accepted
}

func TestMCPServeConformance(t *testing.T) {
	node, suite := npmtest.Conformance(t)
	p := newServeProcs(t)
	_, url := serveHTTP(t, p, "127.0.0.1:0")
	for _, sc := range conformanceScenarios {
		t.Run(sc, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.CommandContext(p.ctx, node, suite, "server", "--url", url, "--scenario", sc, "-o", dir)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("conformance %s: %v\n%s", sc, err, out)
			}
			checks := readChecks(t, dir)
			var passed int
			for _, c := range checks {
				switch c.Status {
				case "SUCCESS":
					passed++
				case "FAILURE":
					t.Errorf("%s: %s failed: %s", sc, c.ID, c.ErrorMessage)
				}
			}
			if passed == 0 {
				t.Fatalf("%s: no check passed (%d checks):\n%s", sc, len(checks), out)
			}
		})
	}
}

type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// readChecks reads the checks.json the suite wrote under dir.
func readChecks(t *testing.T, dir string) []conformanceCheck {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if len(files) != 1 {
		t.Fatalf("want one checks.json under %s, found %v", dir, files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []conformanceCheck
	if err := json.Unmarshal(b, &checks); err != nil {
		t.Fatalf("%s: %v", files[0], err)
	}
	return checks
}
