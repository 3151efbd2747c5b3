package policy

import (
	"encoding/json"
	"github.com/moteur/moteur/effect"
	"strings"
	"testing"
)

func shellCall(command string, extra map[string]any) json.RawMessage {
	m := map[string]any{"command": command}
	for k, v := range extra {
		m[k] = v
	}
	raw, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return raw
}

// check asserts the decision on a shell_exec call of risk write.
func checkShell(t *testing.T, p *Permissions, command string, extra map[string]any, want Decision) Verdict {
	t.Helper()
	v := p.Check(Request{Session: "s", Tool: "shell_exec", Risk: effect.RiskWrite, Args: shellCall(command, extra)})
	if v.Decision != want {
		t.Errorf("Check(%q, %v) = %v (%s: %s), want %v", command, extra, v.Decision, v.Rule, v.Reason, want)
	}
	return v
}

// Prefix rules match on the parsed words, at word boundaries.
func TestShellPatterns(t *testing.T) {
	for _, c := range []struct {
		rule string
		cmd  string
		want Decision
	}{
		{"git status*", "git status", Allow},
		{"git status*", "git status --short", Allow},
		{"git status*", "git  status", Allow},
		{"git status*", "'git' status", Allow},
		{"git status*", "git status2", Ask},
		{"git status*", "git statuses", Ask},
		{"git status*", "git", Ask},
		{"git status", "git status", Allow},
		{"git status", "git status -s", Ask},
		{"git *", "git", Allow},
		{"git *", "gitk", Ask},
		{"*", "anything at all", Allow},
		{"npm run test:*", "npm run test:unit", Ask}, // the final * is a word boundary
		{"npm run test:* *", "npm run test:unit --watch", Allow},
		{"npm run test:* *", "npm run lint", Ask},
		{"go test * -run X", "go test ./a ./b -run X", Allow},
		{"go test * -run X", "go test ./a -run Y", Ask},
		{`echo a\ b*`, "echo 'a b' c", Allow},
		// A rule names a redirection to cover one.
		{"go test*", "go test ./... > test.log", Ask},
		{"go test * > test.log", "go test ./... > test.log", Allow},
		{"go test * > test.log", "go test ./... > other.log", Ask},
		{"go test*", "go test ./... > /dev/null 2>&1", Allow},
		// Computed programs are never covered, even by *.
		{"*", "$(echo ls)", Ask},
		{"*", "eval ls", Ask},
		{"*", "PATH=/tmp ls", Ask},
		// Wrappers are commands of their own for allow rules.
		{"ls*", "sudo ls", Ask},
		{"ls*", "/bin/ls", Ask},
		{"ls*", "env ls", Ask},
	} {
		p := newPerms(t, PermissionsConfig{Mode: Confirm, Rules: Rules{Allow: []string{"shell_exec(" + c.rule + ")"}}})
		v := p.Check(Request{Tool: "shell_exec", Risk: effect.RiskWrite, Args: shellCall(c.cmd, nil)})
		if v.Decision != c.want {
			t.Errorf("allow %q, %q = %v (%s), want %v", c.rule, c.cmd, v.Decision, v.Reason, c.want)
		}
	}
}

// Deny rules meet the program reached through wrappers, paths, scripts
// given as text and find -exec, and match as plain text too.
func TestShellDenyReachesThrough(t *testing.T) {
	p := newPerms(t, PermissionsConfig{Mode: AutoWrite, Rules: Rules{
		Allow: []string{"shell_exec(*)"},
		Deny:  []string{"shell_exec(rm*)", "shell_exec(git push --force*)", "shell_exec(rm -rf /*)"},
	}})
	for _, c := range []string{
		"/bin/rm -rf x", "env rm x", "env -i A=1 rm x", "sudo -u root rm x", "nice -n 5 rm x",
		"timeout 5 rm x", "xargs rm", "echo x | xargs -0 rm", "bash -c 'rm x'", "sh -c 'cd a && rm x'",
		"eval 'rm x'", "find . -exec rm {} +", "busybox rm x", "watch rm x", "trap 'rm x' EXIT",
		"bash <<< 'rm x'", "git $X --force", "rmdir x", "eval \"rm $f\"",
		"git -C . push --force origin main", "command git push --force", "rm -rf /tmp/x",
	} {
		checkShell(t, p, c, nil, Deny)
	}
	// A word only known at run time matches any pattern word, but not
	// as the program: that one no allow rule covers (the mode decides,
	// and the tool's Confirmer makes it ask).
	if v := checkShell(t, p, "$X x", nil, Allow); strings.HasPrefix(v.Rule, "allow:") {
		t.Errorf("a computed program is covered by %s", v.Rule)
	}
	checkShell(t, p, "git status", nil, Allow)
	checkShell(t, p, "echo rm", nil, Allow)
	checkShell(t, p, "grep -r rm .", nil, Allow)
}

