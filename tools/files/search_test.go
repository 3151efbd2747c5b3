package files_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestListFiles(t *testing.T) {
	e := newEnv(t)
	e.put("b.txt", "")
	e.put("a.txt", "")
	e.put("src/main.go", "")
	e.put(".hidden", "")
	got := e.ok("list_files", map[string]any{}).Content
	if want := "./: 4 entries\n.hidden\na.txt\nb.txt\nsrc/"; got != want {
		t.Errorf("list_files =\n%s\nwant\n%s", got, want)
	}
	got = e.ok("list_files", map[string]any{"path": "src"}).Content
	if want := "src/: 1 entry\nmain.go"; got != want {
		t.Errorf("list_files src = %q", got)
	}
	e.fail("list_files", map[string]any{"path": "a.txt"}, "not a directory", "read_file")
	e.fail("list_files", map[string]any{"path": "missing"}, "missing")
	e.put("empty/.keep", "")
	if err := os.Remove(e.path("empty/.keep")); err != nil {
		t.Fatal(err)
	}
	contains(t, e.ok("list_files", map[string]any{"path": "empty"}).Content, "empty directory")
}

// A large directory is capped, sorted over all its entries (not the first
// batch read), with a marker.
func TestListFilesCap(t *testing.T) {
	e := newEnv(t)
	for i := range 3000 {
		e.put(fmt.Sprintf("d/f%04d", 2999-i), "")
	}
	got := e.ok("list_files", map[string]any{"path": "d"}).Content
	lines := strings.Split(got, "\n")
	if len(lines) != 202 {
		t.Fatalf("%d lines", len(lines))
	}
	if lines[0] != "d/: 3000 entries" || lines[1] != "f0000" || lines[200] != "f0199" {
		t.Errorf("head/tail = %q %q %q", lines[0], lines[1], lines[200])
	}
	contains(t, lines[201], "… 2800 more entries")
	got = e.ok("list_files", map[string]any{"path": "d", "max_entries": 500}).Content
	contains(t, got, "f0499\n… 2500 more entries")
	e.fail("list_files", map[string]any{"path": "d", "max_entries": 501}, "max_entries")
}

func TestGlob(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"main.go", "a/b/c.go", "a/b/c_test.go", "a/x.txt", "docs/readme.md", "docs/guide.txt", "vendor/v.go", ".git/config.go", "build/out.go"} {
		e.put(p, "")
	}
	e.put(".gitignore", "build/\n")
	got := e.ok("glob", map[string]any{"pattern": "**/*.go"}).Content
	if want := "a/b/c.go\na/b/c_test.go\nmain.go\nvendor/v.go"; got != want {
		t.Errorf("glob **/*.go =\n%s\nwant\n%s", got, want)
	}
	if got := e.ok("glob", map[string]any{"pattern": "docs/*.{md,txt}"}).Content; got != "docs/guide.txt\ndocs/readme.md" {
		t.Errorf("glob alternatives = %q", got)
	}
	if got := e.ok("glob", map[string]any{"pattern": "./a/**/*_test.go"}).Content; got != "a/b/c_test.go" {
		t.Errorf("glob ./ prefix = %q", got)
	}
	if got := e.ok("glob", map[string]any{"pattern": "main.go"}).Content; got != "main.go" {
		t.Errorf("glob literal = %q", got)
	}
	contains(t, e.ok("glob", map[string]any{"pattern": "nowhere/**"}).Content, "No files match")
	contains(t, e.ok("glob", map[string]any{"pattern": "**/*.rs"}).Content, "No files match")
	e.fail("glob", map[string]any{"pattern": "a/[b"}, "not a valid glob")

	got = e.ok("glob", map[string]any{"pattern": "**", "max_results": 2}).Content
	contains(t, got, ".gitignore\na/b/c.go\n… 6 more files (8 match in all)")
}

