package shell_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moteur/moteur/internal/testenv"
	"github.com/moteur/moteur/tools/shell"
)

// status parses /proc/self/status-like "Key:\tvalue" lines.
func status(text string) map[string]string {
	m := map[string]string{}
	for line := range strings.Lines(text) {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

func TestSandboxHasNoPrivilegesInside(t *testing.T) {
	t.Parallel()
	e, _ := newExec(t, shell.SandboxBwrap)
	res := run(t, context.Background(), e, cmd("cat /proc/self/status; printf 'UidMap:\\t'; cat /proc/self/uid_map"))
	contains(t, res.Content, "exit code: 0")
	st := status(section(t, res.Content, "stdout"))
	for _, set := range []string{"CapEff", "CapPrm", "CapBnd", "CapInh", "CapAmb"} {
		if n, err := strconv.ParseUint(st[set], 16, 64); err != nil || n != 0 {
			t.Errorf("%s = %q inside the sandbox, want 0", set, st[set])
		}
	}
	if st["NoNewPrivs"] != "1" {
		t.Errorf("NoNewPrivs = %q, want 1", st["NoNewPrivs"])
	}
	if st["Seccomp"] != "2" {
		t.Errorf("Seccomp = %q, want 2 (a filter)", st["Seccomp"])
	}
	umap := strings.Fields(st["UidMap"])
	if len(umap) != 3 || umap[0] == "0" {
		t.Errorf("uid_map %q: the command is root inside", st["UidMap"])
	}
	uid := strings.Fields(st["Uid"])
	want := strconv.Itoa(os.Getuid())
	if os.Geteuid() == 0 {
		want = strconv.Itoa(shell.SandboxUID)
	}
	if len(uid) == 0 || uid[0] != want {
		t.Errorf("Uid %q inside, want %s", st["Uid"], want)
	}

	iso := e.Isolation()
	if !iso.UserNamespace || strconv.Itoa(iso.UID) != want || iso.Capabilities != "none" || !iso.NoNewPrivs {
		t.Errorf("Isolation = %+v", iso)
	}
	for _, g := range []string{"mount", "namespaces", "ptrace", "keyring", "kernel_modules", "kexec", "bpf", "perf", "swap", "reboot"} {
		if !slices.Contains(iso.Seccomp, g) {
			t.Errorf("Isolation.Seccomp %v lacks %s", iso.Seccomp, g)
		}
	}
}

// TestRootEscapeFails replays the attack found on a root-run sandbox: lift
// the private /tmp, remount / writable, write a host file.
func TestRootEscapeFails(t *testing.T) {
	t.Parallel()
	e, _ := newExec(t, shell.SandboxBwrap)
	host := filepath.Join(hostDir(t), "host-file")
	if err := os.WriteFile(host, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, context.Background(), e, cmd(fmt.Sprintf(
		"echo attempt-started; umount -l /tmp; mount -o remount,bind,rw /; echo pwned > %s; echo attempt-ended", host)))
	out, errs := section(t, res.Content, "stdout"), section(t, res.Content, "stderr")
	contains(t, out, "attempt-started", "attempt-ended")
	contains(t, errs, "umount", "mount", "Read-only file system")
	if b, err := os.ReadFile(host); err != nil || string(b) != "original\n" {
		t.Errorf("the host file is %q (%v), want it unchanged", b, err)
	}
	// umount and mount may refuse before any system call for want of
	// root: the calls themselves must fail too.
	if perl := perlPath(t); perl != "" {
		nr := syscallNumbers(t)
		res = run(t, context.Background(), e, cmd(perlCalls(perl, []perlCall{
			{"umount2", nr["umount2"], `$tmp, 2`},                  // MNT_DETACH
			{"mount", nr["mount"], `$none, $root, $none, 4128, 0`}, // MS_REMOUNT|MS_BIND
		})))
		contains(t, section(t, res.Content, "stdout"), "umount2 -1 1\n", "mount -1 1\n") // EPERM
	}
}

func TestSandboxCannotRegainPrivileges(t *testing.T) {
	t.Parallel()
	e, _ := newExec(t, shell.SandboxBwrap)
	if _, err := exec.LookPath("unshare"); err == nil {
		res := run(t, context.Background(), e, cmd("echo trying; unshare -r id; echo r=$?; unshare -m true; echo m=$?; unshare -U true; echo U=$?"))
		out := section(t, res.Content, "stdout")
		contains(t, out, "trying")
		for _, k := range []string{"r", "m", "U"} {
			if strings.Contains(out, k+"=0\n") {
				t.Errorf("unshare -%s succeeded in the sandbox:\n%s", k, res.Content)
			}
		}
		contains(t, section(t, res.Content, "stderr"), "Operation not permitted")
	} else {
		t.Logf("unshare(1) not installed: the raw system calls below stand for it")
	}
	perl := perlPath(t)
	if perl == "" {
		return
	}
	nr := syscallNumbers(t)
	// Without the filter, process_vm_readv of one's own memory with no
	// vector returns 0, PTRACE_TRACEME succeeds where the parent holds the
	// child's capabilities, unshare(CLONE_NEWUSER) is allowed in a user
	// namespace and keyctl fails with ENOKEY: EPERM is the filter's.
	script := perlCalls(perl, []perlCall{
		{"process_vm_readv", nr["process_vm_readv"], `$$, 0, 0, 0, 0, 0`},
		{"ptrace", nr["ptrace"], `0, 0, 0, 0`},
		{"unshare_user", nr["unshare"], `0x10000000`},
		{"keyctl", nr["keyctl"], `0, -1, 0`},
		{"bpf", nr["bpf"], `0, 0, 0`},
		{"io_uring_setup", nr["io_uring_setup"], `1, 0`}, // EFAULT without the filter
	})
	res := run(t, context.Background(), e, cmd(script))
	out := section(t, res.Content, "stdout")
	for _, n := range []string{"process_vm_readv", "ptrace", "unshare_user", "keyctl", "bpf", "io_uring_setup"} {
		if !strings.Contains(out, n+" -1 1\n") {
			t.Errorf("%s was not refused with EPERM:\n%s", n, res.Content)
		}
	}
}

func TestSandboxRefusesSetuidFiles(t *testing.T) {
	t.Parallel()
	e, root := newExec(t, shell.SandboxBwrap)
	res := run(t, context.Background(), e, cmd("touch plain && chmod 4755 plain; echo chmod=$?; chmod 2755 plain; echo chmodg=$?; chmod 755 plain; echo chmod755=$?"))
	out := section(t, res.Content, "stdout")
	contains(t, out, "chmod755=0")
	if strings.Contains(out, "chmod=0") || strings.Contains(out, "chmodg=0") {
		t.Errorf("chmod of a setuid or setgid bit succeeded:\n%s", res.Content)
	}
	if perl := perlPath(t); perl != "" {
		run(t, context.Background(), e, cmd(perl+` -e 'use Fcntl; sysopen(my $f, "created", O_CREAT|O_WRONLY, 04755) or print "refused ", $!+0, "\n"'`))
	}
	for _, n := range []string{"plain", "created"} {
		if fi, err := os.Stat(filepath.Join(root, n)); err == nil && fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
			t.Errorf("%s has mode %v on the host", n, fi.Mode())
		}
	}
}

func TestSandboxProcSysReadOnly(t *testing.T) {
	t.Parallel()
	e, _ := newExec(t, shell.SandboxBwrap)
	before, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	if err != nil {
		t.Skipf("no /proc/sys/kernel/core_pattern: %v", err)
	}
	// The value written is the current one: were the write to succeed, the
	// host would be left as it was.
	res := run(t, context.Background(), e, cmd(`v=$(cat /proc/sys/kernel/core_pattern) && echo read && printf '%s\n' "$v" > /proc/sys/kernel/core_pattern && echo WROTE`))
	contains(t, res.Content, "read", "Read-only file system")
	if strings.Contains(res.Content, "WROTE") {
		t.Error("the sandbox wrote kernel.core_pattern")
	}
	if after, _ := os.ReadFile("/proc/sys/kernel/core_pattern"); string(after) != string(before) {
		t.Errorf("core_pattern changed: %q -> %q", before, after)
	}
}

func TestSandboxProtectsControlFiles(t *testing.T) {
	t.Parallel()
	git := needGit(t)
	e, root := newExec(t, shell.SandboxBwrap)
	if out, err := exec.Command(git, "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".mcp.json", "{}\n")
	write(".moteur/config.yaml", "mode: confirm\n")
	config, err := os.ReadFile(filepath.Join(root, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, context.Background(), e, cmd(strings.Join([]string{
		"echo start",
		"git config core.fsmonitor 'touch fsmonitor-ran'; echo config=$?",
		"echo '#!/bin/sh' > .git/hooks/pre-commit; echo hook=$?",
		"mv .git .git-old; echo mv=$?",
		"rm -rf .git/hooks; echo rmhooks=$?",
		`echo '{"mcpServers":{}}' > .mcp.json; echo mcp=$?`,
		"echo 'allow: [\"*\"]' > .moteur/config.yaml; echo moteur=$?",
		"echo ok > normal.txt && mkdir -p src && echo 'package main' > src/main.go; echo normal=$?",
		"echo end",
	}, "\n")))
	out := section(t, res.Content, "stdout")
	contains(t, out, "start", "normal=0", "end")
	for _, k := range []string{"config", "hook", "mv", "rmhooks", "mcp", "moteur"} {
		if strings.Contains(out, "\n"+k+"=0\n") {
			t.Errorf("%s succeeded inside the sandbox:\n%s", k, res.Content)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".git", "config")); string(b) != string(config) {
		t.Errorf(".git/config changed:\n%s", b)
	}
	for _, p := range []string{".git/hooks/pre-commit", ".git-old", "fsmonitor-ran"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s exists on the host", p)
		}
	}
	if fi, err := os.Stat(filepath.Join(root, ".git", "hooks")); err != nil || !fi.IsDir() {
		t.Errorf(".git/hooks is gone: %v", err)
	}
	for rel, want := range map[string]string{".mcp.json": "{}\n", ".moteur/config.yaml": "mode: confirm\n", "normal.txt": "ok\n", "src/main.go": "package main\n"} {
		if b, err := os.ReadFile(filepath.Join(root, rel)); err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", rel, b, err, want)
		}
	}
	// git itself still works: a commit writes objects, refs and the index.
	res = run(t, context.Background(), e, cmd("git add normal.txt && git -c user.name=t -c user.email=t@example.invalid commit -qm first && git log --oneline | wc -l"))
	contains(t, res.Content, "exit code: 0", "--- stdout ---\n1\n")
	if iso := e.Isolation(); len(iso.ReadOnly) != 0 {
		t.Errorf("Isolation.ReadOnly = %v: the project had no control file at New", iso.ReadOnly)
	}
}

// With no .git when the command starts, nothing can be bound: the command
// can create a hook, and the result must say so.
func TestSandboxReportsCreatedControlFiles(t *testing.T) {
	t.Parallel()
	modes(t, func(t *testing.T, mode string) {
		e, root := newExec(t, mode)
		res := run(t, context.Background(), e, cmd("mkdir -p .git/hooks && printf '#!/bin/sh\\n' > .git/hooks/pre-commit && echo '{}' > .mcp.json && echo planted"))
		contains(t, res.Content, "planted", ".git/hooks (created)", ".git/hooks/pre-commit (created)", ".mcp.json (created)", "review")
		if !strings.HasPrefix(res.Content, "warning:") {
			t.Errorf("the warning is not first:\n%s", res.Content)
		}
		if _, err := os.Stat(filepath.Join(root, ".git/hooks/pre-commit")); err != nil {
			t.Fatalf("the command did not run: %v", err)
		}
		// Once they exist, the next command finds them bound read-only,
		// and an ordinary command gets no warning.
		res = run(t, context.Background(), e, cmd("echo quiet > normal.txt"))
		if strings.Contains(res.Content, "warning:") {
			t.Errorf("warning for a command that changed no control file:\n%s", res.Content)
		}
		res = run(t, context.Background(), e, cmd("echo changed >> .mcp.json"))
		if mode == shell.SandboxBwrap {
			contains(t, res.Content, "Read-only file system")
		} else {
			contains(t, res.Content, ".mcp.json (changed)")
		}
	})
}

func TestSandboxDescribesIsolation(t *testing.T) {
	t.Parallel()
	needBwrap(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".mcp.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := shell.New(shell.Config{Root: root, Sandbox: shell.SandboxBwrap})
	if err != nil {
		t.Fatal(err)
	}
	iso := e.Isolation()
	if !slices.Equal(iso.ReadOnly, []string{".git/hooks", ".mcp.json"}) {
		t.Errorf("Isolation.ReadOnly = %v, want [.git/hooks .mcp.json]", iso.ReadOnly)
	}
	_, detail := e.Describe()
	contains(t, detail, "read-only: .git/hooks, .mcp.json", "no capabilities", "no new privileges", "seccomp filter refusing mount")
	contains(t, e.Description(), "read-only here", ".git/hooks/", "git -c key=value", "no capabilities", "seccomp")
}

// A bwrap that cannot apply the filter: mode bwrap refuses to run weaker,
// auto runs without it and says so.
func TestSandboxWithoutSeccomp(t *testing.T) {
	t.Parallel()
	needBwrap(t)
	real, _ := exec.LookPath("bwrap")
	fake := fakeBwrap(t, "#!/bin/sh\nfor a; do if [ \"$a\" = --seccomp ]; then echo 'bwrap: prctl(PR_SET_SECCOMP): Invalid argument' >&2; exit 1; fi; done\nexec "+real+" \"$@\"\n")
	root := t.TempDir()
	e := newWithBwrap(t, root, shell.SandboxBwrap, fake)
	if kind, detail := e.Describe(); kind != "unavailable" || !strings.Contains(detail, "seccomp") {
		t.Errorf("bwrap without its filter: Describe = %q, %q", kind, detail)
	}
	res := run(t, context.Background(), e, cmd("touch ran"))
	contains(t, res.Content, "Nothing was run", "seccomp", "PR_SET_SECCOMP")
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("mode bwrap ran a command without the seccomp filter")
	}

	e = newWithBwrap(t, root, shell.SandboxAuto, fake)
	kind, detail := e.Describe()
	if kind != "bwrap" || !strings.Contains(detail, "no seccomp filter") {
		t.Errorf("auto without the filter: Describe = %q, %q", kind, detail)
	}
	if iso := e.Isolation(); iso.Seccomp != nil || iso.Capabilities != "none" {
		t.Errorf("auto without the filter: Isolation = %+v", iso)
	}
	res = run(t, context.Background(), e, cmd("grep Seccomp: /proc/self/status"))
	contains(t, res.Content, "exit code: 0", "Seccomp:\t0")
}

func needGit(t *testing.T) string {
	t.Helper()
	return testenv.Program(t, "git", "apt-get install git")
}

// perlPath is perl's path, "" (after logging why) when it is missing: the
// raw system-call checks need it, the rest of a test does not.
func perlPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("perl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("perl is not installed and CI=true: the raw system-call checks must run (%v)", err)
		}
		t.Logf("perl not installed: the raw system-call checks are not run (%v)", err)
		return ""
	}
	return p
}

