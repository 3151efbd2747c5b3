package files_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/moteur/moteur/effect"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
)

func TestWriteFileCreateOverwriteAppend(t *testing.T) {
	e := newEnv(t)
	res := e.ok("write_file", map[string]any{"path": "deep/new/dir/a.txt", "content": "hello\n"})
	contains(t, res.Content, "Created deep/new/dir/a.txt (6 bytes)")
	if got := e.get("deep/new/dir/a.txt"); got != "hello\n" {
		t.Errorf("content = %q", got)
	}
	fi, _ := os.Stat(e.path("deep/new"))
	if !fi.IsDir() || fi.Mode().Perm()&0o700 != 0o700 {
		t.Errorf("parent dir mode = %v", fi.Mode())
	}

	res = e.ok("write_file", map[string]any{"path": "deep/new/dir/a.txt", "content": "world\n", "mode": "append"})
	contains(t, res.Content, "Appended 6 bytes", "now 12 bytes")
	res = e.ok("write_file", map[string]any{"path": "deep/new/dir/a.txt", "content": "fresh"})
	contains(t, res.Content, "Overwrote deep/new/dir/a.txt (5 bytes, was 12)")
	if got := e.get("deep/new/dir/a.txt"); got != "fresh" {
		t.Errorf("content = %q", got)
	}
	// Append creates a missing file.
	e.ok("write_file", map[string]any{"path": "log.txt", "content": "1\n", "mode": "append"})
	if got := e.get("log.txt"); got != "1\n" {
		t.Errorf("appended new file = %q", got)
	}
	// An empty content is a valid write.
	e.ok("write_file", map[string]any{"path": "empty", "content": ""})
	if got := e.get("empty"); got != "" {
		t.Errorf("empty = %q", got)
	}
	e.noTemp("deep/new/dir")
	e.noTemp(".")

	e.fail("write_file", map[string]any{"path": "deep", "content": "x"}, "deep is a directory")
	e.fail("write_file", map[string]any{"path": "log.txt/sub", "content": "x"}, "log.txt/sub")
	e.fail("write_file", map[string]any{"path": "x", "content": "x", "mode": "truncate"}, "mode")
	e.fail("write_file", map[string]any{"path": "x"}, "content")
}

