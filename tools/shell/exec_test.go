package shell_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/moteur/moteur/internal/testenv"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/shell"
)

// testGrace replaces the 2 s kill grace in tests.
const testGrace = 200 * time.Millisecond

// newExec returns a tool on a fresh project root with the given sandbox
// mode; a bwrap mode is skipped, with the reason, only where bwrap is not
// installed at all.
func newExec(t *testing.T, mode string) (*shell.Exec, string) {
	t.Helper()
	if mode == shell.SandboxBwrap {
		needBwrap(t)
	}
	root := t.TempDir()
	e, err := shell.New(shell.Config{Root: root, Sandbox: mode})
	if err != nil {
		t.Fatal(err)
	}
	if mode == shell.SandboxBwrap && !e.Sandboxed() {
		_, detail := e.Describe()
		t.Fatalf("bwrap is installed but unusable: %s", detail)
	}
	e.SetKillGrace(testGrace)
	root, err = filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return e, root
}

func needBwrap(t *testing.T) {
	t.Helper()
	// CI runs as root, where the sandbox matters most: a missing bwrap
	// there must not pass as skipped tests.
	testenv.Program(t, "bwrap", "apt-get install bubblewrap to run the sandbox tests")
}

// modes runs f once per sandbox mode, each as a parallel subtest.
func modes(t *testing.T, f func(t *testing.T, mode string)) {
	for _, mode := range []string{shell.SandboxNone, shell.SandboxBwrap} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			f(t, mode)
		})
	}
}

func run(t *testing.T, ctx context.Context, e *shell.Exec, args map[string]any) tools.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Execute(ctx, raw)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return res
}

func cmd(c string) map[string]any { return map[string]any{"command": c} }

func contains(t *testing.T, content string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(content, w) {
			t.Errorf("content lacks %q:\n%s", w, content)
		}
	}
}

// alive reports whether pid is a running process. A zombie is dead: the
// test's orphans are reparented to an init that may never reap them.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the command wrote no pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestExitCodeAndSections(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e, _ := newExec(t, mode)
		res := run(t, context.Background(), e, cmd("echo out; echo err >&2; exit 3"))
		if !res.IsError || !res.NotUndoable {
			t.Errorf("IsError %v, NotUndoable %v; want both", res.IsError, res.NotUndoable)
		}
		contains(t, res.Content, "exit code: 3\n", "--- stdout ---\nout\n", "--- stderr ---\nerr")

		res = run(t, context.Background(), e, cmd("true"))
		if res.IsError {
			t.Errorf("true failed:\n%s", res.Content)
		}
		contains(t, res.Content, "exit code: 0\n", "--- stdout ---\n(empty)\n--- stderr ---\n(empty)")
		if strings.Contains(res.Content, "timed out") || strings.Contains(res.Content, "note:") {
			t.Errorf("spurious status:\n%s", res.Content)
		}
	})
}

func TestReadOnlyCommandIsUndoable(t *testing.T) {
	e, _ := newExec(t, shell.SandboxNone)
	if res := run(t, context.Background(), e, cmd("ls && git status 2>/dev/null; pwd")); res.NotUndoable {
		t.Errorf("a probe is marked NotUndoable:\n%s", res.Content)
	}
}

func TestStdin(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e, _ := newExec(t, mode)
		res := run(t, context.Background(), e, map[string]any{"command": "tr a-z A-Z", "stdin": "hello\nworld\n"})
		contains(t, res.Content, "exit code: 0", "--- stdout ---\nHELLO\nWORLD\n")

		// The full 64 KiB, to a command that reads it all…
		big := strings.Repeat("x", 64<<10)
		res = run(t, context.Background(), e, map[string]any{"command": "wc -c", "stdin": big})
		contains(t, res.Content, "65536")
		// …and to one that never reads: no hang.
		res = run(t, context.Background(), e, map[string]any{"command": "echo skipped", "stdin": big})
		contains(t, res.Content, "exit code: 0", "skipped")

		// Without stdin, a reader gets end of file at once.
		res = run(t, context.Background(), e, map[string]any{"command": "cat; echo eof", "timeout_sec": 5})
		contains(t, res.Content, "exit code: 0", "eof")

		res = run(t, context.Background(), e, map[string]any{"command": "cat", "stdin": big + "y"})
		if !res.IsError || !strings.Contains(res.Content, "65537 bytes") {
			t.Errorf("oversized stdin accepted:\n%.300s", res.Content)
		}
	})
}