// perlCall is one raw system call for perlCalls: its name, number and
// arguments as perl source, where $tmp, $root and $none are writable
// strings (perl's syscall refuses literals).
type perlCall struct {
	name string
	nr   int
	args string
}

// perlCalls is a command that makes each call and prints "name result
// errno", e.g. "mount -1 1" for EPERM.
func perlCalls(perl string, calls []perlCall) string {
	var b strings.Builder
	b.WriteString(perl + ` -e 'my ($tmp, $root, $none) = ("/tmp", "/", "none");`)
	for _, c := range calls {
		fmt.Fprintf(&b, ` print "%s ", syscall(%d, %s), " ", $!+0, "\n";`, c.name, c.nr, c.args)
	}
	b.WriteString(`'`)
	return b.String()
}

// syscallNumbers are the numbers perl's syscall needs, per architecture.
func syscallNumbers(t *testing.T) map[string]int {
	t.Helper()
	switch runtime.GOARCH {
	case "amd64":
		return map[string]int{"mount": 165, "umount2": 166, "ptrace": 101, "unshare": 272, "keyctl": 250, "bpf": 321, "process_vm_readv": 310, "io_uring_setup": 425}
	case "arm64":
		return map[string]int{"mount": 40, "umount2": 39, "ptrace": 117, "unshare": 97, "keyctl": 219, "bpf": 280, "process_vm_readv": 270, "io_uring_setup": 425}
	}
	t.Skipf("no system call numbers for %s in this test", runtime.GOARCH)
	return nil
}
