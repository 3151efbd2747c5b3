package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/tools"
)

// testServerConfig is a trusted stdio server running this test binary in
// the given mode (see manager_testserver_test.go).
func testServerConfig(t testing.TB, name, mode string, env ...string) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{"MOTEUR_MCP_TESTSERVER": mode}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		e[k] = v
	}
	return ServerConfig{Name: name, Transport: TransportStdio, Command: exe, Env: e, Source: "test", Trusted: true}
}

// testLookup is the environment the tests give the manager: a PATH, a
// HOME, and secrets that must not reach a server.
func testLookup(name string) (string, bool) {
	v, ok := map[string]string{
		"PATH":           "/usr/bin:/bin",
		"HOME":           "/nonexistent-home",
		"MOTEUR_API_KEY": "sk-must-not-leak",
		"GITHUB_TOKEN":   "ghp-must-not-leak",
	}[name]
	return v, ok
}

func startTest(t testing.TB, cfg ManagerConfig) *Manager {
	t.Helper()
	if cfg.Guard == nil {
		cfg.Guard = AllowAll{}
	}
	if cfg.LookupEnv == nil {
		cfg.LookupEnv = testLookup
	}
	if cfg.ShutdownGrace == 0 {
		cfg.ShutdownGrace = 500 * time.Millisecond
	}
	m, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func callText(t testing.TB, m *Manager, server, tool, args string) string {
	t.Helper()
	res, err := m.CallTool(context.Background(), server, tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("CallTool(%s, %s): %v", server, tool, err)
	}
	return resultText(res)
}

func resultText(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func statusOf(t testing.TB, m *Manager, name string) ServerStatus {
	t.Helper()
	for _, s := range m.Status() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no status for %q in %+v", name, m.Status())
	return ServerStatus{}
}

func toolNames(ts []*mcpsdk.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

func TestStartRefusesNoGuard(t *testing.T) {
	_, err := Start(context.Background(), ManagerConfig{})
	if !errors.Is(err, ErrNoGuard) {
		t.Fatalf("err = %v, want ErrNoGuard", err)
	}
}

func TestStdioServerDiscoverAndCall(t *testing.T) {
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{testServerConfig(t, "test", "ok")}})
	if got := m.Servers(); len(got) != 1 || got[0].Name != "test" || got[0].Transport != TransportStdio {
		t.Fatalf("Servers() = %+v", got)
	}
	names := toolNames(m.ServerTools("test"))
	if !slices.Contains(names, "echo") || !slices.Contains(names, "noop") {
		t.Fatalf("tools = %v", names)
	}
	if got := callText(t, m, "test", "echo", `{"text":"bonjour"}`); got != "bonjour" {
		t.Fatalf("echo = %q", got)
	}
	conn := m.Connected()
	if len(conn) != 1 || conn[0].Name != "test" || len(conn[0].Tools) != len(names) {
		t.Fatalf("Connected() = %+v", conn)
	}
	st := statusOf(t, m, "test")
	if st.State != StateConnected || st.Tools != len(names) || !st.Trusted || st.Error != "" {
		t.Fatalf("status = %+v", st)
	}
	if len(m.Down()) != 0 {
		t.Fatalf("Down() = %+v", m.Down())
	}
	if _, err := m.CallTool(context.Background(), "nope", "echo", nil); !errors.Is(err, ErrUnknownServer) {
		t.Fatalf("unknown server: %v", err)
	}
	if _, err := m.CallTool(context.Background(), "test", "echo", json.RawMessage(`[1]`)); err == nil || !strings.Contains(err.Error(), "JSON object") {
		t.Fatalf("array arguments: %v", err)
	}
}

func TestStdioChildGetsOnlyBaseAndConfiguredEnv(t *testing.T) {
	sc := testServerConfig(t, "test", "ok", "FORWARDED=yes")
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{sc}})
	env := strings.Split(callText(t, m, "test", "env", `{}`), "\n")
	for _, want := range []string{"FORWARDED=yes", "PATH=/usr/bin:/bin", "HOME=/nonexistent-home"} {
		if !slices.Contains(env, want) {
			t.Errorf("child env lacks %s: %v", want, env)
		}
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "MOTEUR_API_KEY=") || strings.HasPrefix(kv, "GITHUB_TOKEN=") {
			t.Errorf("child env holds %s", kv)
		}
	}
}

func TestProgressReachesReportProgress(t *testing.T) {
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{testServerConfig(t, "test", "ok")}})
	// The SDK hands notifications to a queue of their own, so one may
	// arrive after the result (and is then dropped): the server holds the
	// call until the test has seen all three and cancels it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var got []tools.Progress
	ctx = tools.WithProgress(ctx, func(p tools.Progress) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, p)
		if len(got) == 3 {
			cancel()
		}
	})
	if _, err := m.CallTool(ctx, "test", "progress", json.RawMessage(`{"steps":3,"hold":true}`)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[2].Done != 3 || got[2].Total != 3 || got[0].Message != "step 1" {
		t.Fatalf("progress = %+v", got)
	}
}

