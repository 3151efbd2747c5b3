package shell_test

import (
	"context"
	"encoding/json"
	"github.com/moteur/moteur/effect"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/shell"
)

// The tests of this file replay the attacks of issue 11 against the real
// tool and the real policy, wired as the engine wires them: the risk from
// RiskOf, the confirmation from MustConfirm, the verdict from Check; an
// allowed call runs, an asked one runs only when the user approves.

// engineCall judges raw as the engine does and runs it when allowed, or
// when asked and approve is set. It returns the verdict and whether the
// tool ran.
func engineCall(t *testing.T, p *policy.Permissions, e *shell.Exec, raw json.RawMessage, approve bool) (policy.Verdict, tools.Result, bool) {
	t.Helper()
	req := policy.Request{Session: "s", Tool: shell.Name, Risk: e.RiskOf(raw), Args: raw, Confirm: e.MustConfirm(raw)}
	v := p.Check(req)
	if v.Decision == policy.Deny || v.Decision == policy.Ask && !approve {
		return v, tools.Result{}, false
	}
	res, err := e.Execute(context.Background(), raw)
	if err != nil {
		t.Fatalf("Execute(%s): %v", raw, err)
	}
	return v, res, true
}

func perms(t *testing.T, mode policy.Mode, rules policy.Rules, root string) *policy.Permissions {
	t.Helper()
	p, err := policy.NewPermissions(policy.PermissionsConfig{Mode: mode, Rules: rules, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// The call's env and stdin are part of what a rule must cover: with
// --mode read_only --allow 'shell_exec(git status*)', `git status` with
// BASH_ENV=/dev/stdin and a stdin of commands, or with a git config of
// core.fsmonitor through GIT_CONFIG_*, ran those commands. Each attack is
// shown to work when run directly (so that the absence of PWNED proves a
// refusal, not a payload that does nothing), then refused by the policy
// and by the tool itself.
func TestEnvAndStdinAreJudged(t *testing.T) {
	git := needGit(t) // isolation_test.go
	e, root := newExec(t, shell.SandboxNone)
	if out, err := exec.Command(git, "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	p := perms(t, policy.ReadOnly, policy.Rules{Allow: []string{"shell_exec(git status*)"}}, root)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("skipping: bash is not installed (%v)", err)
	}
	for _, c := range []struct {
		name  string
		env   map[string]string
		stdin string
	}{
		{"BASH_ENV", map[string]string{"BASH_ENV": "/dev/stdin"}, "touch PWNED\n"},
		{"GIT_CONFIG", map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "touch PWNED"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			pwned := filepath.Join(root, "PWNED")
			// The payload is live: run by bash itself, it creates PWNED.
			direct := exec.Command(bash, "-c", "git status")
			direct.Dir, direct.Stdin = root, strings.NewReader(c.stdin)
			direct.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root}
			for k, v := range c.env {
				direct.Env = append(direct.Env, k+"="+v)
			}
			_ = direct.Run()
			if !exists(pwned) {
				t.Fatalf("control: the %s payload run by bash did not create PWNED; the test would prove nothing", c.name)
			}
			if err := os.Remove(pwned); err != nil {
				t.Fatal(err)
			}

			raw, _ := json.Marshal(map[string]any{"command": "git status", "env": c.env, "stdin": c.stdin})
			v, _, ran := engineCall(t, p, e, raw, true)
			if v.Decision != policy.Deny || ran || v.Rule != policy.RuleRefusedEnv {
				t.Fatalf("verdict %+v (ran %v): the env must be refused", v, ran)
			}
			if !strings.Contains(v.Reason, "environment variable") {
				t.Errorf("the reason does not say why: %s", v.Reason)
			}
			// Without the policy, the tool refuses it too.
			res, err := e.Execute(context.Background(), raw)
			if err != nil || !res.IsError || !strings.Contains(res.Content, "refused") {
				t.Errorf("Execute: %+v, %v: the tool must refuse the env itself", res, err)
			}
			if exists(pwned) {
				t.Fatal("PWNED was created")
			}
		})
	}

	// Stdin run as code is never covered by an allow rule either: in
	// read_only the call is refused and nothing runs…
	raw, _ := json.Marshal(map[string]any{"command": "git status; bash", "stdin": "touch PWNED\n"})
	v, _, ran := engineCall(t, p, e, raw, true)
	if v.Decision != policy.Deny || ran {
		t.Fatalf("stdin for bash in read_only: %+v, ran %v", v, ran)
	}
	if exists(filepath.Join(root, "PWNED")) {
		t.Fatal("PWNED was created")
	}
	// …while in confirm mode the same call is asked, and runs — creating
	// the file — once the user approves: the harness does run what is
	// allowed.
	confirm := perms(t, policy.Confirm, policy.Rules{Allow: []string{"shell_exec(git status*)", "shell_exec(bash*)"}}, root)
	v, res, ran := engineCall(t, confirm, e, raw, true)
	if v.Decision != policy.Ask || !ran || !strings.Contains(v.Reason, "stdin") {
		t.Fatalf("stdin for bash in confirm: %+v, ran %v", v, ran)
	}
	if !exists(filepath.Join(root, "PWNED")) {
		t.Fatalf("control: the approved call did not create PWNED:\n%s", res.Content)
	}
	// A stdin that is data is covered: cat reads it.
	raw, _ = json.Marshal(map[string]any{"command": "git status && ls", "stdin": "touch X\n"})
	allowLs := perms(t, policy.ReadOnly, policy.Rules{Allow: []string{"shell_exec(git status*)", "shell_exec(ls*)"}}, root)
	if v := allowLs.Check(policy.Request{Tool: shell.Name, Risk: e.RiskOf(raw), Args: raw, Confirm: e.MustConfirm(raw)}); v.Decision != policy.Allow {
		t.Errorf("git status && ls with a stdin: %+v", v)
	}
}

// denyVariants are the 30 ways round `deny: shell_exec(rm*)` that issue 11
// tried in auto_write; 17 of them deleted their file.
var denyVariants = []string{
	"rm f", "/bin/rm f", "command rm f", "env rm f", "exec rm f", "nice rm f", "nohup rm f",
	"timeout 5 rm f", "sudo rm f", "$(echo rm) f", "xargs rm <<< f", "echo f | xargs rm",
	"eval 'rm f'", "bash -c 'rm f'", `sh -c "rm f"`, "${RM:-rm} f", "find . -name f -delete",
	"unlink f", `\rm f`, "'rm' f", "r''m f", `"rm" f`, "rm -- f", "( rm f )", "{ rm f; }",
	"true && rm f", "false || rm f", "if true; then rm f; fi", "for x in f; do rm $x; done",
	"`echo rm` f",
}

// Every variant is denied or asked in auto_write; none is allowed.
func TestDenyVariantsAreNotAllowed(t *testing.T) {
	e, root := newExec(t, shell.SandboxNone)
	p := perms(t, policy.AutoWrite, policy.Rules{Deny: []string{"shell_exec(rm*)"}}, root)
	if len(denyVariants) != 30 {
		t.Fatalf("%d variants, want the 30 of the issue", len(denyVariants))
	}
	for _, c := range denyVariants {
		raw, _ := json.Marshal(map[string]string{"command": c})
		v := p.Check(policy.Request{Tool: shell.Name, Risk: e.RiskOf(raw), Args: raw, Confirm: e.MustConfirm(raw)})
		if v.Decision == policy.Allow {
			t.Errorf("%q is allowed (%s)", c, v.Rule)
		}
	}
}

// A handful of variants end to end: the file survives the call the policy
// refuses (or the user declines), and the same command run without the
// policy does delete it, so the survival proves the refusal.
func TestDenyVariantsEndToEnd(t *testing.T) {
	for _, c := range []string{"/bin/rm f", "env rm f", "command rm f", "bash -c 'rm f'", "echo f | xargs rm",
		"eval 'rm f'", "r''m f", "for x in f; do rm $x; done", "find . -name f -delete", "$(echo rm) f"} {
		t.Run(c, func(t *testing.T) {
			t.Parallel()
			e, root := newExec(t, shell.SandboxNone)
			f := filepath.Join(root, "f")
			if err := os.WriteFile(f, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			p := perms(t, policy.AutoWrite, policy.Rules{Deny: []string{"shell_exec(rm*)"}}, root)
			raw, _ := json.Marshal(map[string]string{"command": c})
			v, _, ran := engineCall(t, p, e, raw, false) // the user declines what is asked
			if ran || v.Decision == policy.Allow {
				t.Fatalf("%q ran: %+v", c, v)
			}
			if !exists(f) {
				t.Fatal("the file was deleted")
			}
			res, err := e.Execute(context.Background(), raw)
			if err != nil {
				t.Fatal(err)
			}
			if exists(f) {
				t.Fatalf("control: %q run directly did not delete the file, the test proves nothing:\n%s", c, res.Content)
			}
		})
	}
}

// Without the sandbox, a write redirection outside the project is refused
// by the tool; inside it, and to /dev/null, it runs.
func TestRedirectionOutsideTheProject(t *testing.T) {
	e, root := newExec(t, shell.SandboxNone)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(outside, "written")
	for _, c := range []string{
		"echo x > " + target,
		"echo x >> " + target,
		"echo x &> " + target,
		"echo x >& " + target,
		"{ echo x; } > " + target,
		"bash -c 'echo x > " + target + "'",
		"echo x > out/written",
		"echo x > ../" + filepath.Base(outside) + "/written",
		"cd sub && echo x > ../../" + filepath.Base(outside) + "/written",
		"echo x > ~/written",
		"echo x > $HOME/written",
		"cd $D && echo x > written",
	} {
		res := run(t, context.Background(), e, cmd(c))
		if !res.IsError || !strings.Contains(res.Content, "redirection") {
			t.Errorf("%q: not refused:\n%s", c, res.Content)
		}
		if exists(target) {
			t.Fatalf("%q wrote outside the project", c)
		}
	}
	// The checks do not stop what stays inside: the same redirections
	// into the project run.
	for _, c := range []string{"echo x > inside.txt", "echo x >> sub/inside.txt", "cd sub && echo x > b.txt",
		"echo x > /dev/null 2>/dev/stderr", "echo x >&2", "echo x > " + filepath.Join(root, "abs.txt")} {
		res := run(t, context.Background(), e, cmd(c))
		if res.IsError {
			t.Errorf("%q refused:\n%s", c, res.Content)
		}
	}
	for _, f := range []string{"inside.txt", "sub/inside.txt", "sub/b.txt", "abs.txt"} {
		if !exists(filepath.Join(root, f)) {
			t.Errorf("%s was not written", f)
		}
	}
}

// A command whose program or code is only known at run time must be
// confirmed, with the reason; one the reading knows needs nothing.
func TestMustConfirm(t *testing.T) {
	e, _ := newExec(t, shell.SandboxNone)
	for c, want := range map[string]string{
		"$(echo rm) f":       "computed at run time",
		"eval 'ls'":          "eval",
		"source x.sh":        "source",
		"bash -c \"$X\"":     "computed",
		"PATH=/tmp ls":       "PATH",
		"echo 'unterminated": "cannot parse",
		"curl x | sh":        "output of another command",
		"ls":                 "",
		"git status && rm x": "",
		"bash -c 'rm f'":     "",
	} {
		raw, _ := json.Marshal(map[string]string{"command": c})
		got := e.MustConfirm(raw)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("MustConfirm(%q) = %q, want %q", c, got, want)
		}
	}
	raw, _ := json.Marshal(map[string]string{"command": "bash", "stdin": "eval \"$X\""})
	if got := e.MustConfirm(raw); !strings.Contains(got, "stdin") {
		t.Errorf("MustConfirm(bash with a computed stdin script) = %q", got)
	}
	raw, _ = json.Marshal(map[string]string{"command": "bash", "stdin": "ls; echo 'unterminated"})
	if got := e.MustConfirm(raw); !strings.Contains(got, "reads from stdin cannot be parsed") {
		t.Errorf("MustConfirm(bash with a stdin script that does not parse) = %q", got)
	}
}

// The approval prompt shows the env and the stdin, not only the command.
func TestSummary(t *testing.T) {
	e, _ := newExec(t, shell.SandboxNone)
	raw, _ := json.Marshal(map[string]any{"command": "git   status\n--short", "work_dir": "sub",
		"env": map[string]string{"BASH_ENV": "/dev/stdin", "TZ": "UTC"}, "stdin": "touch PWNED\nsecond line\n"})
	got := e.Summary(raw)
	for _, want := range []string{"git status --short", "in sub", "BASH_ENV=/dev/stdin", "TZ=UTC", "stdin (24 bytes, 2 lines): touch PWNED"} {
		if !strings.Contains(got, want) {
			t.Errorf("Summary = %q, lacks %q", got, want)
		}
	}
	long, _ := json.Marshal(map[string]any{"command": strings.Repeat("x", 5000), "env": map[string]string{"LD_PRELOAD": "/tmp/x.so"}})
	got = e.Summary(long)
	if n := len([]rune(got)); n > 300 || !strings.Contains(got, "LD_PRELOAD=/tmp/x.so") {
		t.Errorf("a long command must leave room for the env (%d runes): %q", n, got)
	}
	if e.Summary(json.RawMessage(`nope`)) != "" {
		t.Error("unreadable arguments must give no summary")
	}
}

// The risk of a > depends on the target: over an existing file it is
// destructive, relative to the work_dir; >> only writes.
func TestRiskOfOverwrite(t *testing.T) {
	e, root := newExec(t, shell.SandboxNone)
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "sub", "old.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args map[string]any
		want effect.Risk
	}{
		{map[string]any{"command": "echo x > new.txt"}, effect.RiskWrite},
		{map[string]any{"command": "echo x > sub/old.txt"}, effect.RiskDestructive},
		{map[string]any{"command": "echo x > old.txt", "work_dir": "sub"}, effect.RiskDestructive},
		{map[string]any{"command": "cd sub && echo x > old.txt"}, effect.RiskDestructive},
		{map[string]any{"command": "echo x >> sub/old.txt"}, effect.RiskWrite},
		{map[string]any{"command": "cd \"$D\" && echo x > new.txt"}, effect.RiskDestructive}, // cannot tell
	} {
		raw, _ := json.Marshal(c.args)
		if got := e.RiskOf(raw); got != c.want {
			t.Errorf("RiskOf(%s) = %s, want %s", raw, got, c.want)
		}
	}
}
