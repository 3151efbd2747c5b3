package agents

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/moteur/moteur/frontmatter"
	"github.com/moteur/moteur/i18n"
)

// sessionTools are the tools of a typical session (no web tools).
var sessionTools = []string{"read_file", "write_file", "edit_file", "list_files", "glob", "grep", "shell_exec",
	"search_knowledge", "read_document", "list_documents", "thinking", "todo_write", "agent"}

func testConfig() Config {
	return Config{ProjectDir: "testdata/project", UserDir: "testdata/user", Tools: sessionTools, Models: []string{"small", "large"}}
}

// findErr returns the reported errors about path that wrap target.
func findErr(errs []error, path string, target error) []*FileError {
	var out []*FileError
	for _, err := range errs {
		var fe *FileError
		if errors.As(err, &fe) && strings.HasSuffix(fe.Path, path) && errors.Is(err, target) {
			out = append(out, fe)
		}
	}
	return out
}

func TestLoadClaudeCodeFiles(t *testing.T) {
	c, errs := Load(testConfig())
	for _, e := range errs {
		t.Log(e)
	}
	var got []string
	for _, a := range c.List() {
		got = append(got, a.Name+"@"+filepath.Base(filepath.Dir(a.Source)))
	}
	want := []string{"code-reviewer@agents", "data-scientist@user", "debugger@agents", "doc-writer@agents", "explore@.", "general-purpose@."}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("agents %v, want %v", got, want)
	}

	cr, _ := c.Lookup("code-reviewer")
	if !strings.HasSuffix(cr.Source, filepath.Join(".claude", "agents", "code-reviewer.md")) {
		t.Errorf("code-reviewer from %s: the project's must win over the user's", cr.Source)
	}
	if want := []string{"read_file", "grep", "glob", "shell_exec"}; !reflect.DeepEqual(cr.Tools, want) {
		t.Errorf("code-reviewer tools %v, want %v (Claude Code names mapped)", cr.Tools, want)
	}
	if cr.Model != "" || cr.Line != 7 || !strings.HasPrefix(cr.Prompt, "You are a senior reviewer") || !strings.HasSuffix(cr.Prompt, "suggestions.") {
		t.Errorf("code-reviewer model %q line %d prompt %q", cr.Model, cr.Line, cr.Prompt)
	}
	if d := findErr(errs, filepath.Join("user", "code-reviewer.md"), ErrDuplicate); len(d) != 1 || !d[0].Skipped {
		t.Errorf("the user's code-reviewer not reported as a skipped duplicate: %v", errs)
	}

	dbg, _ := c.Lookup("debugger")
	if want := []string{"read_file", "edit_file", "shell_exec", "grep", "glob"}; !reflect.DeepEqual(dbg.Tools, want) {
		t.Errorf("debugger tools (a YAML list) %v, want %v", dbg.Tools, want)
	}
	if dbg.Model != "" || dbg.Extra["color"] != "red" {
		t.Errorf("debugger model %q extra %v", dbg.Model, dbg.Extra)
	}
	if m := findErr(errs, "debugger.md", ErrUnknownModel); len(m) != 1 || m[0].Skipped || m[0].Line != 10 || !strings.Contains(m[0].Error(), `"sonnet"`) {
		t.Errorf("unknown model sonnet: %v", m)
	}

	dw, _ := c.Lookup("doc-writer")
	if dw.Model != "small" || !reflect.DeepEqual(dw.Tools, []string{"read_file", "glob", "grep", "write_file"}) {
		t.Errorf("doc-writer (Moteur names, configured model): %+v", dw)
	}

	ds, _ := c.Lookup("data-scientist")
	if want := []string{"shell_exec", "read_file", "write_file"}; !reflect.DeepEqual(ds.Tools, want) {
		t.Errorf("data-scientist tools %v, want %v", ds.Tools, want)
	}
	unknown := findErr(errs, "data-scientist.md", ErrUnknownTool)
	if len(unknown) != 2 || !strings.Contains(unknown[0].Error(), "WebSearch") || !strings.Contains(unknown[0].Error(), "web_search") || !strings.Contains(unknown[1].Error(), "NotebookEdit") {
		t.Errorf("unknown tools WebSearch and NotebookEdit: %v", unknown)
	}
	if p := findErr(errs, "data-scientist.md", ErrToolPattern); len(p) != 1 || p[0].Skipped {
		t.Errorf("Bash(git log:*) pattern: %v", p)
	}
	if k := findErr(errs, "data-scientist.md", ErrIgnoredKey); len(k) != 1 || k[0].Key != "permissionMode" || ds.Extra["permissionMode"] != "acceptEdits" {
		t.Errorf("permissionMode kept, not applied, reported: %v %v", k, ds.Extra)
	}
}

