package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newTestSet returns a set on a fresh root.
func newTestSet(t testing.TB) *Set {
	t.Helper()
	s, err := New(Config{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func run(t testing.TB, s *Set, name string, args any) string {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range s.Tools() {
		if tool.Name() == name {
			res, err := tool.Execute(context.Background(), b)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return res.Content
		}
	}
	t.Fatalf("no tool %s", name)
	return ""
}

// The cache must not serve the content from before an edit that kept the
// file's length, even when the mtime reads the same (a coarse file system,
// or a restored mtime): the write bumped the path's epoch.
func TestCacheNotStaleAfterSameLengthEdit(t *testing.T) {
	s := newTestSet(t)
	p := filepath.Join(s.real, "a.txt")
	if err := os.WriteFile(p, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	read := func() string { return run(t, s, ReadFileName, map[string]any{"path": "a.txt"}) }

	if got := read(); !strings.Contains(got, "hello world") {
		t.Fatalf("first read = %q", got)
	}
	if got := read(); !strings.Contains(got, "hello world") {
		t.Fatalf("second read = %q", got)
	}
	if hits, _ := s.cache.stats(); hits != 1 {
		t.Fatalf("cache hits = %d, want 1: the test needs a cached entry", hits)
	}

	run(t, s, EditFileName, map[string]any{"path": "a.txt", "edits": []map[string]any{{"old_string": "world", "new_string": "earth"}}})
	// Same size, and the mtime put back to the cached one.
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Size() != 12 || !fi.ModTime().Equal(old) {
		t.Fatalf("setup: size %d mtime %v", fi.Size(), fi.ModTime())
	}
	if got := read(); !strings.Contains(got, "hello earth") {
		t.Errorf("read after a same-length edit served stale content:\n%s", got)
	}
	// The same holds for write_file.
	run(t, s, WriteFileName, map[string]any{"path": "a.txt", "content": "HELLO EARTH\n"})
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if got := read(); !strings.Contains(got, "HELLO EARTH") {
		t.Errorf("read after a same-length write served stale content:\n%s", got)
	}
}

// A file whose mtime is recent is not cached: another program could change
// it again within the timestamp's granularity.
func TestCacheRacyWindow(t *testing.T) {
	s := newTestSet(t)
	now := time.Now()
	s.now = func() time.Time { return now }
	p := filepath.Join(s.real, "a.txt")
	if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, now, now); err != nil {
		t.Fatal(err)
	}
	run(t, s, ReadFileName, map[string]any{"path": "a.txt"})
	run(t, s, ReadFileName, map[string]any{"path": "a.txt"})
	if hits, _ := s.cache.stats(); hits != 0 {
		t.Errorf("recent file served from cache (%d hits)", hits)
	}
	now = now.Add(3 * time.Second)
	run(t, s, ReadFileName, map[string]any{"path": "a.txt"})
	run(t, s, ReadFileName, map[string]any{"path": "a.txt"})
	if hits, _ := s.cache.stats(); hits != 1 {
		t.Errorf("settled file: %d hits, want 1", hits)
	}
}

// A reader that read before a write must not store its (stale) content
// under the new epoch.
func TestCachePutAfterBumpDropped(t *testing.T) {
	c := newFileCache(1<<20, 1<<10)
	fi := fakeInfo{size: 3, mtime: time.Unix(1000, 0)}
	now := time.Unix(2000, 0)
	e := c.epoch("a")
	c.bump("a") // a write lands while the reader reads
	c.put("a", fi, e, []byte("old"), now)
	if _, ok := c.get("a", fi); ok {
		t.Error("content read before a write was cached")
	}
	c.put("a", fi, c.epoch("a"), []byte("new"), now)
	if d, ok := c.get("a", fi); !ok || string(d) != "new" {
		t.Errorf("get = %q %v", d, ok)
	}
	// Size and mtime changes invalidate too.
	if _, ok := c.get("a", fakeInfo{size: 4, mtime: fi.mtime}); ok {
		t.Error("served for another size")
	}
}

func TestCacheEviction(t *testing.T) {
	c := newFileCache(10, 6)
	now := time.Unix(2000, 0)
	info := func(n int) fakeInfo { return fakeInfo{size: int64(n), mtime: time.Unix(1000, 0)} }
	c.put("big", info(7), 0, []byte("1234567"), now) // over maxFile
	c.put("a", info(5), 0, []byte("aaaaa"), now)
	c.put("b", info(5), 0, []byte("bbbbb"), now)
	c.get("a", info(5)) // a is now the most recent
	c.put("c", info(5), 0, []byte("ccccc"), now)
	_, big := c.get("big", info(7))
	_, a := c.get("a", info(5))
	_, b := c.get("b", info(5))
	_, cc := c.get("c", info(5))
	if big || !a || b || !cc || c.used != 10 {
		t.Errorf("big %v a %v b %v c %v used %d; want false true false true 10", big, a, b, cc, c.used)
	}
}

type fakeInfo struct {
	size  int64
	mtime time.Time
}

func (f fakeInfo) Name() string       { return "f" }
func (f fakeInfo) Size() int64        { return f.size }
func (f fakeInfo) Mode() os.FileMode  { return 0o644 }
func (f fakeInfo) ModTime() time.Time { return f.mtime }
func (f fakeInfo) IsDir() bool        { return false }
func (f fakeInfo) Sys() any           { return nil }
