package files_test

import (
	"os"
	"strings"
	"testing"

	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/files"
)

const secretRule = "path:secret/**"

// classifySecret classifies what lies under secret/, a directory asked as
// "secret/" included, as the rule "secret/**" does.
func classifySecret(rel string) (string, bool) {
	if strings.HasPrefix(rel, "secret/") {
		return secretRule, true
	}
	return "", false
}

// newClassifiedEnv is newEnv with Config.Classify set to classify (nil
// leaves it nil), on the project every test below works on: secret/x.md is
// classified by classifySecret, open.md and pub/a.md are not.
func newClassifiedEnv(t *testing.T, classify func(string) (string, bool)) *env {
	t.Helper()
	root := t.TempDir()
	blobs := newBlobs()
	s, err := files.New(files.Config{Root: root, Blobs: blobs, Classify: classify})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	r := tools.NewRegistry(tools.Config{MaxOutput: 1 << 20})
	for _, tool := range s.Tools() {
		if err := r.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{t: t, root: root, set: s, reg: r, blobs: blobs}
	e.put("open.md", "hello open\n")
	e.put("pub/a.md", "public\n")
	e.put("secret/x.md", "hello secret\n")
	return e
}

// classifyCase is one call and the classification its result must carry.
type classifyCase struct {
	name    string
	tool    string
	args    map[string]any
	want    string // Result.Classified under classifySecret
	isError bool
	lacks   string // text the result must not show: a file only counted
}

// runClassify runs each case on a fresh project, under classify; with a
// nil classify every result must be unclassified.
func runClassify(t *testing.T, classify func(string) (string, bool), cases []classifyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newClassifiedEnv(t, classify)
			res := e.call(c.tool, c.args)
			if res.IsError != c.isError {
				t.Fatalf("%s %v: IsError = %v, want %v:\n%s", c.tool, c.args, res.IsError, c.isError, res.Content)
			}
			want := c.want
			if classify == nil {
				want = ""
			}
			if res.Classified != want {
				t.Errorf("%s %v: Classified = %q, want %q:\n%s", c.tool, c.args, res.Classified, want, res.Content)
			}
			if c.lacks != "" {
				lacks(t, res.Content, c.lacks)
			}
		})
	}
}

var readCases = []classifyCase{
	{name: "open", tool: "read_file", args: map[string]any{"path": "open.md"}},
	{name: "secret", tool: "read_file", args: map[string]any{"path": "secret/x.md"}, want: secretRule},
	{name: "secret spelt through ..", tool: "read_file", args: map[string]any{"path": "./pub/../secret/x.md"}, want: secretRule},
	// The line count comes from the file.
	{name: "secret past the end", tool: "read_file", args: map[string]any{"path": "secret/x.md", "offset": 5}, want: secretRule, isError: true},
	{name: "open past the end", tool: "read_file", args: map[string]any{"path": "open.md", "offset": 5}, isError: true},
	// Nothing of a file that is not there, or of a directory refused.
	{name: "secret missing", tool: "read_file", args: map[string]any{"path": "secret/none.md"}, isError: true},
	{name: "secret directory", tool: "read_file", args: map[string]any{"path": "secret"}, isError: true},
}

var grepCases = []classifyCase{
	{name: "open only", tool: "grep", args: map[string]any{"pattern": "open"}},
	{name: "both", tool: "grep", args: map[string]any{"pattern": "hello"}, want: secretRule},
	{name: "secret only counted", tool: "grep", args: map[string]any{"pattern": "hello", "max_results": 1}, want: secretRule, lacks: "secret"},
	{name: "secret searched, no match", tool: "grep", args: map[string]any{"pattern": "public|open"}},
	{name: "no match", tool: "grep", args: map[string]any{"pattern": "nowhere"}},
	{name: "secret file named", tool: "grep", args: map[string]any{"pattern": "hello", "path": "secret/x.md"}, want: secretRule},
	{name: "open file named", tool: "grep", args: map[string]any{"pattern": "hello", "path": "open.md"}},
	{name: "glob leaves secret out", tool: "grep", args: map[string]any{"pattern": "hello", "glob": "open.md"}},
}