func TestEnv(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e, _ := newExec(t, mode)
		res := run(t, context.Background(), e, map[string]any{
			"command": `echo "foo=$FOO term=$TERM"`,
			"env":     map[string]string{"FOO": "bar baz", "TERM": "xterm"},
		})
		contains(t, res.Content, "foo=bar baz term=xterm")

		res = run(t, context.Background(), e, map[string]any{"command": "true", "env": map[string]string{"1BAD": "x"}})
		if !res.IsError || !strings.Contains(res.Content, "invalid variable name") {
			t.Errorf("bad name accepted:\n%s", res.Content)
		}
	})
}

// Not parallel: it sets Moteur's own environment.
func TestEnvKeepsParentSecrets(t *testing.T) {
	t.Setenv("MOTEUR_TEST_SECRET", "sk-do-not-leak")
	e, _ := newExec(t, shell.SandboxNone)
	res := run(t, context.Background(), e, cmd("env"))
	if strings.Contains(res.Content, "sk-do-not-leak") {
		t.Fatalf("parent secret leaked:\n%s", res.Content)
	}
	contains(t, res.Content, "PATH=", "HOME=", "TERM=dumb")

	// Config.Env replaces the base.
	root := t.TempDir()
	e, err := shell.New(shell.Config{Root: root, Sandbox: shell.SandboxNone, Env: []string{"PATH=" + os.Getenv("PATH"), "ONLY=this"}})
	if err != nil {
		t.Fatal(err)
	}
	res = run(t, context.Background(), e, cmd("env | sort"))
	contains(t, res.Content, "ONLY=this")
	if strings.Contains(res.Content, "TERM=dumb") || strings.Contains(res.Content, "sk-do-not-leak") {
		t.Errorf("Config.Env did not replace the base:\n%s", res.Content)
	}
}

func TestWorkDir(t *testing.T) {
	t.Parallel()
	e, root := newExec(t, shell.SandboxNone)
	if err := os.MkdirAll(filepath.Join(root, "sub", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "inner")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "afile"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	for dir, want := range map[string]string{
		"":                              root,
		"sub":                           filepath.Join(root, "sub"),
		"sub/deep/..":                   filepath.Join(root, "sub"),
		"inner":                         filepath.Join(root, "sub"),
		filepath.Join(root, "sub/deep"): filepath.Join(root, "sub", "deep"),
	} {
		res := run(t, context.Background(), e, map[string]any{"command": "pwd -P", "work_dir": dir})
		contains(t, res.Content, "--- stdout ---\n"+want+"\n")
	}

	for dir, want := range map[string]string{
		"..":          "outside the project root",
		"sub/../../x": "outside the project root",
		"/etc":        "outside the project root",
		outside:       "outside the project root",
		"escape":      "through a symbolic link",
		"missing":     "does not exist",
		"afile":       "not a directory",
	} {
		res := run(t, context.Background(), e, map[string]any{"command": "touch ran", "work_dir": dir})
		if !res.IsError || !strings.Contains(res.Content, want) || res.NotUndoable {
			t.Errorf("work_dir %q: IsError %v NotUndoable %v, want a refusal with %q:\n%s", dir, res.IsError, res.NotUndoable, want, res.Content)
		}
	}
	for _, d := range []string{root, outside} {
		if _, err := os.Stat(filepath.Join(d, "ran")); err == nil {
			t.Errorf("a refused call ran its command in %s", d)
		}
	}
}

func TestTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	e, root := newExec(t, shell.SandboxNone)
	// Both the shell and its background child ignore SIGTERM: only the
	// SIGKILL of the whole group ends them.
	start := time.Now()
	res := run(t, context.Background(), e, map[string]any{
		"command":     "trap '' TERM; sleep 1000 & echo $! > child.pid; wait",
		"timeout_sec": 1,
	})
	elapsed := time.Since(start)
	if !res.IsError || !res.NotUndoable {
		t.Errorf("IsError %v NotUndoable %v, want both", res.IsError, res.NotUndoable)
	}
	contains(t, res.Content, "timed out after 1s", "killed by signal: killed")
	if elapsed > 3*time.Second {
		t.Errorf("returned after %s, want about 1s + grace", elapsed)
	}
	if pid := readPid(t, filepath.Join(root, "child.pid")); alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("child %d survived the timeout", pid)
	}
}

