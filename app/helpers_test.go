package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/session"
)

// testEnv is an environment of the test's own: a data directory and a
// configuration directory (where the at-rest key goes) of its own, a
// model, and an organisation policy of its own.
type testEnv struct {
	vars map[string]string
	root string // the project
}

func newTestEnv(t testing.TB) *testEnv {
	t.Helper()
	e := &testEnv{
		vars: map[string]string{
			"MOTEUR_HOME":     t.TempDir(),
			"XDG_CONFIG_HOME": t.TempDir(),
			"MOTEUR_BASE_URL": "http://127.0.0.1:1/v1",
			"MOTEUR_MODEL":    "test-model",
			"MOTEUR_POLICY":   filepath.Join(t.TempDir(), "policy.yaml"),
		},
		root: t.TempDir(),
	}
	// A policy of no rules: never the machine's.
	e.usePolicy(t, "# no rules\n")
	return e
}

func (e *testEnv) env(k string) string { return e.vars[k] }
func (e *testEnv) home() string        { return e.vars["MOTEUR_HOME"] }

// options are Options for a session of the test's environment.
func (e *testEnv) options(id string) Options {
	return Options{ProjectRoot: e.root, Env: e.env, SessionID: id}
}

// usePolicy writes the organisation policy.
func (e *testEnv) usePolicy(t testing.TB, yaml string) {
	t.Helper()
	if err := os.WriteFile(e.vars["MOTEUR_POLICY"], []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
}

// events makes n events of session id as a run stores them: a
// SessionStarted, then user and assistant messages.
func events(id string, n int) []event.Event {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	evs := make([]event.Event, n)
	for i := range evs {
		e := event.Event{Seq: uint64(i + 1), SessionID: id, Time: at.Add(time.Duration(i) * time.Millisecond)}
		switch {
		case i == 0:
			e.Type, e.Payload = event.SessionStarted, event.SessionStartedPayload{Provider: "p", Model: "m", Tools: []string{}}
		case i%2 == 1:
			e.Type, e.Payload = event.UserMessage, event.UserMessagePayload{Text: "question"}
		default:
			e.Type, e.Payload = event.AssistantMessage, event.AssistantMessagePayload{Round: 1, Text: "answer"}
		}
		evs[i] = e
	}
	return evs
}

// store records evs as a process of this version does: each in the audit
// log, keyed with the environment's at-rest key, then all in the store
// with their heads.
func (e *testEnv) store(t *testing.T, evs []event.Event) {
	t.Helper()
	id := evs[0].SessionID
	k, err := AtRestKey(e.env, e.home(), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(AuditDir(e.home()), 0o700); err != nil {
		t.Fatal(err)
	}
	a, err := event.OpenAudit(event.AuditConfig{Path: AuditPath(e.home(), id), Key: k.Subkey(atrest.PurposeAudit), SessionID: id})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	heads := make([][]byte, len(evs))
	for i, ev := range evs {
		if err := a.Write(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
		heads[i], _ = a.Head(id, ev.Seq)
	}
	st := e.openStore(t)
	if err := st.AppendWithHeads(t.Context(), evs, heads); err != nil {
		t.Fatal(err)
	}
}

// openStore opens the environment's session store as another handle
// would; it is closed at the test's end.
func (e *testEnv) openStore(t *testing.T) session.Store {
	t.Helper()
	db, err := DatabaseOf(e.env, e.home())
	if err != nil {
		t.Fatal(err)
	}
	st, err := db.OpenStore(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// open opens a session of the environment, closed at the test's end.
func (e *testEnv) open(t *testing.T, o Options) *Session {
	t.Helper()
	s, err := Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// jsonLines is evs as the store and the transcript encode them.
func jsonLines(t *testing.T, evs []event.Event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range evs {
		d, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(d)
		b.WriteByte('\n')
	}
	return b.String()
}

// writeFile writes content at path, its directory made if needed.
func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// readFile returns the content of path, failing the test when it cannot.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// unchanged sets path's mtime an hour back and returns a check that fails
// the test if path was since replaced (another inode), written (another
// mtime) or resized.
func unchanged(t *testing.T, path string) (check func()) {
	t.Helper()
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		after, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(before, after) || !after.ModTime().Equal(old) || after.Size() != before.Size() {
			t.Errorf("%s rewritten: same file %v, mtime %v (was %v), size %d (was %d)",
				path, os.SameFile(before, after), after.ModTime(), old, after.Size(), before.Size())
		}
	}
}
