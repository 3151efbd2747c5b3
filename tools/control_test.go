package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/tools"
)

func TestIsControl(t *testing.T) {
	paths := tools.ControlPaths("")
	for rel, want := range map[string]string{
		".git/config":           ".git/config",
		"./.git/config":         ".git/config",
		"sub/../.git/config":    ".git/config",
		".GIT/CONFIG":           ".git/config",
		".git/hooks":            ".git/hooks",
		".git/hooks/pre-commit": ".git/hooks",
		".git/modules/a/b/hook": ".git/modules",
		".git":                  ".git",
		".mcp.json":             ".mcp.json",
		".moteur/config.yaml":   ".moteur",
		".envrc":                ".envrc",
		".vscode/tasks.json":    ".vscode",
		".claude/settings.json": ".claude",
		// Nested repositories: a submodule's .git file, a vendored clone.
		"sm/.git":                      "sm/.git",
		"vendor/x/.git/config":         "vendor/x/.git/config",
		"vendor/x/.git/hooks/pre-push": "vendor/x/.git/hooks",
	} {
		c, ok := tools.IsControl(paths, rel)
		if !ok || c.Path != want || c.Why == "" {
			t.Errorf("IsControl(%q) = %+v, %v; want %s", rel, c, ok, want)
		}
	}
	for _, rel := range []string{"src/main.go", ".git/objects/ab/cdef", ".git/info/exclude", ".git/HEAD", ".gitignore",
		".mcp.json.bak", ".mcp.json/x", ".git/config/x", "docs/.git/config.md", "vendor/x/.git/objects/ab", "../.git/config", ".moteurx/a", ".git/hooksx", "sub/.mcp.json"} {
		if c, ok := tools.IsControl(paths, rel); ok {
			t.Errorf("IsControl(%q) = %+v, want none", rel, c)
		}
	}
}

func TestControlPathsFollowGitFiles(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	has := func(paths []tools.ControlPath, rel string) bool {
		_, ok := tools.IsControl(paths, rel)
		return ok
	}

	// A worktree's .git file naming a git directory outside: nothing more.
	write(".git", "gitdir: "+outside+"\n")
	if n, base := len(tools.ControlPaths(root)), len(tools.ControlPaths("")); n != base {
		t.Errorf("a .git file leading outside added %d control paths", n-base)
	}
	// One naming a directory inside, relatively, whose commondir names
	// another inside.
	write(".git", "gitdir: store/wt\n")
	write("store/wt/commondir", "../main\n")
	paths := tools.ControlPaths(root)
	for _, rel := range []string{"store/wt/config", "store/wt/hooks/pre-push", "store/main/config", "store/main/hooks/x", "store/main/modules/m/config"} {
		if !has(paths, rel) {
			t.Errorf("%s is not a control path with .git -> store/wt -> store/main", rel)
		}
	}
	if has(paths, "store/wt/objects/x") {
		t.Error("a git directory's objects are control paths")
	}
	// A symbolic link .git to a directory inside.
	if err := os.Remove(filepath.Join(root, ".git")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "repo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("repo", filepath.Join(root, ".git")); err != nil {
		t.Fatal(err)
	}
	if paths := tools.ControlPaths(root); !has(paths, "repo/hooks/pre-commit") || !has(paths, "repo/config") {
		t.Error("the git directory a .git symlink leads to is not covered")
	}
	for _, c := range tools.ControlPaths(root) {
		if strings.HasPrefix(c.Path, "/") || strings.Contains(c.Path, "..") {
			t.Errorf("control path %q is not relative to the root", c.Path)
		}
	}
}