func TestCancelKillsGroup(t *testing.T) {
	t.Parallel()
	e, root := newExec(t, shell.SandboxNone)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := run(t, ctx, e, cmd("sleep 1000 & echo $! > child.pid; wait"))
	if time.Since(start) > 2*time.Second {
		t.Errorf("cancel took %s", time.Since(start))
	}
	if !res.IsError {
		t.Error("a cancelled call is not an error")
	}
	contains(t, res.Content, "canceled (context deadline exceeded)")
	if pid := readPid(t, filepath.Join(root, "child.pid")); alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("child %d survived the cancel", pid)
	}
}

func TestBackgroundLeftoversKilled(t *testing.T) {
	t.Parallel()
	e, root := newExec(t, shell.SandboxNone)
	start := time.Now()
	res := run(t, context.Background(), e, cmd("(trap '' TERM; exec sleep 1000) >/dev/null 2>&1 & echo $! > child.pid; echo started"))
	if time.Since(start) > 2*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
	contains(t, res.Content, "exit code: 0", "started", "processes left running in the background were killed")
	if pid := readPid(t, filepath.Join(root, "child.pid")); alive(pid) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("background child %d survived the command: %s\n%s", pid, b, res.Content)
	}
}

func TestEscapedProcessDoesNotHang(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skipf("skipping: no setsid program (%v)", err)
	}
	e, root := newExec(t, shell.SandboxNone)
	// Without the sandbox, a process that starts its own session escapes
	// the group kill (a documented limit). It still holds the output pipe:
	// the call must not wait for it.
	start := time.Now()
	// The child writes its pid once it has its own session, and the shell
	// waits for it, so that the command never ends before the escape.
	res := run(t, context.Background(), e, cmd(`setsid sh -c 'echo $$ > child.pid; exec sleep 30' & while [ ! -s child.pid ]; do sleep 0.01; done; echo hi`))
	pid := readPid(t, filepath.Join(root, "child.pid"))
	defer syscall.Kill(pid, syscall.SIGKILL)
	if time.Since(start) > 2*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
	contains(t, res.Content, "exit code: 0", "hi", "the output may be incomplete")
}

func TestEndlessOutputBounded(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e, _ := newExec(t, mode)
		start := time.Now()
		res := run(t, context.Background(), e, map[string]any{
			"command":          "yes; yes >&2",
			"timeout_sec":      1,
			"max_output_bytes": 1000,
			"max_stderr_bytes": 500,
		})
		elapsed := time.Since(start)
		if elapsed > 3*time.Second {
			t.Errorf("returned after %s, want about 1s", elapsed)
		}
		contains(t, res.Content, "timed out after 1s", "bytes dropped ...]")
		if !res.IsError || !res.Truncated {
			t.Errorf("IsError %v Truncated %v, want both", res.IsError, res.Truncated)
		}
		if len(res.Content) > 1000+500+400 {
			t.Errorf("content is %d bytes, want the caps plus the frame", len(res.Content))
		}
	})
}

