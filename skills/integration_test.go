package skills_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/internal/testenv"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/skills"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/files"
	"github.com/moteur/moteur/tools/shell"
)

// The interfaces the tools define are the ones *skills.Set implements.
var (
	_ files.SkillReader   = (*skills.Set)(nil)
	_ shell.SkillResolver = (*skills.Set)(nil)
)

// project copies testdata/project (the greet package in .agents/skills) to a
// fresh root, symbolic links resolved.
func project(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/project")); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func call(t *testing.T, r *tools.Registry, name string, args map[string]any) tools.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	return r.Execute(context.Background(), llm.ToolCall{ID: "c1", Name: name, Arguments: string(raw)})
}

// registry holds the file tools and shell_exec, with the skills of set.
func registry(t *testing.T, root, sandbox string, set *skills.Set) *tools.Registry {
	t.Helper()
	r := tools.NewRegistry(tools.Config{})
	cfg := files.Config{Root: root}
	if set != nil {
		cfg.Skills = set
	}
	if err := files.Register(r, cfg); err != nil {
		t.Fatal(err)
	}
	scfg := shell.Config{Root: root, Sandbox: sandbox}
	if set != nil {
		scfg.Skills = set
	}
	e, err := shell.New(scfg)
	if err != nil {
		t.Fatal(err)
	}
	if sandbox == shell.SandboxBwrap && !e.Sandboxed() {
		_, detail := e.Describe()
		t.Fatalf("bwrap is installed but unusable: %s", detail)
	}
	if err := r.Register(e); err != nil {
		t.Fatal(err)
	}
	return r
}

func needBwrap(t *testing.T) {
	t.Helper()
	testenv.Program(t, "bwrap", "apt-get install bubblewrap to run the sandboxed skill test")
}

