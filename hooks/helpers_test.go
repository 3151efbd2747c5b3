package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// project is a test's project directory with its hook scripts.
type project struct {
	t    *testing.T
	root string
}

func newProject(t *testing.T) *project {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &project{t: t, root: root}
}

// script writes an executable bash script under .moteur/hooks and returns
// the command that runs it, as a user would write it.
func (p *project) script(name, body string) string {
	p.t.Helper()
	dir := filepath.Join(p.root, ".moteur", "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/usr/bin/env bash\n"+body), 0o755); err != nil {
		p.t.Fatal(err)
	}
	return `"$CLAUDE_PROJECT_DIR"/.moteur/hooks/` + name
}

// set builds a Set from one user file's hooks and fails on any report.
func (p *project) set(events map[string][]Group) *Set {
	p.t.Helper()
	s, errs := New(Config{Sources: []Source{{File: "/home/u/.config/moteur/config.yaml", Events: events}}, ProjectDir: p.root})
	if len(errs) != 0 {
		p.t.Fatalf("New: %v", errs)
	}
	return s
}

func (p *project) input(ev Event) Input {
	return Input{Event: ev, SessionID: "s-1", TranscriptPath: filepath.Join(p.root, "t.jsonl"), CWD: p.root}
}

func one(matcher string, cmds ...string) []Group {
	g := Group{Matcher: matcher}
	for _, c := range cmds {
		g.Hooks = append(g.Hooks, Command{Type: "command", Command: c})
	}
	return []Group{g}
}

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu        sync.Mutex
	started   []Hook
	completed []Result
	hooks     []Hook
}

func (r *recorder) Started(_ Event, h Hook) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, h)
}

func (r *recorder) Completed(_ Event, h Hook, res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.completed = append(r.completed, res)
	r.hooks = append(r.hooks, h)
}

// only returns the single Result, failing when there is not exactly one
// start and one completion.
func (r *recorder) only(t *testing.T) Result {
	t.Helper()
	if len(r.started) != 1 || len(r.completed) != 1 {
		t.Fatalf("observer told of %d starts and %d completions, want 1 and 1", len(r.started), len(r.completed))
	}
	return r.completed[0]
}

func run(t *testing.T, s *Set, in Input) (Outcome, *recorder) {
	t.Helper()
	rec := &recorder{}
	return s.Run(context.Background(), in, rec), rec
}

func raw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sameJSON compares two JSON texts by value.
func sameJSON(t *testing.T, got, want json.RawMessage) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got %s: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want %s: %v", want, err)
	}
	gs, _ := json.Marshal(g)
	ws, _ := json.Marshal(w)
	if string(gs) != string(ws) {
		t.Fatalf("got %s, want %s", gs, ws)
	}
}

func isZero(o Outcome) bool {
	return o.UpdatedInput == nil && o.Block == false && o.Reason == "" && o.Context == "" && o.Decision == "" && !o.Stop && o.StopReason == ""
}