var listCases = []classifyCase{
	{name: "root", tool: "list_files", args: map[string]any{}, want: secretRule},
	{name: "root, secret only counted", tool: "list_files", args: map[string]any{"max_entries": 1}, want: secretRule, lacks: "secret"},
	{name: "open directory", tool: "list_files", args: map[string]any{"path": "pub"}},
	{name: "secret directory", tool: "list_files", args: map[string]any{"path": "secret"}, want: secretRule},
	{name: "not a directory", tool: "list_files", args: map[string]any{"path": "secret/x.md"}, isError: true},
}

var globCases = []classifyCase{
	{name: "top level", tool: "glob", args: map[string]any{"pattern": "*.md"}},
	{name: "open directory", tool: "glob", args: map[string]any{"pattern": "pub/*.md"}},
	{name: "everywhere", tool: "glob", args: map[string]any{"pattern": "**/*.md"}, want: secretRule},
	{name: "secret only counted", tool: "glob", args: map[string]any{"pattern": "**/*.md", "max_results": 1}, want: secretRule, lacks: "secret"},
	{name: "secret directory", tool: "glob", args: map[string]any{"pattern": "secret/*"}, want: secretRule},
	{name: "no match", tool: "glob", args: map[string]any{"pattern": "**/*.txt"}},
}

var writeCases = []classifyCase{
	{name: "create secret", tool: "write_file", args: map[string]any{"path": "secret/y.md", "content": "new\n"}, want: secretRule},
	{name: "overwrite secret", tool: "write_file", args: map[string]any{"path": "secret/x.md", "content": "new\n"}, want: secretRule},
	{name: "append secret", tool: "write_file", args: map[string]any{"path": "secret/x.md", "content": "more\n", "mode": "append"}, want: secretRule},
	{name: "overwrite open", tool: "write_file", args: map[string]any{"path": "open.md", "content": "new\n"}},
	{name: "create open", tool: "write_file", args: map[string]any{"path": "pub/b.md", "content": "new\n"}},
}

// oneEdit is the edits argument of a single replacement.
func oneEdit(old, new string) []ed { return []ed{{"old_string": old, "new_string": new}} }

var editCases = []classifyCase{
	{name: "secret", tool: "edit_file", args: map[string]any{"path": "secret/x.md", "edits": oneEdit("secret", "hidden")}, want: secretRule},
	{name: "open", tool: "edit_file", args: map[string]any{"path": "open.md", "edits": oneEdit("open", "shut")}},
	// A failed edit still says whether and where its text occurs.
	{name: "secret not found", tool: "edit_file", args: map[string]any{"path": "secret/x.md", "edits": oneEdit("absent", "x")}, want: secretRule, isError: true},
	{name: "secret ambiguous", tool: "edit_file", args: map[string]any{"path": "secret/x.md", "edits": oneEdit("e", "x")}, want: secretRule, isError: true},
	{name: "open not found", tool: "edit_file", args: map[string]any{"path": "open.md", "edits": oneEdit("absent", "x")}, isError: true},
	{name: "secret missing", tool: "edit_file", args: map[string]any{"path": "secret/none.md", "edits": oneEdit("a", "b")}, isError: true},
}

func TestClassifiedReadFile(t *testing.T)  { runClassify(t, classifySecret, readCases) }
func TestClassifiedGrep(t *testing.T)      { runClassify(t, classifySecret, grepCases) }
func TestClassifiedListFiles(t *testing.T) { runClassify(t, classifySecret, listCases) }
func TestClassifiedGlob(t *testing.T)      { runClassify(t, classifySecret, globCases) }
func TestClassifiedWriteFile(t *testing.T) { runClassify(t, classifySecret, writeCases) }
func TestClassifiedEditFile(t *testing.T)  { runClassify(t, classifySecret, editCases) }

