package files_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/files"
)

// memBlobs is an in-memory effect.Blobs; fail makes Put refuse.
type memBlobs struct {
	mu   sync.Mutex
	m    map[string][]byte
	puts int
	fail bool
}

func newBlobs() *memBlobs { return &memBlobs{m: map[string][]byte{}} }

func (b *memBlobs) Put(_ context.Context, data []byte) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail {
		return "", errors.New("checkpoint store is full")
	}
	b.puts++
	id := sha(data)
	b.m[id] = append([]byte(nil), data...)
	return id, nil
}

func (b *memBlobs) Get(_ context.Context, id string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.m[id]
	if !ok {
		return nil, errors.New("no such blob")
	}
	return d, nil
}

func sha(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// env is a project root with the file tools registered on it.
type env struct {
	t     *testing.T
	root  string
	set   *files.Set
	reg   *tools.Registry
	blobs *memBlobs
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, newBlobs())
}

// newEnvWith uses blobs as the store; a nil *memBlobs means Config.Blobs
// nil.
func newEnvWith(t *testing.T, blobs *memBlobs) *env {
	t.Helper()
	root := t.TempDir()
	cfg := files.Config{Root: root}
	if blobs != nil {
		cfg.Blobs = blobs
	}
	s, err := files.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	// Room for a full 64 KiB page: the registry's default cut would hide
	// what read_file itself returns.
	r := tools.NewRegistry(tools.Config{MaxOutput: 1 << 20})
	for _, tool := range s.Tools() {
		if err := r.Register(tool); err != nil {
			t.Fatal(err)
		}
	}
	return &env{t: t, root: root, set: s, reg: r, blobs: blobs}
}

// call runs name with args (a JSON string, or a value to marshal) through
// the registry, as the engine does.
func (e *env) call(name string, args any) tools.Result {
	e.t.Helper()
	text, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			e.t.Fatal(err)
		}
		text = string(b)
	}
	return e.reg.Execute(context.Background(), llm.ToolCall{ID: "c", Name: name, Arguments: text})
}

// ok runs a call that must succeed and returns its content.
func (e *env) ok(name string, args any) tools.Result {
	e.t.Helper()
	res := e.call(name, args)
	if res.IsError {
		e.t.Fatalf("%s %v: error result: %s", name, args, res.Content)
	}
	return res
}

// fail runs a call that must fail with a message holding every want.
func (e *env) fail(name string, args any, want ...string) string {
	e.t.Helper()
	res := e.call(name, args)
	if !res.IsError {
		e.t.Fatalf("%s %v: succeeded, want an error:\n%s", name, args, res.Content)
	}
	contains(e.t, res.Content, want...)
	if len(res.Changes) > 0 {
		e.t.Errorf("%s: failed call reports changes %v", name, res.Changes)
	}
	return res.Content
}

func (e *env) path(rel string) string { return filepath.Join(e.root, filepath.FromSlash(rel)) }

// put writes a file directly, creating its directories.
func (e *env) put(rel, content string) {
	e.t.Helper()
	p := e.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// get reads a file directly.
func (e *env) get(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *env) exists(rel string) bool {
	_, err := os.Lstat(e.path(rel))
	return err == nil
}

func contains(t *testing.T, content string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(content, w) {
			t.Errorf("content lacks %q:\n%s", w, content)
		}
	}
}

func lacks(t *testing.T, content string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(content, w) {
			t.Errorf("content has %q:\n%s", w, content)
		}
	}
}

func needSymlinks(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
}

// snapshot is a file's bytes and mtime, to prove a refused call left it
// alone.
type snapshot struct {
	data string
	info os.FileInfo
}

func (e *env) snap(rel string) snapshot {
	e.t.Helper()
	fi, err := os.Stat(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return snapshot{data: e.get(rel), info: fi}
}

func (e *env) unchanged(rel string, before snapshot) {
	e.t.Helper()
	after := e.snap(rel)
	if after.data != before.data {
		e.t.Errorf("%s changed:\nbefore %q\nafter  %q", rel, before.data, after.data)
	}
	if !after.info.ModTime().Equal(before.info.ModTime()) {
		e.t.Errorf("%s mtime changed: %v -> %v", rel, before.info.ModTime(), after.info.ModTime())
	}
	if !os.SameFile(before.info, after.info) {
		e.t.Errorf("%s was replaced (new inode)", rel)
	}
	e.noTemp(filepath.Dir(rel))
}

// noTemp checks no temporary file of an atomic write was left behind.
func (e *env) noTemp(dir string) {
	e.t.Helper()
	entries, err := os.ReadDir(e.path(dir))
	if err != nil {
		return
	}
	for _, d := range entries {
		if strings.Contains(d.Name(), ".tmp-") {
			e.t.Errorf("temporary file left: %s", d.Name())
		}
	}
}
