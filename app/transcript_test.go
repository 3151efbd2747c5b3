package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
)

// countingStore is a store of one session's events that counts the events
// it hands out: each is one the transcript's catch-up may encode.
type countingStore struct {
	evs    []event.Event
	loaded int
}

func (s *countingStore) LoadFrom(_ context.Context, id string, after uint64) ([]event.Event, error) {
	if len(s.evs) == 0 || s.evs[0].SessionID != id {
		return nil, session.ErrNotFound
	}
	out := s.evs[min(after, uint64(len(s.evs))):]
	s.loaded += len(out)
	return out, nil
}

func TestTranscriptCatchUp(t *testing.T) {
	const id = "s-tr"
	evs := events(id, 8)
	full := jsonLines(t, evs)
	for _, tc := range []struct {
		name string
		// before is the transcript's content; "-" for none.
		before string
		// loaded is how many events the catch-up may read and encode.
		loaded int
		// rebuilt: the transcript is rebuilt, with a warning saying why.
		rebuilt string
	}{
		{name: "up to date", before: full, loaded: 0},
		{name: "behind", before: jsonLines(t, evs[:5]), loaded: 3},
		{name: "empty", before: "", loaded: 8},
		{name: "missing", before: "-", loaded: 8},
		{name: "torn tail", before: full[:len(full)-20], loaded: 1},
		{name: "torn first line", before: full[:20], loaded: 8},
		{name: "foreign", before: jsonLines(t, events("s-other", 3)), loaded: 8, rebuilt: `an event of session "s-other"`},
		{name: "garbage", before: jsonLines(t, evs[:3]) + "not an event\n", loaded: 8, rebuilt: "not an event"},
		{name: "ahead", before: jsonLines(t, events(id, 10)), loaded: 8, rebuilt: "ends at seq 10, and the store at seq 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "transcripts", id+".jsonl")
			if tc.before != "-" {
				writeFile(t, path, tc.before)
			}
			st := &countingStore{evs: evs}
			warning, err := catchUpTranscript(t.Context(), path, id, uint64(len(evs)), st, i18n.EN)
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, path); got != full {
				t.Errorf("transcript:\n%s\nwant the stored events:\n%s", got, full)
			}
			if st.loaded != tc.loaded {
				t.Errorf("%d events read from the store, want %d", st.loaded, tc.loaded)
			}
			switch {
			case tc.rebuilt == "" && warning != "":
				t.Errorf("warning %q for a transcript that was caught up", warning)
			case tc.rebuilt != "" && (!strings.Contains(warning, tc.rebuilt) || !strings.Contains(warning, path)):
				t.Errorf("warning %q, want one naming %s and saying %q", warning, path, tc.rebuilt)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("transcript mode %v, %v; want 0600", fi.Mode().Perm(), err)
			}
			if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("transcripts directory mode %v, %v; want 0700", fi.Mode().Perm(), err)
			}
		})
	}
}

func TestTranscriptOfANewSessionIsLeftToTheSink(t *testing.T) {
	path := filepath.Join(t.TempDir(), "transcripts", "s-new.jsonl")
	warning, err := catchUpTranscript(t.Context(), path, "s-new", 0, &countingStore{}, i18n.EN)
	if err != nil || warning != "" {
		t.Fatalf("%q, %v", warning, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("transcript of a session with no event created: %v", err)
	}
}

// TestAnUpToDateTranscriptIsNotRewritten: continuing a long session reads
// the transcript's last line and nothing of the past. Rewriting the file, or
// encoding the stored events to compare them with it, as an earlier
// version did at every start, shows as a changed inode or mtime, or as
// events read from the store.
func TestAnUpToDateTranscriptIsNotRewritten(t *testing.T) {
	const id, n = "s-long", 10000
	evs := events(id, n)
	path := filepath.Join(t.TempDir(), "transcripts", id+".jsonl")
	writeFile(t, path, jsonLines(t, evs))
	check := unchanged(t, path)
	st := &countingStore{evs: evs}
	if _, err := catchUpTranscript(t.Context(), path, id, n, st, i18n.EN); err != nil {
		t.Fatal(err)
	}
	check()
	if st.loaded != 0 {
		t.Errorf("%d stored events read to catch up a transcript that was up to date", st.loaded)
	}
}