func TestCancelledCallNotifiesServer(t *testing.T) {
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{testServerConfig(t, "test", "ok")}})
	ctx, cancel := context.WithCancel(context.Background())
	// The server reports progress once it holds the call; cancel then.
	var once sync.Once
	ctx = tools.WithProgress(ctx, func(tools.Progress) { once.Do(cancel) })
	_, err := m.CallTool(ctx, "test", "block", nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := callText(t, m, "test", "was_cancelled", `{}`); got != "yes" {
		t.Fatalf("the server did not see notifications/cancelled: %q", got)
	}
}

func TestListChangedRefreshesTools(t *testing.T) {
	changed := make(chan string, 8)
	m := startTest(t, ManagerConfig{
		Servers:        []ServerConfig{testServerConfig(t, "test", "ok")},
		OnToolsChanged: func(s string) { changed <- s },
	})
	gen := m.Generation()
	if slices.Contains(toolNames(m.ServerTools("test")), "added") {
		t.Fatal("added exists before add_tool")
	}
	callText(t, m, "test", "add_tool", `{}`)
	select {
	case s := <-changed:
		if s != "test" {
			t.Fatalf("changed %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no refresh after list_changed")
	}
	if m.Generation() <= gen {
		t.Fatalf("generation %d, was %d", m.Generation(), gen)
	}
	if !slices.Contains(toolNames(m.ServerTools("test")), "added") {
		t.Fatalf("tools after list_changed: %v", toolNames(m.ServerTools("test")))
	}
	if got := callText(t, m, "test", "added", `{}`); got != "added works" {
		t.Fatalf("added = %q", got)
	}
}

func TestStartupTimeoutReportsDownOthersFine(t *testing.T) {
	hang := testServerConfig(t, "hang", "hang")
	hang.StartupTimeout = 300 * time.Millisecond
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{hang, testServerConfig(t, "ok", "ok")}})
	st := statusOf(t, m, "hang")
	if st.State != StateDown || !strings.Contains(st.Error, "no answer") || !strings.Contains(st.Error, "300ms") {
		t.Fatalf("hang status = %+v", st)
	}
	down := m.Down()
	if len(down) != 1 || down[0].Name != "hang" || down[0].Transport != TransportStdio || down[0].Error == "" {
		t.Fatalf("Down() = %+v", down)
	}
	if got := callText(t, m, "ok", "echo", `{"text":"fine"}`); got != "fine" {
		t.Fatalf("ok server: %q", got)
	}
	if m.ServerTools("hang") != nil {
		t.Fatal("a down server has tools")
	}
	if _, err := m.CallTool(context.Background(), "hang", "x", nil); !errors.Is(err, ErrServerDown) {
		t.Fatalf("call to a down server: %v", err)
	}
}

func TestServerExitingMidCallIsRestartedOnNextCall(t *testing.T) {
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{testServerConfig(t, "test", "ok")}})
	pid1 := callText(t, m, "test", "pid", `{}`)
	gen := m.Generation()
	_, err := m.CallTool(context.Background(), "test", "exit", nil)
	if !errors.Is(err, ErrServerDown) {
		t.Fatalf("err = %v, want ErrServerDown", err)
	}
	for _, want := range []string{`"test" stopped during tools/call exit`, "exit status 3", "exiting mid-call as asked", "restarted on the next call"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if st := statusOf(t, m, "test"); st.State != StateConnected || !strings.Contains(st.Error, "restarted on its next call") {
		t.Errorf("status after the exit: %+v", st)
	}
	pid2 := callText(t, m, "test", "pid", `{}`)
	if pid2 == pid1 {
		t.Fatalf("same pid %s after a restart", pid1)
	}
	if m.Generation() <= gen {
		t.Fatal("a restart did not bump the generation")
	}
}

func TestNonProtocolStdoutLinesAreTolerated(t *testing.T) {
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{testServerConfig(t, "noisy", "noisy")}})
	if got := callText(t, m, "noisy", "echo", `{"text":"still works"}`); got != "still works" {
		t.Fatalf("echo = %q", got)
	}
	// The dropped lines are quoted when something goes wrong.
	_, err := m.CallTool(context.Background(), "noisy", "exit", nil)
	if err == nil || !strings.Contains(err.Error(), "[stdout, not JSON-RPC] Test server starting") {
		t.Fatalf("error does not quote the stdout noise: %v", err)
	}
}

func TestGarbageOnStdoutFailsStartClearly(t *testing.T) {
	m := startTest(t, ManagerConfig{
		StartupTimeout: 20 * time.Second,
		Servers:        []ServerConfig{testServerConfig(t, "garbage", "garbage"), testServerConfig(t, "ok", "ok")},
	})
	st := statusOf(t, m, "garbage")
	if st.State != StateDown || !strings.Contains(st.Error, "initialize") || !strings.Contains(st.Error, "invalid character") {
		t.Fatalf("garbage status = %+v", st)
	}
	if strings.Contains(st.Error, "no answer") {
		t.Fatalf("garbage was a timeout, not an error: %s", st.Error)
	}
	if statusOf(t, m, "ok").State != StateConnected {
		t.Fatal("the other server suffered")
	}
}

