package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
	"github.com/moteur/moteur/tools"
)

// thinkingArgs are valid arguments of the thinking tool.
const thinkingArgs = `{"thought":"Plan the answer","next_thought_needed":false,"thought_number":1,"total_thoughts":1}`

// toolThenAnswer is the script of a turn with one thinking call, then an
// answer streamed in pieces after some reasoning.
func toolThenAnswer(answer ...string) []http.HandlerFunc {
	second := []string{openaitest.Reasoning("secret musing")}
	for _, a := range answer {
		second = append(second, openaitest.Text(a))
	}
	second = append(second, openaitest.Chunk(`{}`, "stop"), openaitest.Done)
	return []http.HandlerFunc{openaitest.Calls("call_1", "thinking", thinkingArgs), openaitest.Stream(second...)}
}

// envMap turns a map into the env function execute takes.
func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// harness runs the real command tree in process.
type harness struct {
	env   map[string]string
	dir   string // project root
	stdin io.Reader
	// interrupts, when set, stands for Ctrl-C: what is sent on it reaches
	// the command as a SIGINT would.
	interrupts chan os.Signal
	// tty makes stdin a terminal for the command.
	tty bool
	// tools are added to the built-in tools of every session.
	tools []func() tools.Tool
}

func newHarness(t *testing.T, baseURL string) *harness {
	t.Helper()
	return &harness{
		env: map[string]string{
			"MOTEUR_BASE_URL": baseURL,
			"MOTEUR_MODEL":    "test-model",
			"MOTEUR_API_KEY":  "sk-moteur",
			"MOTEUR_HOME":     t.TempDir(),
			// The at-rest key's directory (app.AtRestKey): outside MOTEUR_HOME,
			// and never the real user's.
			"XDG_CONFIG_HOME": t.TempDir(),
			// The tests read the English texts; French runs set fr.
			"MOTEUR_LANG": "en",
		},
		dir:   t.TempDir(),
		stdin: strings.NewReader(""),
	}
}

type result struct {
	code           int
	stdout, stderr string
}

func (h *harness) run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut strings.Builder
	c := newCLI(envMap(h.env), h.stdin, &out, &errOut)
	c.workDir = func() (string, error) { return h.dir, nil }
	c.stdinTTY = h.tty
	c.tools = append(c.tools, h.tools...)
	if h.interrupts != nil {
		c.interrupts = func() (<-chan os.Signal, func()) { return h.interrupts, func() {} }
	}
	code := c.execute(t.Context(), args)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

func (h *harness) home() string { return h.env["MOTEUR_HOME"] }

// store opens the harness's session store as another handle would; it is
// closed at the test's end.
func (h *harness) store(t *testing.T) *session.SQLite {
	t.Helper()
	return openTestStore(t, session.SQLiteConfig{Path: session.DefaultPath(h.home())})
}

func openTestStore(t *testing.T, cfg session.SQLiteConfig) *session.SQLite {
	t.Helper()
	st, err := session.OpenSQLite(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// load returns the stored events of session id.
func (h *harness) load(t *testing.T, id string) []event.Event {
	t.Helper()
	evs, err := h.store(t).Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// checkSeqs fails unless evs are numbered 1, 2, 3… without gaps.
func checkSeqs(t *testing.T, evs []event.Event) {
	t.Helper()
	for i, e := range evs {
		if e.Seq != uint64(i+1) {
			t.Fatalf("stored seqs have a gap or disorder: event %d has seq %d", i, e.Seq)
		}
	}
}

// types lists the types of evs.
func types(evs []event.Event) []event.Type {
	out := make([]event.Type, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
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

// readFile returns the content of path, failing the test when it cannot.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (h *harness) auditFile(id string) string { return filepath.Join(h.home(), "audit", id+".jsonl") }
func (h *harness) transcriptFile(id string) string {
	return filepath.Join(h.home(), "transcripts", id+".jsonl")
}

// onTerminal is the CLI as a person at a terminal runs it: stdin is a pipe
// the test types into (w), stdin counts as a terminal, Ctrl-C comes from
// intr, and stderr can be waited on.
type onTerminal struct {
	c      *cli
	w      *os.File
	out    *strings.Builder
	errOut *watchedWriter
}

func (h *harness) onTerminal(t *testing.T, intr chan os.Signal) *onTerminal {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	term := &onTerminal{w: w, out: &strings.Builder{}, errOut: &watchedWriter{}}
	term.c = newCLI(envMap(h.env), r, term.out, term.errOut)
	term.c.workDir = func() (string, error) { return h.dir, nil }
	term.c.stdinTTY = true
	term.c.tools = append(term.c.tools, h.tools...)
	if intr == nil {
		intr = make(chan os.Signal)
	}
	term.c.interrupts = func() (<-chan os.Signal, func()) { return intr, func() {} }
	return term
}
