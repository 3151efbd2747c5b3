package files_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/files"
)

// confirmOf asks tool name what the engine asks before a call: why it must
// be confirmed.
func (e *env) confirmOf(name string, args any) string {
	e.t.Helper()
	tool, ok := e.reg.Lookup(name)
	if !ok {
		e.t.Fatalf("no tool %s", name)
	}
	cf, ok := tool.(tools.Confirmer)
	if !ok {
		e.t.Fatalf("%s does not implement tools.Confirmer", name)
	}
	return cf.MustConfirm(marshal(e.t, args))
}

func marshal(t *testing.T, v any) json.RawMessage {
	t.Helper()
	if s, ok := v.(string); ok {
		return json.RawMessage(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeArgs(p string) map[string]any { return map[string]any{"path": p, "content": "x"} }

func editArgs(p string) map[string]any {
	return map[string]any{"path": p, "edits": []map[string]any{{"old_string": "a", "new_string": "b"}}}
}

func TestWritesToControlFilesMustBeConfirmed(t *testing.T) {
	needSymlinks(t)
	e := newEnv(t)
	e.put(".git/config", "[core]\n")
	e.put(".git/hooks/pre-commit.sample", "#!/bin/sh\n")
	e.put("src/main.go", "package main\n")
	if err := os.Symlink(".git/config", e.path("innocent.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git", e.path("g")); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.EvalSymlinks(e.root)
	if err != nil {
		t.Fatal(err)
	}
	control := map[string]string{
		".git/hooks/pre-commit":     ".git/hooks",
		".mcp.json":                 ".mcp.json",
		".moteur/config.yaml":       ".moteur",
		"./.git/config":             ".git/config",
		"sub/../.git/config":        ".git/config",
		".GIT/Config":               ".git/config",
		"innocent.txt":              ".git/config", // a symlink to .git/config
		"g/hooks/post-checkout":     ".git/hooks",  // through a symlinked directory
		abs + "/.envrc":             ".envrc",
		".vscode/tasks.json":        ".vscode",
		".claude/settings.json":     ".claude",
		".git":                      ".git",
		".git/modules/lib/config":   ".git/modules",
		".git/commondir":            ".git/commondir",
		".git/worktrees/w/gitdir":   ".git/worktrees",
		".git/config.worktree":      ".git/config.worktree",
		".moteur/agents/helper.md":  ".moteur",
		".git/hooks":                ".git/hooks",
		".vscode/../.mcp.json":      ".mcp.json",
		"src/../.claude/hooks.json": ".claude",
		"vendor/lib/.git/hooks/x":   "vendor/lib/.git/hooks", // a nested repository
		"sm/.git":                   "sm/.git",               // a submodule's .git file
	}
	for p, want := range control {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{{files.WriteFileName, writeArgs(p)}, {files.EditFileName, editArgs(p)}} {
			why := e.confirmOf(c.tool, c.args)
			if why == "" {
				t.Errorf("%s %s: MustConfirm is empty, want a reason naming %s", c.tool, p, want)
				continue
			}
			if !strings.Contains(why, want) || !strings.Contains(why, "confirmation every time") {
				t.Errorf("%s %s: MustConfirm = %q, want it to name %s and ask every time", c.tool, p, why, want)
			}
		}
	}
	if why := e.confirmOf(files.WriteFileName, writeArgs("innocent.txt")); !strings.Contains(why, "innocent.txt, which leads to .git/config") {
		t.Errorf("a symlink's reason does not say where it leads: %q", why)
	}
	for _, p := range []string{"src/main.go", "README.md", ".gitignore", ".git-notes/x", ".github/workflows/ci.yml", ".git/info/exclude", "docs/.git/config.md"} {
		if why := e.confirmOf(files.WriteFileName, writeArgs(p)); why != "" {
			t.Errorf("write_file %s: MustConfirm = %q, want empty", p, why)
		}
		if why := e.confirmOf(files.EditFileName, editArgs(p)); why != "" {
			t.Errorf("edit_file %s: MustConfirm = %q, want empty", p, why)
		}
	}
	// Arguments the registry might still repair cannot be judged.
	if why := e.confirmOf(files.WriteFileName, `{"path": ".git/hooks/pre-commit", "content": "x"`); why == "" {
		t.Error("unreadable arguments: MustConfirm is empty")
	}
}

// A .git file naming a git directory inside the project makes that
// directory's config and hooks control paths too.
func TestGitFileTargetIsControl(t *testing.T) {
	e := newEnv(t)
	e.put("store/repo/HEAD", "ref: refs/heads/main\n")
	e.put(".git", "gitdir: store/repo\n")
	if why := e.confirmOf(files.WriteFileName, writeArgs("store/repo/hooks/pre-commit")); !strings.Contains(why, "store/repo/hooks") {
		t.Errorf("hook of the git directory a .git file names: MustConfirm = %q", why)
	}
	if why := e.confirmOf(files.WriteFileName, writeArgs("store/repo/config")); why == "" {
		t.Error("config of the git directory a .git file names: MustConfirm is empty")
	}
	if why := e.confirmOf(files.WriteFileName, writeArgs("store/repo/description")); why != "" {
		t.Errorf("store/repo/description: MustConfirm = %q, want empty", why)
	}
}

// End to end with the policy, as the engine asks it: auto_write and an
// allow rule for every write still ask for a control file, and only for it.
func TestControlFileWriteAsksDespiteAllowRule(t *testing.T) {
	e := newEnv(t)
	p, err := policy.NewPermissions(policy.PermissionsConfig{
		Mode:  policy.AutoWrite,
		Rules: policy.Rules{Allow: []string{"write_file(**)", "edit_file(**)"}},
		Root:  e.root,
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, args map[string]any) policy.Verdict {
		tool, _ := e.reg.Lookup(name)
		raw := marshal(t, args)
		risk := tool.Risk()
		if ra, ok := tool.(tools.RiskAssessor); ok {
			risk = ra.RiskOf(raw)
		}
		return p.Check(policy.Request{Session: "s", Tool: name, Risk: risk, Args: raw, Confirm: e.confirmOf(name, args)})
	}
	for _, path := range []string{".git/hooks/pre-commit", ".mcp.json", ".moteur/config.yaml", "./.git/config"} {
		v := check(files.WriteFileName, writeArgs(path))
		if v.Decision != policy.Ask || !strings.Contains(v.Reason, "confirmation every time") {
			t.Errorf("write_file %s: %+v, want Ask with the control-file reason", path, v)
		}
		v = check(files.EditFileName, editArgs(path))
		if v.Decision != policy.Ask {
			t.Errorf("edit_file %s: %+v, want Ask", path, v)
		}
	}
	if v := check(files.WriteFileName, writeArgs("src/main.go")); v.Decision != policy.Allow {
		t.Errorf("write_file src/main.go: %+v, want Allow by the rule", v)
	}
}
