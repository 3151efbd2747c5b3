package shell_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/shell"
)

func TestSandboxDescribe(t *testing.T) {
	t.Parallel()
	e, _ := newExec(t, shell.SandboxBwrap)
	kind, detail := e.Describe()
	if kind != "bwrap" || !strings.Contains(detail, "no network") {
		t.Errorf("Describe = %q, %q", kind, detail)
	}
	if !strings.Contains(e.Description(), "only the project directory is writable") {
		t.Errorf("description does not tell the model about the sandbox:\n%s", e.Description())
	}
	n, _ := newExec(t, shell.SandboxNone)
	if kind, _ := n.Describe(); kind != "none" || n.Sandboxed() {
		t.Errorf("none: Describe kind %q, Sandboxed %v", kind, n.Sandboxed())
	}
}

func TestSandboxConfinesWrites(t *testing.T) {
	t.Parallel()
	e, root := newExec(t, shell.SandboxBwrap)
	outside := hostDir(t)
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}

	res := run(t, context.Background(), e, map[string]any{"command": "echo in > inside.txt && pwd", "work_dir": "sub"})
	contains(t, res.Content, "exit code: 0", filepath.Join(root, "sub"))
	if b, err := os.ReadFile(filepath.Join(root, "sub", "inside.txt")); err != nil || string(b) != "in\n" {
		t.Errorf("write inside the root: %q, %v", b, err)
	}

	res = run(t, context.Background(), e, cmd(fmt.Sprintf("echo out > %s/outside.txt", outside)))
	if !res.IsError {
		t.Errorf("write outside the root succeeded:\n%s", res.Content)
	}
	contains(t, res.Content, "Read-only file system")
	if _, err := os.Stat(filepath.Join(outside, "outside.txt")); err == nil {
		t.Error("the file outside the root exists on the host")
	}

	// /tmp is private to the call.
	name := "moteur-shell-test-" + filepath.Base(root)
	res = run(t, context.Background(), e, cmd("echo x > /tmp/"+name+" && cat /tmp/"+name))
	contains(t, res.Content, "exit code: 0", "--- stdout ---\nx\n")
	if _, err := os.Stat("/tmp/" + name); err == nil {
		_ = os.Remove("/tmp/" + name)
		t.Error("the sandbox's /tmp leaked to the host")
	}
}

func TestSandboxHidesRun(t *testing.T) {
	t.Parallel()
	e, _ := newExec(t, shell.SandboxBwrap)
	host, err := os.ReadDir("/run")
	if err != nil || len(host) == 0 {
		t.Skipf("skipping: the host's /run is empty or unreadable (%v)", err)
	}
	res := run(t, context.Background(), e, cmd("ls -A /run"))
	contains(t, res.Content, "exit code: 0")
	inside := map[string]bool{}
	for _, n := range strings.Fields(section(t, res.Content, "stdout")) {
		inside[n] = true
	}
	resolver, _ := filepath.EvalSymlinks("/etc/resolv.conf")
	for _, d := range host {
		// Only the way to the resolver's file may show.
		if inside[d.Name()] && !strings.HasPrefix(resolver, "/run/"+d.Name()+"/") && resolver != "/run/"+d.Name() {
			t.Errorf("the host's /run/%s is visible in the sandbox", d.Name())
		}
	}
}

// hostDir makes a directory outside the root and outside /tmp (which the
// sandbox replaces with its own), so that a write there would reach the
// host's filesystem: in the package's directory, or in /var/tmp.
func hostDir(t *testing.T) string {
	t.Helper()
	for _, parent := range []string{".", "/var/tmp"} {
		abs, err := filepath.Abs(parent)
		if err != nil || strings.HasPrefix(abs, "/tmp/") {
			continue
		}
		d, err := os.MkdirTemp(abs, "moteur-shell-outside-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { _ = os.RemoveAll(d) })
		return d
	}
	t.Fatal("no writable directory outside /tmp for the test")
	return ""
}

func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	e, _ := newExec(t, shell.SandboxBwrap)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := cmd(fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port))

	res := run(t, context.Background(), e, connect)
	if !res.IsError || strings.Contains(res.Content, "connected\n") {
		t.Errorf("connected without a network grant:\n%s", res.Content)
	}
	res = run(t, tools.WithNetwork(context.Background()), e, connect)
	if res.IsError {
		t.Fatalf("no connection with the network granted:\n%s", res.Content)
	}
	contains(t, res.Content, "connected")
	// Both commands have ended, so any connection either made is already in
	// the listener's backlog: accept until the queue is empty.
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for {
		nfd, _, err := syscall.Accept(fd)
		if err != nil {
			break // EAGAIN: the backlog is empty
		}
		accepted++
		syscall.Close(nfd)
	}
	if accepted != 1 {
		t.Errorf("listener accepted %d connections, want exactly the granted one", accepted)
	}
}

func TestSandboxTimeoutKillsEverything(t *testing.T) {
	t.Parallel()
	e, root := newExec(t, shell.SandboxBwrap)
	// A TERM-proof child beats into a file: once the call returns, the beat
	// must stop. Its pid is the sandbox's own, invisible from here, so the
	// file is the witness.
	start := time.Now()
	res := run(t, context.Background(), e, map[string]any{
		"command":     "trap '' TERM; (trap '' TERM; while :; do date +%s%N > beat; sleep 0.02; done) & wait",
		"timeout_sec": 1,
	})
	if time.Since(start) > 3*time.Second {
		t.Errorf("returned after %s", time.Since(start))
	}
	contains(t, res.Content, "timed out after 1s")
	beat := filepath.Join(root, "beat")
	first, err := os.ReadFile(beat)
	if err != nil {
		t.Fatalf("the child never ran: %v\n%s", err, res.Content)
	}
	time.Sleep(150 * time.Millisecond)
	if again, _ := os.ReadFile(beat); string(again) != string(first) {
		t.Fatal("a sandboxed process survived the timeout")
	}
}

func TestSandboxBackgroundDiesWithCommand(t *testing.T) {
	t.Parallel()
	e, root := newExec(t, shell.SandboxBwrap)
	res := run(t, context.Background(), e, cmd("(while :; do date +%s%N > beat; sleep 0.02; done) >/dev/null 2>&1 & sleep 0.1; echo done"))
	contains(t, res.Content, "exit code: 0", "done")
	first, err := os.ReadFile(filepath.Join(root, "beat"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond)
	if again, _ := os.ReadFile(filepath.Join(root, "beat")); string(again) != string(first) {
		t.Fatal("a background process outlived the sandboxed command")
	}
}

func TestSandboxRootUnderTmp(t *testing.T) {
	t.Parallel()
	// t.TempDir is under /tmp, which the sandbox replaces with its own: the
	// project must be bound over it, not hidden by it. newExec's root is
	// such a directory; check it is the real one.
	e, root := newExec(t, shell.SandboxBwrap)
	if !strings.HasPrefix(root, os.TempDir()) {
		t.Skipf("temporary directory %s is not under %s", root, os.TempDir())
	}
	if err := os.WriteFile(filepath.Join(root, "seed"), []byte("from host"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, context.Background(), e, cmd("cat seed"))
	contains(t, res.Content, "from host")
}
