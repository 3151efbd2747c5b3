package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
	"github.com/moteur/moteur/tools/shell"
)

// writeNotes are write_file's arguments in the rewind tests.
func writeNotes(content string) string {
	b, _ := json.Marshal(map[string]string{"path": "notes.txt", "content": content})
	return string(b)
}

// points returns the rewind points of id as sessions points --json prints
// them.
func (h *harness) points(t *testing.T, id string) []checkpoint.Point {
	t.Helper()
	res := h.run(t, "sessions", "points", "--json", id)
	if res.code != 0 {
		t.Fatalf("sessions points: exit %d, stderr %q", res.code, res.stderr)
	}
	var ps []checkpoint.Point
	if err := json.Unmarshal([]byte(res.stdout), &ps); err != nil {
		t.Fatalf("sessions points --json: %v\n%s", err, res.stdout)
	}
	return ps
}

// pointOf is the seq of the point whose prompt is prompt.
func (h *harness) pointOf(t *testing.T, id, prompt string) uint64 {
	t.Helper()
	for _, p := range h.points(t, id) {
		if p.Prompt == prompt {
			return p.Seq
		}
	}
	t.Fatalf("session %s has no point %q", id, prompt)
	return 0
}

// lastUser is the last user message of a request.
func lastUser(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

func TestRewindCodeDeletesTheCreatedFileAndTellsTheModel(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "write_file", writeNotes("agent text\n")),
		openaitest.Answer("written"),
		openaitest.Answer("continued"))
	h := newHarness(t, srv.BaseURL())
	notes := filepath.Join(h.dir, "notes.txt")

	if res := h.run(t, "run", "--mode", "auto_write", "--new-session", "s-rw", "write the notes"); res.code != 0 {
		t.Fatalf("run: exit %d, stderr %q", res.code, res.stderr)
	}
	if got := readFile(t, notes); got != "agent text\n" {
		t.Fatalf("notes.txt %q: the agent did not write it", got)
	}

	res := h.run(t, "sessions", "points", "s-rw")
	if res.code != 0 {
		t.Fatalf("sessions points: exit %d, stderr %q", res.code, res.stderr)
	}
	m := regexp.MustCompile(`(?m)^SEQ  TIME +PROMPT\n +(\d+)  \S+  write the notes\n$`).FindStringSubmatch(res.stdout)
	if m == nil {
		t.Fatalf("sessions points:\n%s\nwant a header and the one point", res.stdout)
	}
	seq, _ := strconv.ParseUint(m[1], 10, 64)

	res = h.run(t, "sessions", "rewind", "s-rw", "--to", m[1], "--mode", "code", "--yes")
	if res.code != 0 {
		t.Fatalf("rewind: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(notes); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("notes.txt still there after the rewind: %v", err)
	}
	for _, want := range []string{
		"Rewind of session s-rw to seq " + m[1] + " (code)",
		"  ok        notes.txt  delete it (it did not exist at the point)\n",
		"ok  notes.txt  deleted\n",
		"with the next message the agent reads: [Moteur]",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("rewind stdout lacks %q:\n%s", want, res.stdout)
		}
	}
	evs := h.load(t, "s-rw")
	rw := payloads[event.RewoundPayload](evs)
	if len(rw) != 1 || rw[0].ToSeq != seq || rw[0].Mode != "code" ||
		!slices.Equal(rw[0].Files, []event.RewoundFile{{Path: "notes.txt", Status: "ok"}}) {
		t.Errorf("stored Rewound %+v", rw)
	}
	if n, err := h.auditRecords(t, "s-rw"); err != nil || n != len(evs) {
		t.Errorf("audit log: %d records, %v; want %d with the rewind", n, err, len(evs))
	}
	res = h.run(t, "sessions", "show", "s-rw")
	if want := "⟲ rewound to " + m[1] + " (code): notes.txt ok\n"; !strings.Contains(res.stdout, want) {
		t.Errorf("sessions show lacks %q:\n%s", want, res.stdout)
	}

	// The session goes on, and the model learns of the rewind with the
	// next message.
	if res := h.run(t, "run", "--session", "s-rw", "and now?"); res.code != 0 {
		t.Fatalf("run after the rewind: exit %d, stderr %q", res.code, res.stderr)
	}
	reqs := srv.Requests()
	user := lastUser(reqs[len(reqs)-1].Messages)
	if !strings.HasPrefix(user, "[Moteur]") || !strings.Contains(user, " "+m[1]) || !strings.HasSuffix(user, "and now?") {
		t.Errorf("first user message after the rewind %q, want the rewind's note then the prompt", user)
	}
}