// Overwrite keeps the permissions of the file it replaces.
func TestWriteFileKeepsMode(t *testing.T) {
	e := newEnv(t)
	e.put("run.sh", "#!/bin/sh\n")
	if err := os.Chmod(e.path("run.sh"), 0o751); err != nil {
		t.Fatal(err)
	}
	e.ok("write_file", map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"})
	e.ok("edit_file", map[string]any{"path": "run.sh", "edits": []map[string]any{{"old_string": "hi", "new_string": "ho"}}})
	fi, err := os.Stat(e.path("run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o751 {
		t.Errorf("mode = %v, want 0751", fi.Mode().Perm())
	}
}

func TestWriteFileSizeLimit(t *testing.T) {
	e := newEnv(t)
	const limit = 8 << 20
	e.ok("write_file", map[string]any{"path": "max.bin", "content": strings.Repeat("a", limit)})
	e.fail("write_file", map[string]any{"path": "over.bin", "content": strings.Repeat("a", limit+1)}, "8 MiB")
	if e.exists("over.bin") {
		t.Error("an over-limit file was written")
	}
	// Append counts the resulting size.
	e.put("grow.txt", strings.Repeat("b", limit-2))
	before := e.snap("grow.txt")
	e.fail("write_file", map[string]any{"path": "grow.txt", "content": "ccc", "mode": "append"}, "8 MiB")
	e.unchanged("grow.txt", before)
	e.ok("write_file", map[string]any{"path": "grow.txt", "content": "cc", "mode": "append"})
	// An edit may not grow a file past it either.
	e.fail("edit_file", map[string]any{"path": "grow.txt", "edits": []map[string]any{{"old_string": "cc", "new_string": "ccc"}}}, "8 MiB")
}

// Every write reports the change; Before is a blob that holds the replaced
// content, saved before the file changed; After is the new content's hash.
func TestWriteChanges(t *testing.T) {
	e := newEnv(t)
	res := e.ok("write_file", map[string]any{"path": "dir/a.txt", "content": "v1\n"})
	want := effect.Change{Path: "dir/a.txt", Before: "", After: sha([]byte("v1\n"))}
	if len(res.Changes) != 1 || res.Changes[0] != want {
		t.Fatalf("create changes = %+v, want %+v", res.Changes, want)
	}

	steps := []struct {
		tool string
		args map[string]any
		old  string
		new  string
	}{
		{"write_file", map[string]any{"path": "dir/a.txt", "content": "v2\n"}, "v1\n", "v2\n"},
		{"write_file", map[string]any{"path": "dir/a.txt", "content": "more\n", "mode": "append"}, "v2\n", "v2\nmore\n"},
		{"edit_file", map[string]any{"path": "dir/a.txt", "edits": []map[string]any{{"old_string": "more", "new_string": "less"}}}, "v2\nmore\n", "v2\nless\n"},
	}
	for _, st := range steps {
		res := e.ok(st.tool, st.args)
		if len(res.Changes) != 1 {
			t.Fatalf("%s: changes = %+v", st.tool, res.Changes)
		}
		c := res.Changes[0]
		if c.Path != "dir/a.txt" || c.After != sha([]byte(st.new)) || c.Before == "" {
			t.Errorf("%s: change = %+v", st.tool, c)
		}
		old, err := e.blobs.Get(context.Background(), c.Before)
		if err != nil || string(old) != st.old {
			t.Errorf("%s: Before blob = %q, %v; want %q", st.tool, old, err, st.old)
		}
		if got := e.get("dir/a.txt"); got != st.new {
			t.Errorf("%s: file = %q, want %q", st.tool, got, st.new)
		}
	}
	// Rewinding with the Before blob restores the previous content exactly.
	last := e.ok("write_file", map[string]any{"path": "dir/a.txt", "content": "oops"}).Changes[0]
	old, _ := e.blobs.Get(context.Background(), last.Before)
	if err := os.WriteFile(e.path("dir/a.txt"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := e.get("dir/a.txt"); got != "v2\nless\n" {
		t.Errorf("rewound content = %q", got)
	}
}

// When the previous content cannot be kept, nothing changes.
func TestWriteRefusedWhenPutFails(t *testing.T) {
	e := newEnv(t)
	e.put("a.txt", "precious\n")
	before := e.snap("a.txt")
	e.blobs.fail = true

	e.fail("write_file", map[string]any{"path": "a.txt", "content": "gone"}, "a.txt left unchanged", "checkpoint store is full")
	e.fail("write_file", map[string]any{"path": "a.txt", "content": "more", "mode": "append"}, "left unchanged")
	e.fail("edit_file", map[string]any{"path": "a.txt", "edits": []map[string]any{{"old_string": "precious", "new_string": "gone"}}}, "left unchanged")
	e.unchanged("a.txt", before)

	// A new file has no previous content to keep: it is created.
	res := e.ok("write_file", map[string]any{"path": "new.txt", "content": "x"})
	if res.Changes[0].Before != "" {
		t.Errorf("new file Before = %q", res.Changes[0].Before)
	}
}

// Without a blob store, changes are still reported, with an empty Before.
func TestWriteWithoutBlobs(t *testing.T) {
	e := newEnvWith(t, nil)
	e.put("a.txt", "old")
	res := e.ok("write_file", map[string]any{"path": "a.txt", "content": "new"})
	if want := (effect.Change{Path: "a.txt", After: sha([]byte("new"))}); len(res.Changes) != 1 || res.Changes[0] != want {
		t.Errorf("changes = %+v, want %+v", res.Changes, want)
	}
}

// Appends to one path from many goroutines are serialised: none is lost.
func TestConcurrentAppends(t *testing.T) {
	e := newEnv(t)
	const n = 64
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			args, _ := json.Marshal(map[string]any{"path": "log.txt", "content": fmt.Sprintf("entry %02d\n", i), "mode": "append"})
			res := e.reg.Execute(context.Background(), llm.ToolCall{ID: "c", Name: "write_file", Arguments: string(args)})
			if res.IsError {
				t.Errorf("append %d: %s", i, res.Content)
			}
		})
	}
	// Edits of another file run alongside, on their own lock.
	e.put("other.txt", "counter 0\n")
	for i := range 10 {
		wg.Go(func() {
			e.call("edit_file", map[string]any{"path": "other.txt", "edits": []map[string]any{{"old_string": fmt.Sprintf("counter %d\n", i), "new_string": fmt.Sprintf("counter %d\n", i+1)}}})
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(e.get("log.txt"), "\n"), "\n")
	slices.Sort(lines)
	if len(lines) != n {
		t.Fatalf("%d lines after %d appends:\n%s", len(lines), n, e.get("log.txt"))
	}
	for i, l := range lines {
		if want := fmt.Sprintf("entry %02d", i); l != want {
			t.Errorf("line %d = %q, want %q", i, l, want)
		}
	}
	e.noTemp(".")
}

// Overwriting a file the agent did not create is destructive; creating,
// appending, editing and overwriting its own files are ordinary writes.
func TestWriteRisk(t *testing.T) {
	e := newEnv(t)
	e.put("user.txt", "the user's work\n")
	tool, _ := e.reg.Lookup("write_file")
	ra, ok := tool.(tools.RiskAssessor)
	if !ok {
		t.Fatal("write_file does not implement RiskAssessor")
	}
	risk := func(args string) effect.Risk { return ra.RiskOf(json.RawMessage(args)) }

	cases := []struct {
		args string
		want effect.Risk
	}{
		{`{"path":"user.txt","content":"x"}`, effect.RiskDestructive},
		{`{"path":"user.txt","content":"x","mode":"overwrite"}`, effect.RiskDestructive},
		{`{"path":"user.txt","content":"x","mode":"append"}`, effect.RiskWrite},
		{`{"path":"new.txt","content":"x"}`, effect.RiskWrite},
		{`{"path":"../outside","content":"x"}`, effect.RiskWrite}, // refused anyway
		{`{"path":`, effect.RiskDestructive},                      // unreadable: assume the worst
	}
	for _, tc := range cases {
		if got := risk(tc.args); got != tc.want {
			t.Errorf("RiskOf(%s) = %s, want %s", tc.args, got, tc.want)
		}
	}
	// Once the set created new.txt, overwriting it is the agent's own
	// business.
	e.ok("write_file", map[string]any{"path": "new.txt", "content": "mine"})
	if got := risk(`{"path":"new.txt","content":"x"}`); got != effect.RiskWrite {
		t.Errorf("overwrite of own file = %s, want write", got)
	}
	// Its static risk, and edit_file's, is write.
	for _, n := range []string{"write_file", "edit_file"} {
		tl, _ := e.reg.Lookup(n)
		if tl.Risk() != effect.RiskWrite || !tl.Concurrent() {
			t.Errorf("%s: risk %s concurrent %v", n, tl.Risk(), tl.Concurrent())
		}
	}
}

// A call whose context is done by the time it would commit leaves the file
// alone: the engine has already reported it as failed.
func TestWriteAbandonedCallDoesNotCommit(t *testing.T) {
	e := newEnv(t)
	e.put("a.txt", "old\n")
	before := e.snap("a.txt")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range []string{"write_file", "edit_file"} {
		tool, _ := e.reg.Lookup(name)
		args := `{"path":"a.txt","content":"new\n"}`
		if name == "edit_file" {
			args = `{"path":"a.txt","edits":[{"old_string":"old","new_string":"new"}]}`
		}
		if _, err := tool.Execute(ctx, json.RawMessage(args)); err == nil {
			t.Errorf("%s: succeeded under a done context", name)
		}
	}
	e.unchanged("a.txt", before)
}
