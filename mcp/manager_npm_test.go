package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moteur/moteur/internal/npmtest"
	"github.com/moteur/moteur/tools"
)

// Tests against the real servers from npm, installed by .ci/run under
// $MOTEUR_NPM (default /opt/moteur-npm). Without them the tests skip,
// except under CI=true, where they fail.

func npmBin(t testing.TB, name string) string { t.Helper(); return npmtest.Bin(t, name) }

func npmServer(t testing.TB, name, bin string, args ...string) ServerConfig {
	return ServerConfig{Name: name, Transport: TransportStdio, Command: npmBin(t, bin), Args: args, Source: "test", Trusted: true}
}

// realLookup gives the npm servers the machine's PATH (node) and a secret
// that must not reach them.
func realLookup(name string) (string, bool) {
	switch name {
	case "MOTEUR_API_KEY":
		return "sk-must-not-leak", true
	case "PATH", "HOME", "TMPDIR":
		return os.LookupEnv(name)
	}
	return "", false
}

func TestEverythingServerOverStdio(t *testing.T) {
	changed := make(chan string, 8)
	m := startTest(t, ManagerConfig{
		Servers:        []ServerConfig{npmServer(t, "everything", "mcp-server-everything", "stdio")},
		LookupEnv:      realLookup,
		Roots:          []string{"file://" + t.TempDir()},
		OnToolsChanged: func(s string) { changed <- s },
	})
	st := statusOf(t, m, "everything")
	if st.State != StateConnected {
		t.Fatalf("status %+v", st)
	}
	names := toolNames(m.ServerTools("everything"))
	for _, want := range []string{"echo", "get-sum", "trigger-long-running-operation", "get-env"} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s in %v", want, names)
		}
	}
	if got := callText(t, m, "everything", "get-sum", `{"a":2,"b":3}`); !strings.Contains(got, "5") {
		t.Errorf("get-sum = %q", got)
	}
	if env := callText(t, m, "everything", "get-env", `{}`); strings.Contains(env, "sk-must-not-leak") || !strings.Contains(env, "PATH") {
		t.Errorf("the server's environment: %s", env)
	}

	// Progress: 4 steps of 250 ms; the last may come after the result.
	var mu sync.Mutex
	var progress []tools.Progress
	ctx := tools.WithProgress(context.Background(), func(p tools.Progress) {
		mu.Lock()
		progress = append(progress, p)
		mu.Unlock()
	})
	if _, err := m.CallTool(ctx, "everything", "trigger-long-running-operation", json.RawMessage(`{"duration":1,"steps":4}`)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(progress) < 2 || progress[0].Done != 1 || progress[0].Total != 4 {
		t.Errorf("progress = %+v", progress)
	}
	mu.Unlock()

	// With roots announced, the server registers more tools once
	// initialized and says so with list_changed.
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatal("no list_changed from server-everything")
	}
	if !slices.Contains(toolNames(m.ServerTools("everything")), "get-roots-list") {
		t.Errorf("after list_changed: %v", toolNames(m.ServerTools("everything")))
	}
}

func TestEverythingServerOverStreamableHTTP(t *testing.T) {
	bin := npmBin(t, "mcp-server-everything")
	port := freePort(t)
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	// It says on stderr when it listens.
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.Contains(sc.Text(), "listening on port") {
	}
	go func() {
		for sc.Scan() {
		}
	}()

	guard := &recordingGuard{}
	m := startTest(t, ManagerConfig{
		Guard:   guard,
		Servers: []ServerConfig{httpServerConfig("everything", TransportHTTP, fmt.Sprintf("http://127.0.0.1:%d/mcp", port))},
	})
	if st := statusOf(t, m, "everything"); st.State != StateConnected {
		t.Fatalf("status %+v", st)
	}
	if got := callText(t, m, "everything", "echo", `{"message":"over http"}`); !strings.Contains(got, "over http") {
		t.Errorf("echo = %q", got)
	}
	if endpoints, args := guard.snapshot(); len(endpoints) == 0 || len(args) != 1 {
		t.Errorf("guard: endpoints %v args %v", endpoints, args)
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestFilesystemServer(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "hello.txt"), "bonjour depuis le disque\n")
	m := startTest(t, ManagerConfig{
		Servers:   []ServerConfig{npmServer(t, "fs", "mcp-server-filesystem", dir)},
		LookupEnv: realLookup,
	})
	if st := statusOf(t, m, "fs"); st.State != StateConnected || st.Tools == 0 {
		t.Fatalf("status %+v", st)
	}
	got := callText(t, m, "fs", "read_text_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "hello.txt")))
	if !strings.Contains(got, "bonjour depuis le disque") {
		t.Fatalf("read_text_file = %q", got)
	}
	res, err := m.CallTool(context.Background(), "fs", "read_text_file", json.RawMessage(`{"path":"/etc/passwd"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Fatalf("reading outside the allowed directory succeeded: %s", resultText(res))
	}
}

func TestMemoryServer(t *testing.T) {
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	sc := npmServer(t, "memory", "mcp-server-memory")
	sc.Env = map[string]string{"MEMORY_FILE_PATH": file}
	m := startTest(t, ManagerConfig{Servers: []ServerConfig{sc}, LookupEnv: realLookup})
	callText(t, m, "memory", "create_entities", `{"entities":[{"name":"Moteur","entityType":"project","observations":["speaks MCP"]}]}`)
	if got := callText(t, m, "memory", "read_graph", `{}`); !strings.Contains(got, "speaks MCP") {
		t.Fatalf("read_graph = %q", got)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the configured env did not reach the server: %v", err)
	}
}

func TestOffersResources(t *testing.T) {
	m := startTest(t, ManagerConfig{
		Servers:   []ServerConfig{npmServer(t, "everything", "mcp-server-everything", "stdio"), testServerConfig(t, "plain", "ok")},
		LookupEnv: realLookup,
	})
	if !m.OffersResources("everything") || m.OffersResources("plain") || m.OffersResources("nope") {
		t.Fatalf("everything %v, plain %v", m.OffersResources("everything"), m.OffersResources("plain"))
	}
	res, err := m.ReadResource(context.Background(), "everything", "demo://resource/dynamic/text/1")
	if err != nil || len(res.Contents) == 0 || !strings.Contains(res.Contents[0].Text, "Resource 1") {
		t.Fatalf("ReadResource: %+v %v", res, err)
	}
}