func TestGrep(t *testing.T) {
	e := newEnv(t)
	e.put("a.go", "package a\n\nfunc Hello() {}\n// hello world\n")
	e.put("sub/b.go", "package sub\nvar hello = 1\n")
	e.put("sub/c.txt", "Hello text\n")
	got := e.ok("grep", map[string]any{"pattern": "(?i)hello"}).Content
	want := "a.go:3:func Hello() {}\na.go:4:// hello world\nsub/b.go:2:var hello = 1\nsub/c.txt:1:Hello text"
	if got != want {
		t.Errorf("grep =\n%s\nwant\n%s", got, want)
	}
	// ^ and $ are line anchors; a line matching twice is reported once.
	if got := e.ok("grep", map[string]any{"pattern": "^package \\w+$"}).Content; got != "a.go:1:package a\nsub/b.go:1:package sub" {
		t.Errorf("anchored grep = %q", got)
	}
	if got := e.ok("grep", map[string]any{"pattern": "l", "path": "sub/c.txt"}).Content; got != "sub/c.txt:1:Hello text" {
		t.Errorf("one report per line = %q", got)
	}
	// Path and glob filters.
	if got := e.ok("grep", map[string]any{"pattern": "hello", "path": "sub"}).Content; got != "sub/b.go:2:var hello = 1" {
		t.Errorf("grep in sub = %q", got)
	}
	if got := e.ok("grep", map[string]any{"pattern": "(?i)hello", "glob": "*.txt"}).Content; got != "sub/c.txt:1:Hello text" {
		t.Errorf("grep glob by name = %q", got)
	}
	if got := e.ok("grep", map[string]any{"pattern": "(?i)hello", "glob": "sub/*.go"}).Content; got != "sub/b.go:2:var hello = 1" {
		t.Errorf("grep glob by path = %q", got)
	}
	contains(t, e.ok("grep", map[string]any{"pattern": "absent"}).Content, `No matches for "absent"`)
	e.fail("grep", map[string]any{"pattern": "a(b"}, "invalid regular expression")
	// Every line matches an empty-matching pattern, and no line is
	// invented after the last newline.
	if got := e.ok("grep", map[string]any{"pattern": "x*", "path": "sub/b.go"}).Content; got != "sub/b.go:1:package sub\nsub/b.go:2:var hello = 1" {
		t.Errorf("empty matches = %q", got)
	}
}

func TestGrepCapsAndCuts(t *testing.T) {
	e := newEnv(t)
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "match %d\n", i)
	}
	e.put("many.txt", b.String())
	got := e.ok("grep", map[string]any{"pattern": "match"}).Content
	lines := strings.Split(got, "\n")
	if len(lines) != 101 || lines[99] != "many.txt:100:match 100" {
		t.Fatalf("%d lines, line 100 = %q", len(lines), lines[min(99, len(lines)-1)])
	}
	contains(t, lines[100], "… 200 more matches (300 matching lines in 1 file in all)")
	got = e.ok("grep", map[string]any{"pattern": "match", "max_results": 500}).Content
	lacks(t, got, "more matches")

	long := strings.Repeat("x", 5000) + "NEEDLE" + strings.Repeat("y", 5000)
	e.put("min.js", long+"\n")
	got = e.ok("grep", map[string]any{"pattern": "NEEDLE"}).Content
	if len(got) > 400 {
		t.Errorf("long line not cut: %d bytes", len(got))
	}
	contains(t, got, "min.js:1:…x", "NEEDLE", "y… [10006 bytes]")
}

// .gitignore rules are honoured: patterns, negation, directory-only,
// anchored, nested files; .git is always skipped; binary files too.
func TestGrepGitignore(t *testing.T) {
	e := newEnv(t)
	e.put(".gitignore", "# build outputs\n*.log\n!keep.log\nbuild/\n/top.txt\ndocs/*.tmp\n")
	for _, p := range []string{
		"app.log", "keep.log", "build/x.txt", "src/build/y.txt", "top.txt", "src/top.txt",
		"docs/a.tmp", "docs/deep/b.tmp", "src/ok.txt", ".git/HEAD", "src/.git", "nested/secret.key", "nested/public.txt",
		"build.txt",
	} {
		e.put(p, "TOKEN\n")
	}
	e.put("nested/.gitignore", "*.key\n")
	e.put("bin.dat", "TOKEN\x00\x01")
	got := e.ok("grep", map[string]any{"pattern": "TOKEN"}).Content
	want := strings.Join([]string{
		"build.txt:1:TOKEN",         // build/ is a directory pattern
		"docs/deep/b.tmp:1:TOKEN",   // docs/*.tmp is anchored, one level
		"keep.log:1:TOKEN",          // re-included by !keep.log
		"nested/public.txt:1:TOKEN", // nested .gitignore only ignores *.key
		"src/ok.txt:1:TOKEN",
		"src/top.txt:1:TOKEN", // /top.txt is anchored to the root
	}, "\n")
	if got != want {
		t.Errorf("grep with .gitignore =\n%s\nwant\n%s", got, want)
	}
	// A file named explicitly is searched even if ignored.
	if got := e.ok("grep", map[string]any{"pattern": "TOKEN", "path": "app.log"}).Content; got != "app.log:1:TOKEN" {
		t.Errorf("explicit ignored file = %q", got)
	}
	// Searching below the root still applies the root's .gitignore.
	contains(t, e.ok("grep", map[string]any{"pattern": "TOKEN", "path": "src"}).Content, "src/top.txt", "src/ok.txt")
	lacks(t, e.ok("grep", map[string]any{"pattern": "TOKEN", "path": "src"}).Content, "src/build")
}