func TestRewindBothTruncatesTheConversation(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Answer("first answer"),
		openaitest.Calls("call_1", "write_file", writeNotes("second\n")),
		openaitest.Answer("second answer"),
		openaitest.Answer("third answer"))
	h := newHarness(t, srv.BaseURL())
	for i, p := range []string{"first question", "second question"} {
		if res := h.run(t, "run", "--mode", "auto_write", sessionFlag(i), "s-both", p); res.code != 0 {
			t.Fatalf("run %q: exit %d, stderr %q", p, res.code, res.stderr)
		}
	}
	to := h.pointOf(t, "s-both", "second question")

	res := h.run(t, "sessions", "rewind", "s-both", "--to", strconv.FormatUint(to, 10), "--mode", "both", "--yes", "--json")
	if res.code != 0 {
		t.Fatalf("rewind: exit %d, stderr %q", res.code, res.stderr)
	}
	var out rewindJSON
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("rewind --json: %v\n%s", err, res.stdout)
	}
	if out.Session != "s-both" || out.ToSeq != to || out.Mode != "both" || out.ProjectRoot != h.dir ||
		len(out.Plan.Files) != 1 || out.Plan.Files[0].Path != "notes.txt" || out.Plan.Files[0].Status != checkpoint.StatusOK ||
		!slices.Equal(out.Result.Files, []event.RewoundFile{{Path: "notes.txt", Status: "ok"}}) ||
		out.Result.Prompt != "second question" {
		t.Errorf("rewind --json %+v", out)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "notes.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("notes.txt still there: %v", err)
	}
	// The points after the one rewound to are gone with the conversation.
	if ps := h.points(t, "s-both"); len(ps) != 2 || ps[0].Seq != to {
		t.Errorf("points after the rewind %+v", ps)
	}

	if res := h.run(t, "run", "--session", "s-both", "third question"); res.code != 0 {
		t.Fatalf("run after the rewind: exit %d, stderr %q", res.code, res.stderr)
	}
	reqs := srv.Requests()
	var got []string
	for _, m := range reqs[len(reqs)-1].Messages[1:] {
		got = append(got, string(m.Role)+": "+m.Content)
	}
	want := []string{"user: first question", "assistant: first answer", "user: third question"}
	if !slices.Equal(got, want) {
		t.Errorf("request after the rewind %q, want the rewound turn gone: %q", got, want)
	}
}

