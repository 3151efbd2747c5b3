package files_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/tools/files"
)

func TestNewValidatesRoot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ root, want string }{
		{"", "required"},
		{"relative/dir", "not an absolute path"},
		{filepath.Join(dir, "missing"), "root"},
		{file, "not a directory"},
	} {
		if _, err := files.New(files.Config{Root: tc.root}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q) = %v, want an error with %q", tc.root, err, tc.want)
		}
	}
}

// Every tool refuses paths that leave the root, naming the path and the
// reason, before touching anything.
func TestPathsOutsideRootRefused(t *testing.T) {
	e := newEnv(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.put("sub/a.txt", "a\n")

	cases := []struct {
		path string
		want string
	}{
		{"../secret.txt", "escapes the project root"},
		{"sub/../../secret.txt", "escapes the project root"},
		{"..", "escapes the project root"},
		{secret, "outside the project root"},
		{"/etc/passwd", "outside the project root"},
		{"sub/a.txt\x00.png", "NUL byte"},
	}
	for _, tc := range cases {
		quoted := strings.ReplaceAll(tc.path, "\x00", `\x00`)
		e.fail("read_file", map[string]any{"path": tc.path}, tc.want, quoted)
		e.fail("write_file", map[string]any{"path": tc.path, "content": "pwned"}, tc.want)
		e.fail("edit_file", map[string]any{"path": tc.path, "edits": []map[string]any{{"old_string": "TOP", "new_string": "x"}}}, tc.want)
		e.fail("list_files", map[string]any{"path": tc.path}, tc.want)
		e.fail("grep", map[string]any{"pattern": "SECRET", "path": tc.path}, tc.want)
	}
	if got, _ := os.ReadFile(secret); string(got) != "TOP SECRET\n" {
		t.Errorf("outside file changed: %q", got)
	}
	// Patterns climb out after a wildcard where no path check looks.
	e.fail("glob", map[string]any{"pattern": "../*"}, `".."`)
	e.fail("glob", map[string]any{"pattern": "sub/*/../../../*"}, `".."`)
	e.fail("glob", map[string]any{"pattern": filepath.ToSlash(outside) + "/*"}, "outside the project root")
	e.fail("grep", map[string]any{"pattern": "x", "glob": "../**"}, `".."`)
}

// Paths inside the root may be relative, absolute, or take detours.
func TestPathsInsideRootAccepted(t *testing.T) {
	e := newEnv(t)
	e.put("sub/a.txt", "alpha\n")
	for _, p := range []string{"sub/a.txt", "./sub/a.txt", "sub/../sub/a.txt", "sub//a.txt", filepath.Join(e.root, "sub", "a.txt")} {
		contains(t, e.ok("read_file", map[string]any{"path": p}).Content, "sub/a.txt: lines 1-1 of 1", "alpha")
	}
	got := e.ok("glob", map[string]any{"pattern": filepath.ToSlash(e.root) + "/sub/*.txt"}).Content
	if got != "sub/a.txt" {
		t.Errorf("absolute glob inside root = %q", got)
	}
}

// A symlink leading outside is refused for reading and writing, whether it
// names a file or a directory on the way.
func TestSymlinkEscapeRefused(t *testing.T) {
	needSymlinks(t)
	e := newEnv(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, e.path("file-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, e.path("dir-link")); err != nil {
		t.Fatal(err)
	}
	// A relative link climbing out is no better than an absolute one.
	if err := os.Symlink("../"+filepath.Base(outside), e.path("rel-link")); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(e.root, outside)
	if err := os.Symlink(rel, e.path("climb")); err != nil {
		t.Fatal(err)
	}

	for _, p := range []string{"file-link", "dir-link/secret.txt", "climb/secret.txt"} {
		msg := e.fail("read_file", map[string]any{"path": p}, "leads outside the project root through a symlink", p)
		lacks(t, msg, "TOP SECRET", outside)
		e.fail("write_file", map[string]any{"path": p, "content": "pwned"}, "leads outside the project root through a symlink")
		e.fail("write_file", map[string]any{"path": p, "content": "pwned", "mode": "append"}, "through a symlink")
		e.fail("edit_file", map[string]any{"path": p, "edits": []map[string]any{{"old_string": "TOP", "new_string": "x"}}}, "through a symlink")
	}
	// Creating a new file through a directory link is refused too, and
	// creates nothing outside.
	e.fail("write_file", map[string]any{"path": "dir-link/new.txt", "content": "pwned"}, "through a symlink")
	e.fail("write_file", map[string]any{"path": "dir-link/deep/new.txt", "content": "pwned"}, "through a symlink")
	e.fail("list_files", map[string]any{"path": "dir-link"}, "through a symlink")
	e.fail("grep", map[string]any{"pattern": "SECRET", "path": "dir-link"}, "through a symlink")

	if got, _ := os.ReadFile(secret); string(got) != "TOP SECRET\n" {
		t.Errorf("outside file changed: %q", got)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("files appeared outside the root: %v", entries)
	}
	// The links themselves are still links.
	if fi, err := os.Lstat(e.path("file-link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("file-link was replaced: %v %v", fi, err)
	}

	// Walking tools never follow them.
	out := e.ok("grep", map[string]any{"pattern": "SECRET"}).Content
	contains(t, out, "No matches")
	out = e.ok("glob", map[string]any{"pattern": "**/*.txt"}).Content
	contains(t, out, "No files match")
	out = e.ok("list_files", map[string]any{}).Content
	contains(t, out, "dir-link@", "file-link@")
	lacks(t, out, "secret")
}

// A dangling link is refused with a clear message rather than written
// through.
func TestDanglingSymlinkRefused(t *testing.T) {
	needSymlinks(t)
	e := newEnv(t)
	outside := filepath.Join(t.TempDir(), "nowhere")
	if err := os.Symlink(outside, e.path("dangling")); err != nil {
		t.Fatal(err)
	}
	e.fail("write_file", map[string]any{"path": "dangling", "content": "x"}, "dangling", "symlink that cannot be resolved")
	e.fail("write_file", map[string]any{"path": "dangling/new.txt", "content": "x"}, "symlink")
	if _, err := os.Lstat(outside); err == nil {
		t.Error("a file was created outside through a dangling link")
	}
}

// A link inside the root that points inside is followed: reads see the
// target, writes change the target and keep the link, and changes name the
// target.
func TestSymlinkInsideFollowed(t *testing.T) {
	needSymlinks(t)
	e := newEnv(t)
	e.put("real/target.txt", "one\n")
	if err := os.Symlink("real/target.txt", e.path("rel-link")); err != nil {
		t.Fatal(err)
	}
	// Absolute targets inside the root are fine too (os.Root alone would
	// refuse them).
	if err := os.Symlink(e.path("real"), e.path("abs-dir")); err != nil {
		t.Fatal(err)
	}
	contains(t, e.ok("read_file", map[string]any{"path": "rel-link"}).Content, "one")
	contains(t, e.ok("read_file", map[string]any{"path": "abs-dir/target.txt"}).Content, "one")

	res := e.ok("edit_file", map[string]any{"path": "rel-link", "edits": []map[string]any{{"old_string": "one", "new_string": "two"}}})
	if res.Changes[0].Path != "real/target.txt" {
		t.Errorf("change path = %q, want the target", res.Changes[0].Path)
	}
	e.ok("write_file", map[string]any{"path": "abs-dir/target.txt", "content": "three\n", "mode": "append"})
	if got := e.get("real/target.txt"); got != "two\nthree\n" {
		t.Errorf("target = %q", got)
	}
	fi, err := os.Lstat(e.path("rel-link"))
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file: %v", err)
	}
	out := e.ok("glob", map[string]any{"pattern": "abs-dir/*.txt"}).Content
	if out != "abs-dir/target.txt" {
		t.Errorf("glob through an inside link = %q", out)
	}
}