func has(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// TestThreeLevels reads the greet package at its three levels through
// read_file, and runs its script through shell_exec(skill_name) in the
// bubblewrap sandbox.
func TestThreeLevels(t *testing.T) {
	root := project(t)
	set := skills.Discover(skills.Config{ProjectRoot: root})
	if p := set.Problems(); len(p) > 0 {
		t.Fatalf("problems: %v", p)
	}
	dir := filepath.Join(root, ".agents", "skills", "greet")

	// Level 1.
	sec := set.Section(i18n.EN)
	has(t, "section", sec, "## Skills", `read_file(path="skill://NAME/SKILL.md")`, "- greet: Greets someone by name from a template")
	if fr := set.Section(i18n.FR); !strings.Contains(fr, "Skills disponibles") || !strings.Contains(fr, "- greet:") {
		t.Errorf("French section:\n%s", fr)
	}

	needBwrap(t)
	r := registry(t, root, shell.SandboxBwrap, set)

	// Level 2.
	res := call(t, r, files.ReadFileName, map[string]any{"path": "skill://greet/SKILL.md"})
	if res.IsError {
		t.Fatalf("level 2: %s", res.Content)
	}
	has(t, "level 2", res.Content,
		"skill://greet/SKILL.md: lines 1-", "; end of file",
		"Directory: "+dir,
		`shell_exec(skill_name="greet"`, "$MOTEUR_SKILL_DIR",
		"SKILL.md (", "scripts/greet.sh (", "templates/hello.txt (13 bytes)",
		"# Greet", "The template is templates/hello.txt, in "+dir+".")
	if strings.Contains(res.Content, "license: MIT") {
		t.Errorf("level 2 shows the front matter:\n%s", res.Content)
	}

	// Level 3.
	res = call(t, r, files.ReadFileName, map[string]any{"path": "skill://greet/templates/hello.txt"})
	if res.IsError || !strings.Contains(res.Content, "1\tHello, NAME!") {
		t.Fatalf("level 3: %+v", res)
	}

	// The script, in the sandbox.
	res = call(t, r, shell.Name, map[string]any{"skill_name": "greet", "command": "sh scripts/greet.sh Ada; id -u; touch \"$MOTEUR_SKILL_DIR/planted\""})
	has(t, "script", res.Content, "Hello, Ada!", "letters: 3", "cwd: "+dir, "65534")
	// The skill's directory is read-only in the sandbox (it is not a control
	// path: only the skill rule protects it)…
	has(t, "script", res.Content, "Read-only file system")
	if _, err := os.Stat(filepath.Join(dir, "planted")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command wrote into the skill's directory: %v", err)
	}
	// …while the project is writable: the touch above was a real attempt.
	res = call(t, r, shell.Name, map[string]any{"command": "touch planted && echo ok"})
	if res.IsError || !strings.Contains(res.Content, "ok") {
		t.Fatalf("touch in the project: %s", res.Content)
	}
	if res := call(t, r, shell.Name, map[string]any{"skill_name": "nope", "command": "true"}); !res.IsError || !strings.Contains(res.Content, "skills offered: greet") {
		t.Errorf("unknown skill: %+v", res)
	}
	if res := call(t, r, shell.Name, map[string]any{"skill_name": "greet", "work_dir": ".", "command": "true"}); !res.IsError || !strings.Contains(res.Content, "leave work_dir out") {
		t.Errorf("skill_name with work_dir: %+v", res)
	}
}

// TestUserSkillInSandbox runs a user's skill kept outside the project,
// under /tmp, which the sandbox replaces with its own: the skill's
// directory must be bound in.
func TestUserSkillInSandbox(t *testing.T) {
	needBwrap(t)
	root := t.TempDir()
	user := t.TempDir()
	write(t, filepath.Join(user, "skills", "where", "SKILL.md"), "---\nname: where\ndescription: Says where it runs.\n---\nRun pwd.\n")
	write(t, filepath.Join(user, "skills", "where", "mark.txt"), "inside the skill\n")
	set := skills.Discover(skills.Config{ProjectRoot: root, UserDir: user})
	r := registry(t, root, shell.SandboxBwrap, set)
	res := call(t, r, shell.Name, map[string]any{"skill_name": "where", "command": "cat mark.txt; echo \"dir=$MOTEUR_SKILL_DIR\""})
	real, _ := filepath.EvalSymlinks(filepath.Join(user, "skills", "where"))
	has(t, "user skill", res.Content, "inside the skill", "dir="+real)
}

// TestWriteIntoSkillRefused: write_file and edit_file refuse a file of a
// skill, the file is unchanged, and the refusal is the skill rule's: the
// same calls without skills succeed.
func TestWriteIntoSkillRefused(t *testing.T) {
	root := project(t)
	set := skills.Discover(skills.Config{ProjectRoot: root})
	target := filepath.Join(root, ".agents", "skills", "greet", "SKILL.md")
	before, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	r := registry(t, root, shell.SandboxNone, set)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{files.WriteFileName, map[string]any{"path": ".agents/skills/greet/SKILL.md", "content": "hijacked"}},
		{files.WriteFileName, map[string]any{"path": root + "/.agents/skills/greet/scripts/new.sh", "content": "echo hi"}},
		{files.EditFileName, map[string]any{"path": ".agents/skills/greet/SKILL.md", "edits": []map[string]any{{"old_string": "# Greet", "new_string": "# Owned"}}}},
	} {
		res := call(t, r, c.tool, c.args)
		if !res.IsError || !strings.Contains(res.Content, "skill files are read-only") || !strings.Contains(res.Content, "inside the skill directory") {
			t.Errorf("%s %v: %+v", c.tool, c.args["path"], res)
		}
	}
	after, _ := os.ReadFile(target)
	if string(after) != string(before) {
		t.Fatalf("SKILL.md changed:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(root, ".agents", "skills", "greet", "scripts", "new.sh")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("new.sh was created: %v", err)
	}
	// A symbolic link in the project that leads into the skill does not
	// get past the rule.
	if err := os.Symlink(filepath.Join(root, ".agents", "skills", "greet"), filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	if res := call(t, r, files.WriteFileName, map[string]any{"path": "alias/SKILL.md", "content": "x"}); !res.IsError || !strings.Contains(res.Content, "read-only") {
		t.Errorf("through a link: %+v", res)
	}
	// The same write without skills goes through: the refusal above came
	// from the skill rule.
	plain := registry(t, root, shell.SandboxNone, nil)
	if res := call(t, plain, files.WriteFileName, map[string]any{"path": ".agents/skills/greet/SKILL.md", "content": "rewritten"}); res.IsError {
		t.Fatalf("write without skills: %s", res.Content)
	}
	if b, _ := os.ReadFile(target); string(b) != "rewritten" {
		t.Fatalf("control write did not happen: %q", b)
	}
}

// TestLevel3Confined: no address leads out of the skill's directory.
func TestLevel3Confined(t *testing.T) {
	root := project(t)
	dir := filepath.Join(root, ".agents", "skills", "greet")
	write(t, filepath.Join(root, "secret.txt"), "project secret\n")
	if err := os.Symlink(filepath.Join(root, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	set := skills.Discover(skills.Config{ProjectRoot: root})
	ctx := context.Background()
	for _, uri := range []string{
		"skill://greet/../../../secret.txt",
		"skill://greet/scripts/../../../../secret.txt",
		"skill://greet/link.txt",
		"skill://greet/up/secret.txt",
		"skill://greet//etc/passwd",
		"skill://greet/scripts",
		"skill://other/SKILL.md",
	} {
		text, _, err := set.ReadSkill(ctx, uri)
		if err == nil {
			t.Errorf("%s read: %q", uri, text)
		} else if strings.Contains(string(text), "project secret") {
			t.Errorf("%s leaked", uri)
		}
	}
	// A link inside the package is followed.
	if err := os.Symlink("templates/hello.txt", filepath.Join(dir, "alias.txt")); err != nil {
		t.Fatal(err)
	}
	if text, file, err := set.ReadSkill(ctx, "skill://greet/alias.txt"); err != nil || string(text) != "Hello, NAME!\n" || file != filepath.Join(dir, "templates", "hello.txt") {
		t.Errorf("link inside: %q %s %v", text, file, err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