func TestOutputCaps(t *testing.T) {
	t.Parallel()
	e, _ := newExec(t, shell.SandboxNone)
	// seq's output is known: the kept ends must be its exact first and last
	// bytes, in order, whatever the pipe's chunking.
	var seq strings.Builder
	for i := 1; i <= 20000; i++ {
		seq.WriteString(strconv.Itoa(i) + "\n")
	}
	full := seq.String()
	res := run(t, context.Background(), e, map[string]any{
		"command":          "seq 1 20000; seq 1 20000 >&2",
		"max_output_bytes": 101,
		"max_stderr_bytes": 64,
	})
	out := section(t, res.Content, "stdout")
	wantOut := full[:51] + "\n[... " + strconv.Itoa(len(full)-101) + " bytes dropped ...]\n" + full[len(full)-50:]
	if full[50] == '\n' {
		wantOut = full[:51] + "[... " + strconv.Itoa(len(full)-101) + " bytes dropped ...]\n" + full[len(full)-50:]
	}
	if out != wantOut {
		t.Errorf("stdout section:\n%q\nwant\n%q", out, wantOut)
	}
	errOut := section(t, res.Content, "stderr")
	if !strings.HasPrefix(errOut, full[:32]) || !strings.HasSuffix(errOut, full[len(full)-32:]) ||
		!strings.Contains(errOut, "[... "+strconv.Itoa(len(full)-64)+" bytes dropped ...]") {
		t.Errorf("stderr section:\n%q", errOut)
	}
	if !res.Truncated {
		t.Error("Truncated not set")
	}

	// Cuts never split a character. 200 bytes of "é": with a cap of 11 the
	// tail's 5 bytes start with half of one; with 13 the head's 7 end with
	// half of one.
	for limit, want := range map[int]string{
		11: "ééé\n[... 190 bytes dropped ...]\néé\n",
		13: "ééé\n[... 188 bytes dropped ...]\nééé\n",
	} {
		res = run(t, context.Background(), e, map[string]any{
			"command":          `for i in $(seq 100); do printf 'é'; done`,
			"max_output_bytes": limit,
		})
		if out := section(t, res.Content, "stdout"); out != want {
			t.Errorf("UTF-8 cut at %d:\n%q\nwant %q", limit, out, want)
		}
		if !utf8.ValidString(res.Content) {
			t.Error("content is not valid UTF-8")
		}
	}
}

// section returns the text of one output section of a result.
func section(t *testing.T, content, name string) string {
	t.Helper()
	_, after, ok := strings.Cut(content, "--- "+name+" ---\n")
	if !ok {
		t.Fatalf("no %s section:\n%s", name, content)
	}
	if i := strings.Index(after, "\n--- "); i >= 0 {
		return after[:i+1]
	}
	return after + "\n"
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]shell.Config{
		"relative root": {Root: "proj"},
		"missing root":  {Root: "/nonexistent/moteur/root"},
		"file root":     {Root: file},
		"slash root":    {Root: "/"},
		"unknown mode":  {Root: t.TempDir(), Sandbox: "docker"},
		"bad env":       {Root: t.TempDir(), Env: []string{"NOEQUALS"}},
	} {
		if _, err := shell.New(cfg); err == nil {
			t.Errorf("%s: New accepted %+v", name, cfg)
		}
	}
}