func TestBadFiles(t *testing.T) {
	c, errs := Load(Config{UserDir: "testdata/bad", Tools: sessionTools})
	for _, e := range errs {
		t.Log(e)
	}
	cases := []struct {
		file   string
		target error
		line   int
	}{
		{"no-frontmatter.md", frontmatter.ErrNone, 0},
		{"no-name.md", ErrNoName, 0},
		{"no-description.md", ErrNoDescription, 0},
		{"bad-name.md", ErrBadName, 2},
		{"tools-number.md", ErrBadField, 4},
		{"unclosed.md", error(nil), 1},
	}
	for _, tc := range cases {
		var got []*FileError
		if tc.target == nil {
			for _, err := range errs {
				var fe *FileError
				if errors.As(err, &fe) && strings.HasSuffix(fe.Path, tc.file) {
					got = append(got, fe)
				}
			}
		} else {
			got = findErr(errs, tc.file, tc.target)
		}
		if len(got) != 1 || !got[0].Skipped || got[0].Line != tc.line {
			t.Errorf("%s: %v, want one skipped report at line %d", tc.file, got, tc.line)
		}
	}
	// The misspelt key is reported; the agent is kept, with every tool of
	// its parent, as Claude Code would.
	if k := findErr(errs, "typo.md", ErrIgnoredKey); len(k) != 1 || !strings.Contains(k[0].Error(), "did you mean tools?") {
		t.Errorf("typo: %v", k)
	}
	var names []string
	for _, a := range c.List() {
		names = append(names, a.Name)
	}
	if want := []string{"explore", "general-purpose", "typo"}; !reflect.DeepEqual(names, want) {
		t.Errorf("agents %v, want %v", names, want)
	}
	if len(findErr(errs, "README.txt", ErrUnreadable)) != 0 {
		t.Error("a non-.md file was read")
	}
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestEmptiedAllowlistGivesNoTools(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.md", "---\nname: web-only\ndescription: d\ntools: WebFetch, WebSearch\n---\nP\n")
	write(t, dir, "b.md", "---\nname: none\ndescription: d\ntools: []\n---\nP\n")
	write(t, dir, "c.md", "---\nname: blank\ndescription: d\ntools:\n---\nP\n")
	c, errs := Load(Config{UserDir: dir, Tools: sessionTools})
	for _, n := range []string{"web-only", "none", "blank"} {
		a, ok := c.Lookup(n)
		if !ok || a.Tools == nil || len(c.ToolsFor(a, sessionTools)) != 0 {
			t.Errorf("%s: tools %#v, child tools %v: want none (a nil list would mean every tool)", n, a.Tools, c.ToolsFor(a, sessionTools))
		}
	}
	if len(findErr(errs, "a.md", ErrUnknownTool)) != 2 || len(findErr(errs, "c.md", ErrBadField)) != 1 {
		t.Errorf("reports: %v", errs)
	}
}

func TestOverrideBuiltin(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".moteur", "agents"), "explore.md", "---\nname: explore\ndescription: Our explorer.\ntools: Read\n---\nExplore our way.\n")
	c, errs := Load(Config{ProjectDir: dir})
	a, _ := c.Lookup("explore")
	if a.Description != "Our explorer." || a.Prompt != "Explore our way." {
		t.Errorf("explore not replaced: %+v", a)
	}
	if o := findErr(errs, "explore.md", ErrOverride); len(o) != 1 || o[0].Skipped {
		t.Errorf("override not reported: %v", errs)
	}
	if len(c.List()) != 2 {
		t.Errorf("%d agents, want 2", len(c.List()))
	}
}

func TestUnreadable(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "big.md", "---\nname: big\ndescription: d\n---\n"+strings.Repeat("x", MaxFileSize))
	if err := os.Mkdir(filepath.Join(dir, "dir.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, errs := Load(Config{UserDir: dir})
	if _, ok := c.Lookup("big"); ok || len(findErr(errs, "big.md", ErrUnreadable)) != 1 {
		t.Errorf("a file over MaxFileSize: %v", errs)
	}
	if len(errs) != 1 {
		t.Errorf("errors %v: a directory named *.md is not a file to report", errs)
	}
}

func TestZeroConfigIsBuiltins(t *testing.T) {
	c, errs := Load(Config{})
	if len(errs) != 0 || len(c.List()) != 2 {
		t.Fatalf("%v %v", c.List(), errs)
	}
	gp, _ := c.Lookup(GeneralPurpose)
	ex, _ := c.Lookup(Explore)
	if gp.Tools != nil || gp.Prompt != i18n.GeneralPurposePrompt(i18n.FR) || ex.Prompt != i18n.ExplorePrompt(i18n.FR) {
		t.Errorf("built-ins: %+v %+v", gp, ex)
	}
	c, _ = Load(Config{Lang: i18n.EN})
	if gp, _ := c.Lookup(GeneralPurpose); gp.Prompt != i18n.GeneralPurposePrompt(i18n.EN) {
		t.Errorf("English built-in: %q", gp.Prompt)
	}
}

func TestUserDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/moteur/agents"},
		{map[string]string{"XDG_CONFIG_HOME": "rel", "HOME": "/h"}, "/h/.config/moteur/agents"},
		{map[string]string{}, ""},
	}
	for _, tc := range cases {
		if got := UserDir(env(tc.env)); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestNilCatalog(t *testing.T) {
	var c *Catalog
	if _, ok := c.Lookup("explore"); ok || c.List() != nil || c.MaxDepth() != 1 {
		t.Error("nil catalog")
	}
}