// Without Classify nothing is classified, whatever the tool touches.
func TestClassifyNil(t *testing.T) {
	for _, cases := range [][]classifyCase{readCases, grepCases, listCases, globCases, writeCases, editCases} {
		runClassify(t, nil, cases)
	}
}

// An error drawn from a classified file keeps its message as the registry
// would have written it: only the rule is added.
func TestClassifiedErrorMessage(t *testing.T) {
	e := newClassifiedEnv(t, classifySecret)
	before := e.snap("secret/x.md")
	res := e.call("edit_file", map[string]any{"path": "secret/x.md", "edits": oneEdit("absent", "x")})
	if !res.IsError || res.Classified != secretRule || len(res.Changes) > 0 {
		t.Fatalf("result = %+v", res)
	}
	if !strings.HasPrefix(res.Content, "edit_file: no edit applied to secret/x.md: edit 1: old_string not found") {
		t.Errorf("content = %q", res.Content)
	}
	e.unchanged("secret/x.md", before)
	res = e.call("read_file", map[string]any{"path": "secret/x.md", "offset": 5})
	if res.Content != "read_file: offset 5 is past the end of secret/x.md (1 line)" {
		t.Errorf("content = %q", res.Content)
	}
}

// Classify is asked the resolved path: a symlink inside the project does
// not hide the classified file or directory it leads to.
func TestClassifiedThroughSymlink(t *testing.T) {
	needSymlinks(t)
	e := newClassifiedEnv(t, classifySecret)
	if err := os.Symlink("secret", e.path("alias")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secret/x.md", e.path("link.md")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "link.md"}},
		{"read_file", map[string]any{"path": "alias/x.md"}},
		{"grep", map[string]any{"pattern": "hello", "path": "link.md"}},
		{"list_files", map[string]any{"path": "alias"}},
		{"glob", map[string]any{"pattern": "alias/*.md"}},
		{"edit_file", map[string]any{"path": "link.md", "edits": oneEdit("secret", "hidden")}},
		{"write_file", map[string]any{"path": "alias/z.md", "content": "z"}},
	} {
		if res := e.ok(c.tool, c.args); res.Classified != secretRule {
			t.Errorf("%s %v: Classified = %q, want %q", c.tool, c.args, res.Classified, secretRule)
		}
	}
}

// A file too large to search is named in grep's result: its name is
// classified too.
func TestClassifiedGrepTooLarge(t *testing.T) {
	e := newClassifiedEnv(t, classifySecret)
	e.put("secret/big.log", "hello\n")
	if err := os.Truncate(e.path("secret/big.log"), 16<<20+1); err != nil {
		t.Fatal(err)
	}
	res := e.ok("grep", map[string]any{"pattern": "nowhere"})
	contains(t, res.Content, "Not searched", "secret/big.log")
	if res.Classified != secretRule {
		t.Errorf("Classified = %q, want %q", res.Classified, secretRule)
	}
}

// The rule reported is the first the result met; a rule Classify leaves
// empty still classifies.
func TestClassifiedFirstRule(t *testing.T) {
	byDir := func(rel string) (string, bool) {
		switch {
		case strings.HasPrefix(rel, "pub/"):
			return "path:pub/**", true
		case strings.HasPrefix(rel, "secret/"):
			return "", true
		}
		return "", false
	}
	e := newClassifiedEnv(t, byDir)
	// Files in lexical order: open.md, pub/a.md, secret/x.md.
	if got := e.ok("grep", map[string]any{"pattern": "."}).Classified; got != "path:pub/**" {
		t.Errorf("grep: Classified = %q, want the first rule met", got)
	}
	if got := e.ok("read_file", map[string]any{"path": "secret/x.md"}).Classified; got == "" {
		t.Error("read_file: an empty rule left the file unclassified")
	}
}