func TestBwrapRequiredButMissing(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	e := newWithBwrap(t, root, shell.SandboxBwrap, "/nonexistent/bin/bwrap")
	if e.Sandboxed() {
		t.Error("Sandboxed without bwrap")
	}
	if kind, detail := e.Describe(); kind != "unavailable" || !strings.Contains(detail, "apt-get install bubblewrap") {
		t.Errorf("Describe = %q, %q", kind, detail)
	}
	res := run(t, context.Background(), e, cmd("touch ran"))
	if !res.IsError || res.NotUndoable {
		t.Errorf("IsError %v NotUndoable %v, want an error result that ran nothing", res.IsError, res.NotUndoable)
	}
	contains(t, res.Content, "apt-get install bubblewrap", "Nothing was run")
	if _, err := os.Stat(filepath.Join(root, "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Error("the command ran without its required sandbox")
	}
	if !strings.Contains(e.Description(), "refused") {
		t.Errorf("description does not warn the model:\n%s", e.Description())
	}

	// auto falls back to no sandbox, and says so.
	e = newWithBwrap(t, root, shell.SandboxAuto, "/nonexistent/bin/bwrap")
	if kind, detail := e.Describe(); kind != "none" || e.Sandboxed() || !strings.Contains(detail, "unsandboxed") {
		t.Errorf("auto without bwrap: Describe = %q, %q", kind, detail)
	}
	contains(t, run(t, context.Background(), e, cmd("echo ran")).Content, "exit code: 0")
}

func TestBwrapInstalledButBroken(t *testing.T) {
	t.Parallel()
	fake := fakeBwrap(t, "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
	root := t.TempDir()
	e := newWithBwrap(t, root, shell.SandboxBwrap, fake)
	res := run(t, context.Background(), e, cmd("touch ran"))
	if !res.IsError || e.Sandboxed() {
		t.Errorf("IsError %v Sandboxed %v", res.IsError, e.Sandboxed())
	}
	contains(t, res.Content, "cannot create its sandbox", "uid map: Permission denied", "user namespaces", "Nothing was run")
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("the command ran without its required sandbox")
	}

	e = newWithBwrap(t, root, shell.SandboxAuto, fake)
	if kind, detail := e.Describe(); kind != "none" || !strings.Contains(detail, "cannot create its sandbox") {
		t.Errorf("auto with a broken bwrap: Describe = %q, %q", kind, detail)
	}
}

// fakeBwrap writes script as a program named bwrap, for BwrapPath.
func fakeBwrap(t *testing.T, script string) string {
	t.Helper()
	fake := filepath.Join(t.TempDir(), "bwrap")
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return fake
}

// newWithBwrap is a tool of sandbox mode mode in root, with bwrap as its
// bubblewrap. New must not fail on a sandbox it cannot use.
func newWithBwrap(t *testing.T, root, mode, bwrap string) *shell.Exec {
	t.Helper()
	e, err := shell.New(shell.Config{Root: root, Sandbox: mode, BwrapPath: bwrap})
	if err != nil {
		t.Fatalf("New (sandbox %s, bwrap %s): %v", mode, bwrap, err)
	}
	return e
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	e, _ := newExec(t, shell.SandboxNone)
	if e.Name() != "shell_exec" || e.Concurrent() || e.Timeout() != 10*time.Minute+5*time.Second {
		t.Errorf("Name %q Concurrent %v Timeout %s", e.Name(), e.Concurrent(), e.Timeout())
	}
	var _ tools.RiskAssessor = e
	var _ tools.TimeoutOverrider = e
	r := tools.NewRegistry(tools.Config{})
	if err := r.Register(e); err != nil {
		t.Fatal(err)
	}
	res := r.Execute(context.Background(), llm.ToolCall{ID: "1", Name: "shell_exec", Arguments: `{"command":"echo via registry","timeout_sec":"5"}`})
	contains(t, res.Content, "via registry")
	for _, bad := range []string{`{"command":"true","timeout_sec":601}`, `{"command":""}`, `{"command":"true","cwd":"x"}`, `{"command":"true","max_output_bytes":70000}`} {
		if res := r.Execute(context.Background(), llm.ToolCall{ID: "2", Name: "shell_exec", Arguments: bad}); !res.IsError {
			t.Errorf("%s accepted:\n%s", bad, res.Content)
		}
	}
	// Direct calls are checked too.
	if res := run(t, context.Background(), e, map[string]any{"command": "true", "timeout_sec": 0}); !res.IsError {
		t.Error("timeout_sec 0 accepted")
	}
}