func TestTenMegabyteResult(t *testing.T) {
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{testServerConfig(t, "test", "ok")}})
	const size = 10 << 20
	got := callText(t, m, "test", "big", `{"bytes":10485760}`)
	if len(got) != size {
		t.Fatalf("got %d bytes, want %d", len(got), size)
	}
}

func TestResultOverTheMessageLimitEndsTheSessionClearly(t *testing.T) {
	m := startTest(t, ManagerConfig{MaxMessageBytes: 1 << 20, Servers: []ServerConfig{testServerConfig(t, "test", "ok")}})
	_, err := m.CallTool(context.Background(), "test", "big", json.RawMessage(`{"bytes":2097152}`))
	if !errors.Is(err, ErrServerDown) || !strings.Contains(err.Error(), "maximum line length") {
		t.Fatalf("err = %v", err)
	}
	if got := callText(t, m, "test", "echo", `{"text":"after"}`); got != "after" {
		t.Fatalf("after the big result: %q", got)
	}
}

func TestCloseKillsTheProcessGroup(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Our read end, and a write end of our own so that reading blocks
	// (rather than returning EOF) until the grandchild has opened it.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{testServerConfig(t, "test", "ok", "MOTEUR_MCP_TESTSERVER_FIFO="+fifo)}})
	if err := r.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := r.Read(buf)
	if err != nil || !strings.HasPrefix(string(buf[:n]), "ready") {
		t.Fatalf("grandchild not ready: %q %v", buf[:n], err)
	}
	w.Close() // now only the grandchild holds the fifo open
	m.Close()
	m.Close() // idempotent
	n, err = r.Read(buf)
	if n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the grandchild still holds the fifo after Close: n=%d err=%v", n, err)
	}
	if _, err := m.CallTool(context.Background(), "test", "echo", nil); !errors.Is(err, ErrServerDown) {
		t.Fatalf("call after Close: %v", err)
	}
}

func TestCloseAbortsCallsInFlight(t *testing.T) {
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{testServerConfig(t, "test", "ok")}})
	started := make(chan struct{})
	var once sync.Once
	ctx := tools.WithProgress(context.Background(), func(tools.Progress) { once.Do(func() { close(started) }) })
	errc := make(chan error, 1)
	go func() {
		_, err := m.CallTool(ctx, "test", "block", nil)
		errc <- err
	}()
	<-started
	m.Close()
	if err := <-errc; err == nil {
		t.Fatal("the call in flight succeeded after Close")
	}
}

func TestDisabledAndInvalidServers(t *testing.T) {
	dis := testServerConfig(t, "off", "ok")
	dis.Disabled = true
	bad := ServerConfig{Name: "bad", Transport: TransportStdio, Source: "x", Trusted: true, Err: errors.New("x:3:5: mcpServers.bad.type: unknown transport")}
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{dis, bad}})
	if st := statusOf(t, m, "off"); st.State != StateDisabled {
		t.Fatalf("off = %+v", st)
	}
	if st := statusOf(t, m, "bad"); st.State != StateDown || !strings.Contains(st.Error, "unknown transport") {
		t.Fatalf("bad = %+v", st)
	}
	down := m.Down()
	if len(down) != 1 || down[0].Name != "bad" {
		t.Fatalf("Down() = %+v (a disabled server is not down)", down)
	}
	if len(m.Servers()) != 0 {
		t.Fatal("servers connected")
	}
}

func TestRefreshListsAgain(t *testing.T) {
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{testServerConfig(t, "test", "ok")}})
	gen := m.Generation()
	if err := m.Refresh(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if m.Generation() <= gen {
		t.Fatal("Refresh did not bump the generation")
	}
	if err := m.Refresh(context.Background(), "nope"); !errors.Is(err, ErrUnknownServer) {
		t.Fatalf("Refresh(nope) = %v", err)
	}
}

func TestConcurrentCallsAndRestart(t *testing.T) {
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{testServerConfig(t, "test", "ok")}})
	_, _ = m.CallTool(context.Background(), "test", "exit", nil)
	var wg sync.WaitGroup
	pids := make([]string, 8)
	for i := range pids {
		wg.Go(func() {
			res, err := m.CallTool(context.Background(), "test", "pid", nil)
			if err != nil {
				t.Error(err)
				return
			}
			pids[i] = resultText(res)
		})
	}
	wg.Wait()
	for _, p := range pids[1:] {
		if p != pids[0] {
			t.Fatalf("one restart expected, pids %v", pids)
		}
	}
}

func TestMissingCommandIsDown(t *testing.T) {
	sc := ServerConfig{Name: "missing", Transport: TransportStdio, Command: "/nonexistent/server", Source: "test", Trusted: true}
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{sc, testServerConfig(t, "ok", "ok")}})
	if st := statusOf(t, m, "missing"); st.State != StateDown || !strings.Contains(st.Error, "/nonexistent/server") {
		t.Fatalf("status %+v", st)
	}
	if statusOf(t, m, "ok").State != StateConnected {
		t.Fatal("the other server suffered")
	}
}
