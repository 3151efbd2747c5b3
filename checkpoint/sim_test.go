package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/moteur/moteur/effect"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
)

// sim plays a session against real files: it writes and deletes files as a
// file tool would (saving the content replaced in the Store), emits the
// events the engine would, and feeds them to a live State.
type sim struct {
	t      testing.TB
	id     string
	root   string
	store  *Store
	seq    *uint64 // shared by the sessions of one test: their events interleave in time
	events []event.Event
	live   State
}

func newSim(t testing.TB, root string, store *Store) *sim {
	var seq uint64
	return &sim{t: t, id: "s-" + t.Name(), root: root, store: store, seq: &seq}
}

// other returns another session on the same root and store.
func (s *sim) other(id string) *sim {
	return &sim{t: s.t, id: id, root: s.root, store: s.store, seq: s.seq}
}

func (s *sim) emit(typ event.Type, parent string, p any) uint64 {
	*s.seq++
	e := event.Event{Seq: *s.seq, Type: typ, SessionID: s.id, ParentCallID: parent,
		Time: time.Date(2025, 3, 1, 10, 0, int(*s.seq), 0, time.UTC), Payload: p}
	s.events = append(s.events, e)
	s.live.Apply(e)
	return e.Seq
}

func (s *sim) user(text string) uint64 {
	return s.emit(event.UserMessage, "", event.UserMessagePayload{Text: text})
}

// change does what a file tool does: save the old content, then write
// (content non-nil) or delete (nil).
func (s *sim) change(rel string, content []byte) effect.Change {
	s.t.Helper()
	p := filepath.Join(s.root, filepath.FromSlash(rel))
	c := effect.Change{Path: rel}
	if old, err := os.ReadFile(p); err == nil {
		id, err := s.store.Put(context.Background(), old)
		if err != nil {
			s.t.Fatal(err)
		}
		c.Before = id
	} else if !errors.Is(err, fs.ErrNotExist) {
		s.t.Fatal(err)
	}
	if content == nil {
		if err := os.Remove(p); err != nil {
			s.t.Fatal(err)
		}
		return c
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, content, 0o644); err != nil {
		s.t.Fatal(err)
	}
	c.After = HashOf(content)
	return c
}

func (s *sim) write(callID, rel, content string) uint64 {
	c := s.change(rel, []byte(content))
	return s.emit(event.ToolResult, "", event.ToolResultPayload{CallID: callID, Name: "write_file",
		Content: "ok", Changes: []effect.Change{c}})
}

func (s *sim) remove(callID, rel string) uint64 {
	c := s.change(rel, nil)
	return s.emit(event.ToolResult, "", event.ToolResultPayload{CallID: callID, Name: "delete_file",
		Content: "ok", Changes: []effect.Change{c}})
}

func (s *sim) shell(callID string) uint64 {
	return s.emit(event.ToolResult, "", event.ToolResultPayload{CallID: callID, Name: "shell",
		Content: "done", NotUndoable: true})
}

// plan plans on the live state.
func (s *sim) plan(toSeq uint64) Plan {
	s.t.Helper()
	p, err := s.live.Plan(s.root, toSeq)
	if err != nil {
		s.t.Fatal(err)
	}
	return p
}

// rewind carries out plan as shown, and records the Rewound event.
func (s *sim) rewind(p Plan, mode string, overwrite ...string) []event.RewoundFile {
	s.t.Helper()
	res := Apply(context.Background(), s.root, s.store, p, p, overwrite)
	s.emit(event.Rewound, "", event.RewoundPayload{ToSeq: p.ToSeq, Mode: mode, Files: res})
	return res
}

// rebuilt is a State fed with the session's events after a trip through
// their JSON form, as Restore reads them from a log.
func (s *sim) rebuilt() *State {
	s.t.Helper()
	var st State
	for _, e := range s.events {
		b, err := json.Marshal(e)
		if err != nil {
			s.t.Fatal(err)
		}
		d, err := event.Decode(b)
		if err != nil {
			s.t.Fatal(err)
		}
		st.Apply(d)
	}
	return &st
}

func (s *sim) put(rel, content string) {
	s.t.Helper()
	p := filepath.Join(s.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *sim) read(rel string) (string, bool) {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b), true
}

func (s *sim) wantFile(rel, content string) {
	s.t.Helper()
	if got, ok := s.read(rel); !ok || got != content {
		s.t.Errorf("%s = %q (exists %v), want %q", rel, got, ok, content)
	}
}

func (s *sim) wantAbsent(rel string) {
	s.t.Helper()
	if got, ok := s.read(rel); ok {
		s.t.Errorf("%s exists (%q), want it absent", rel, got)
	}
}

// toolResult is a result whose changes name paths without touching them.
func toolResult(callID string, paths ...string) event.ToolResultPayload {
	p := event.ToolResultPayload{CallID: callID, Name: "write_file"}
	for _, path := range paths {
		p.Changes = append(p.Changes, effect.Change{Path: path, After: HashOf([]byte(path))})
	}
	return p
}