// conflicted runs a session s-conf whose agent overwrites notes.txt
// ("original") with "agent", then changes notes.txt itself ("mine"), and
// returns the point before the write.
func conflicted(t *testing.T) (h *harness, to string) {
	t.Helper()
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "write_file", writeNotes("agent\n")),
		openaitest.Answer("written"))
	h = newHarness(t, srv.BaseURL())
	notes := filepath.Join(h.dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Overwriting a file the agent did not create is destructive: asked
	// even in auto_write, unless a rule allows it.
	if res := h.run(t, "run", "--mode", "auto_write", "--allow", "write_file(notes.txt)", "--new-session", "s-conf", "rewrite the notes"); res.code != 0 {
		t.Fatalf("run: exit %d, stderr %q", res.code, res.stderr)
	}
	if got := readFile(t, notes); got != "agent\n" {
		t.Fatalf("notes.txt %q: the agent did not write it", got)
	}
	if err := os.WriteFile(notes, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return h, strconv.FormatUint(h.pointOf(t, "s-conf", "rewrite the notes"), 10)
}

func TestRewindLeavesAConflictAloneUnlessOverwritten(t *testing.T) {
	h, to := conflicted(t)
	notes := filepath.Join(h.dir, "notes.txt")

	res := h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--yes")
	if res.code != 0 {
		t.Fatalf("rewind: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{
		"  conflict  notes.txt  changed since this session last wrote it: left alone (--overwrite notes.txt would restore its content at the point)\n",
		"skipped  notes.txt  left alone: changed since this session last wrote it (--overwrite notes.txt restores it)\n",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("rewind stdout lacks %q:\n%s", want, res.stdout)
		}
	}
	if got := readFile(t, notes); got != "mine\n" {
		t.Errorf("notes.txt %q after a rewind without --overwrite, want the user's change kept", got)
	}

	res = h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--yes", "--overwrite", "./notes.txt")
	if res.code != 0 {
		t.Fatalf("rewind --overwrite: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "--overwrite: restore its content at the point\n") ||
		!strings.Contains(res.stdout, "overwritten  notes.txt  restored\n") {
		t.Errorf("rewind --overwrite stdout:\n%s", res.stdout)
	}
	if got := readFile(t, notes); got != "original\n" {
		t.Errorf("notes.txt %q after the rewind with --overwrite, want the content at the point", got)
	}

	// A path that is not in the plan is refused before anything happens.
	res = h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--yes", "--overwrite", "other.txt")
	if res.code != 2 || !strings.Contains(res.stderr, "--overwrite other.txt: not a file of this rewind") {
		t.Errorf("unknown --overwrite: exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestRewindToASeqThatIsNotAPointFails(t *testing.T) {
	h, _ := conflicted(t)
	before := len(h.load(t, "s-conf"))
	for _, to := range []string{"1", "999"} {
		res := h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--yes")
		if res.code != 1 || strings.Count(res.stderr, "\n") != 1 ||
			!strings.Contains(res.stderr, "seq "+to+" of session s-conf is not a rewind point") ||
			!strings.Contains(res.stderr, "moteur sessions points s-conf") {
			t.Errorf("--to %s: exit %d, stderr %q; want 1 and one line naming sessions points", to, res.code, res.stderr)
		}
		if res.stdout != "" {
			t.Errorf("--to %s: stdout %q", to, res.stdout)
		}
	}
	if got := readFile(t, filepath.Join(h.dir, "notes.txt")); got != "mine\n" {
		t.Errorf("notes.txt %q: a failed rewind changed it", got)
	}
	if n := len(h.load(t, "s-conf")); n != before {
		t.Errorf("%d events stored, want %d: a failed rewind recorded something", n, before)
	}
	// The lease was released.
	if _, err := h.store(t).Acquire(t.Context(), "s-conf"); err != nil {
		t.Errorf("lease still held: %v", err)
	}
}

func TestRewindAsksForConfirmation(t *testing.T) {
	h, to := conflicted(t)
	notes := filepath.Join(h.dir, "notes.txt")
	before := len(h.load(t, "s-conf"))

	// No terminal and no --yes: refused before anything is read.
	res := h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--overwrite", "notes.txt")
	if res.code != 2 || !strings.Contains(res.stderr, "pass --yes when standard input is not a terminal") {
		t.Errorf("without a terminal: exit %d, stderr %q", res.code, res.stderr)
	}
	// On a terminal, anything but yes leaves everything as it was.
	h.tty = true
	h.stdin = strings.NewReader("n\n")
	res = h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--overwrite", "notes.txt")
	if res.code != 1 || !strings.Contains(res.stderr, "Rewind? [y/N] ") || !strings.Contains(res.stderr, "not rewound: nothing changed") ||
		!strings.Contains(res.stdout, "  conflict  notes.txt") {
		t.Errorf("answered n: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if got := readFile(t, notes); got != "mine\n" {
		t.Errorf("notes.txt %q after a refused rewind", got)
	}
	if n := len(h.load(t, "s-conf")); n != before {
		t.Errorf("%d events stored, want %d: a refused rewind recorded something", n, before)
	}

	h.stdin = strings.NewReader("y\n")
	res = h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--overwrite", "notes.txt")
	if res.code != 0 {
		t.Fatalf("answered y: exit %d, stderr %q", res.code, res.stderr)
	}
	if got := readFile(t, notes); got != "original\n" {
		t.Errorf("notes.txt %q after a confirmed rewind", got)
	}
}

func TestRewindWithoutAModelConfigured(t *testing.T) {
	h, to := conflicted(t)
	for _, k := range []string{"MOTEUR_BASE_URL", "MOTEUR_MODEL", "MOTEUR_API_KEY"} {
		delete(h.env, k)
	}
	res := h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "conversation", "--yes")
	if res.code != 0 || !strings.Contains(res.stdout, "the conversation is back before: rewrite the notes\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if got := readFile(t, filepath.Join(h.dir, "notes.txt")); got != "mine\n" {
		t.Errorf("notes.txt %q: --mode conversation touched the files", got)
	}
}

func TestSessionsPointsOfAnUnknownSession(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1/v1")
	for _, args := range [][]string{
		{"sessions", "points", "s-nope"},
		{"sessions", "rewind", "s-nope", "--to", "2", "--mode", "code", "--yes"},
	} {
		if res := h.run(t, args...); res.code != 1 || res.stderr != "moteur: session s-nope not found\n" {
			t.Errorf("%v: exit %d, stderr %q", args, res.code, res.stderr)
		}
	}
	for _, args := range [][]string{
		{"sessions", "rewind", "s-nope", "--mode", "code"},
		{"sessions", "rewind", "s-nope", "--to", "2"},
		{"sessions", "rewind", "s-nope", "--to", "2", "--mode", "files", "--yes"},
	} {
		if res := h.run(t, args...); res.code != 2 {
			t.Errorf("%v: exit %d, want 2; stderr %q", args, res.code, res.stderr)
		}
	}
	if entries, _ := os.ReadDir(h.home()); len(entries) != 0 {
		t.Errorf("data directory written: %v", entries)
	}
}

// bwrapWorks skips the test unless bubblewrap can make its sandbox here.
func bwrapWorks(t *testing.T) {
	t.Helper()
	ex, err := shell.New(shell.Config{Root: t.TempDir(), Sandbox: shell.SandboxBwrap})
	if err != nil {
		t.Fatal(err)
	}
	if kind, detail := ex.Describe(); kind != "bwrap" {
		t.Skipf("no bubblewrap sandbox here: %s", detail)
	}
}

func TestRunSandboxBwrapConfinesShellCommands(t *testing.T) {
	bwrapWorks(t)
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "shell_exec", `{"command":"echo hi > /etc/moteur-sandbox-test"}`),
		openaitest.Calls("call_2", "shell_exec", `{"command":"echo ok > out.txt"}`),
		openaitest.Answer("done"))
	h := newHarness(t, srv.BaseURL())
	t.Cleanup(func() { _ = os.Remove("/etc/moteur-sandbox-test") })

	res, evs := h.runJSON(t, "--sandbox", "bwrap", "--mode", "auto_write", "run the commands")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	started := payloads[event.SessionStartedPayload](evs)
	if len(started) != 1 || started[0].Sandbox == nil || started[0].Sandbox.Kind != "bwrap" || started[0].Sandbox.Detail == "" {
		t.Errorf("SessionStarted sandbox %+v, want kind bwrap", started)
	} else if sb := started[0].Sandbox; !sb.UserNamespace || sb.Capabilities != "none" || !sb.NoNewPrivs || !slices.Contains(sb.Seccomp, "mount") {
		t.Errorf("SessionStarted sandbox %+v, want a user namespace, no capabilities, no_new_privs and a seccomp filter", sb)
	}
	results := map[string]event.ToolResultPayload{}
	for _, r := range payloads[event.ToolResultPayload](evs) {
		results[r.CallID] = r
	}
	if r := results["call_1"]; !r.IsError || !strings.Contains(r.Content, "Read-only file system") {
		t.Errorf("write to /etc: %+v, want a failure on a read-only file system", r)
	}
	if _, err := os.Stat("/etc/moteur-sandbox-test"); err == nil {
		t.Error("the sandboxed command wrote to /etc")
	}
	if r := results["call_2"]; r.IsError {
		t.Errorf("write in the project: %+v", r)
	}
	if got := readFile(t, filepath.Join(h.dir, "out.txt")); got != "ok\n" {
		t.Errorf("out.txt %q, want the command's output", got)
	}
	if !onlySessionLine(res.stderr) {
		t.Errorf("stderr %q", res.stderr)
	}
}

func TestRunSandboxNoneSaysSo(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("ok"))
	h := newHarness(t, srv.BaseURL())
	res, evs := h.runJSON(t, "--sandbox", "none", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if res.stderr != "moteur: note: shell commands run unsandboxed (--sandbox none), with your full rights\n"+sessionLine(evs[0].SessionID) {
		t.Errorf("stderr %q, want the one-line note", res.stderr)
	}
	if s := payloads[event.SessionStartedPayload](evs); len(s) != 1 || s[0].Sandbox == nil || s[0].Sandbox.Kind != "none" {
		t.Errorf("SessionStarted %+v, want sandbox kind none", s)
	}
	if res := h.run(t, "run", "--sandbox", "docker", "hi"); res.code != 2 || !strings.Contains(res.stderr, `invalid --sandbox "docker"`) {
		t.Errorf("--sandbox docker: exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestRewindRefusesASessionInUseByAnotherProcess(t *testing.T) {
	h, to := conflicted(t)
	// Another live process of this host (our parent) holds the lease.
	other := openTestStore(t, session.SQLiteConfig{Path: session.DefaultPath(h.home()), PID: os.Getppid()})
	if _, err := other.Acquire(t.Context(), "s-conf"); err != nil {
		t.Fatal(err)
	}
	res := h.run(t, "sessions", "rewind", "s-conf", "--to", to, "--mode", "code", "--yes", "--overwrite", "notes.txt")
	if res.code != 1 || !strings.Contains(res.stderr, "session s-conf is in use by another process") {
		t.Errorf("exit %d, stderr %q; want 1 and 'in use by another process'", res.code, res.stderr)
	}
	if got := readFile(t, filepath.Join(h.dir, "notes.txt")); got != "mine\n" {
		t.Errorf("notes.txt %q: rewound without the lease", got)
	}
}