// env is part of the call: a refused variable denies it in every mode, an
// unknown one keeps allow rules from covering it, a safe one changes
// nothing.
func TestShellEnv(t *testing.T) {
	rules := Rules{Allow: []string{"shell_exec(git status*)", "shell_exec(go test*)"}}
	for _, mode := range []Mode{ReadOnly, Confirm, AutoWrite} {
		p := newPerms(t, PermissionsConfig{Mode: mode, Rules: rules})
		for _, name := range []string{"BASH_ENV", "ENV", "LD_PRELOAD", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0",
			"GIT_SSH_COMMAND", "GIT_EXEC_PATH", "PATH", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "IFS",
			"PS4", "PYTHONSTARTUP", "PYTHONPATH", "NODE_OPTIONS", "PERL5OPT", "RUBYOPT", "EDITOR", "PAGER",
			"GIT_PAGER", "path", "ld_preload"} {
			v := checkShell(t, p, "git status", map[string]any{"env": map[string]string{name: "x"}}, Deny)
			if v.Rule != RuleRefusedEnv || !strings.Contains(v.Reason, name) {
				t.Errorf("%s: verdict %+v", name, v)
			}
		}
		// Safe variables keep the rule's cover.
		checkShell(t, p, "go test ./...", map[string]any{"env": map[string]string{
			"GOFLAGS": "-mod=mod -count=1", "CGO_ENABLED": "0", "NODE_ENV": "test", "RUST_BACKTRACE": "1",
			"TZ": "UTC", "LANG": "C", "LC_ALL": "C", "NO_COLOR": "1", "CI": "true", "TERM": "dumb"}}, Allow)
	}
	p := newPerms(t, PermissionsConfig{Mode: ReadOnly, Rules: rules})
	// Anything else is not covered: the mode decides (read_only: a write
	// is denied by the mode, not by a rule).
	for _, env := range []map[string]string{
		{"FOO": "1"}, {"HOME": "/tmp"}, {"GOFLAGS": "-toolexec=/tmp/x"}, {"CGO_ENABLED": "yes"},
	} {
		v := checkShell(t, p, "go test ./...", map[string]any{"env": env}, Deny)
		if v.Rule == RuleRefusedEnv || !strings.Contains(v.Reason, "environment variable") {
			t.Errorf("%v: verdict %+v", env, v)
		}
	}
	// Unreadable env: no allow rule.
	checkShell(t, p, "go test ./...", map[string]any{"env": "PATH=x"}, Deny)
	raw := json.RawMessage(`{"command":"go test ./...","env":{"TZ":"UTC","TZ":"x"}}`)
	if v := p.Check(Request{Tool: "shell_exec", Risk: effect.RiskWrite, Args: raw}); v.Decision == Allow {
		t.Errorf("an env with a duplicate name is allowed: %+v", v)
	}
	// Without a command, env is an ordinary argument.
	q := newPerms(t, PermissionsConfig{Mode: Confirm, Rules: Rules{Allow: []string{"deploy"}}})
	if v := q.Check(Request{Tool: "deploy", Risk: effect.RiskWrite, Args: json.RawMessage(`{"env":{"PATH":"x"}}`)}); v.Decision != Allow {
		t.Errorf("env of another tool: %+v", v)
	}
}

// stdin is covered only when no program of the line runs it as code; a
// shell's stdin script is seen by deny rules.
func TestShellStdin(t *testing.T) {
	p := newPerms(t, PermissionsConfig{Mode: ReadOnly, Rules: Rules{
		Allow: []string{"shell_exec(git status*)", "shell_exec(cat*)", "shell_exec(bash*)", "shell_exec(python3*)", "shell_exec(sort*)"},
		Deny:  []string{"shell_exec(rm*)"},
	}})
	in := map[string]any{"stdin": "touch x\n"}
	checkShell(t, p, "cat", in, Allow)
	checkShell(t, p, "git status; cat | sort", in, Allow)
	checkShell(t, p, "cat", nil, Allow)
	for _, c := range []string{"bash", "bash -s", "git status && bash", "python3", "python3 -", "cat /dev/stdin", "sort -"} {
		v := checkShell(t, p, c, in, Deny) // read_only: not covered, so the write is denied
		if !strings.Contains(v.Reason, "stdin") {
			t.Errorf("%q: the reason does not name the stdin: %s", c, v.Reason)
		}
	}
	// A pipe or a redirection feeds the shell instead: the call's stdin
	// is data for the first command.
	checkShell(t, p, "cat | sort", in, Allow)
	// The script a shell reads from stdin meets deny rules.
	v := checkShell(t, p, "bash", map[string]any{"stdin": "echo hi\nrm -rf build\n"}, Deny)
	if !strings.HasPrefix(v.Rule, "deny:") {
		t.Errorf("bash's stdin script: %+v", v)
	}
	checkShell(t, p, "bash", map[string]any{"stdin": ""}, Allow) // empty stdin: nothing to run
}

// A remembered answer is for the command with its env and stdin.
func TestShellRememberKeepsEnvAndStdin(t *testing.T) {
	p := newPerms(t, PermissionsConfig{Mode: Confirm})
	req := func(extra map[string]any) Request {
		return Request{Session: "s", Tool: "shell_exec", Risk: effect.RiskWrite, Args: shellCall("make", extra)}
	}
	with := map[string]any{"env": map[string]string{"FOO": "1"}, "stdin": "a"}
	p.Remember(req(with))
	if v := p.Check(req(with)); v.Decision != Allow || v.Rule != RuleRemembered {
		t.Errorf("remembered call: %+v", v)
	}
	for _, other := range []map[string]any{nil, {"env": map[string]string{"FOO": "2"}, "stdin": "a"}, {"env": map[string]string{"FOO": "1"}, "stdin": "b"}} {
		if v := p.Check(req(other)); v.Decision != Ask {
			t.Errorf("%v: %+v, want the remembered answer not to cover it", other, v)
		}
	}
}
