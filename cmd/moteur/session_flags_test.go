package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
	"github.com/moteur/moteur/suggest"
)

// --session, --continue and --new-session, on the real binary where the
// contract says so, and in process for the rest.

// runIn runs the moteur binary of p to its end in the project dir.
func runIn(p *procs, dir string, args ...string) result {
	p.t.Helper()
	cmd := p.command(args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &out, &errOut
	return result{code: exitCodeOf(p.t, cmd.Run()), stdout: out.String(), stderr: errOut.String()}
}

// mustRun fails the test unless res is a success.
func mustRun(t *testing.T, what string, res result) {
	t.Helper()
	if res.code != 0 {
		t.Fatalf("%s: exit %d, stderr:\n%s", what, res.code, res.stderr)
	}
}

// sessionLine is the "session: ID" line run ends its standard error with.
func sessionLine(id string) string { return "session: " + id + "\n" }

func TestUnknownSessionIsAnErrorListingTheClosestIDs(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("1"), openaitest.Answer("2"), openaitest.Answer("3"), openaitest.Answer("4"))
	p := newProcs(t, srv.BaseURL())
	for _, id := range []string{"s-alpha-1", "s-alpha-2", "s-beta", "report-2026"} {
		mustRun(t, id, p.run("run", "--new-session", id, "hello"))
	}

	res := p.run("run", "--session", "s-alpha-3", "hello")
	if res.code != 2 || !strings.Contains(res.stderr, "--session s-alpha-3: no stored session has this id; the closest stored: s-alpha-2, s-alpha-1, s-beta (") {
		t.Errorf("a mistyped id: exit %d, stderr %q; want 2 and the closest ids", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "--new-session s-alpha-3") {
		t.Errorf("stderr %q does not say how to start a session under that id", res.stderr)
	}
	res = p.run("run", "--session", "nope", "hello")
	if res.code != 2 || !strings.Contains(res.stderr, "--session nope: no stored session has this id; the closest stored: ") {
		t.Errorf("--session nope: exit %d, stderr %q; want 2 and the closest ids", res.code, res.stderr)
	}
	res = p.run("chat", "--session", "s-alpa-1")
	if res.code != 2 || !strings.Contains(res.stderr, "the closest stored: s-alpha-1, ") {
		t.Errorf("chat --session s-alpa-1: exit %d, stderr %q; want 2 and s-alpha-1 first", res.code, res.stderr)
	}
	// Nothing was sent for them, and no session was left behind.
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("the model received %d requests, want the 4 of the sessions made", n)
	}
	st := openTestStore(t, session.SQLiteConfig{Path: session.DefaultPath(p.home)})
	page, err := st.List(t.Context(), session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Sessions) != 4 {
		t.Errorf("%d sessions stored, want 4: an unknown id creates none", len(page.Sessions))
	}
}

func TestNewSessionCreatesItsIDAndRefusesAnExistingOne(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("first"), openaitest.Answer("second"))
	p := newProcs(t, srv.BaseURL())
	res := p.run("run", "--new-session", "mon-projet", "hello")
	mustRun(t, "--new-session mon-projet", res)
	if res.stdout != "first\n" || !strings.HasSuffix(res.stderr, sessionLine("mon-projet")) {
		t.Errorf("stdout %q, stderr %q; want the answer, and the session named last on stderr", res.stdout, res.stderr)
	}
	st := openTestStore(t, session.SQLiteConfig{Path: session.DefaultPath(p.home)})
	if info, err := st.Info(t.Context(), "mon-projet"); err != nil || info.ProjectRoot != p.project {
		t.Fatalf("Info(mon-projet) = %+v, %v; want the session of the project", info, err)
	}

	res = p.run("run", "--new-session", "mon-projet", "again")
	if res.code != 2 || !strings.Contains(res.stderr, "--new-session mon-projet: a session with this id exists already (continue it with --session mon-projet") {
		t.Errorf("an existing id: exit %d, stderr %q; want 2 and the refusal", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model received %d requests, want 1: the refused run sent none", n)
	}
	// The session it refused to replace is intact, and continues.
	if evs, err := st.Load(t.Context(), "mon-projet"); err != nil || countEvents(evs, event.UserMessage) != 1 {
		t.Errorf("mon-projet after the refusal: %v, %v", types(evs), err)
	}
	mustRun(t, "--session mon-projet", p.run("run", "--session", "mon-projet", "and then?"))
	if got := srv.Requests()[1].Messages; !slices.ContainsFunc(got, func(m llm.Message) bool { return m.Content == "first" }) {
		t.Errorf("the continued turn's request lacks the first answer: %+v", got)
	}
	for _, args := range [][]string{
		{"run", "--new-session", "x", "--session", "mon-projet", "hi"},
		{"run", "-c", "--session", "mon-projet", "hi"},
		{"chat", "--continue", "--new-session", "y"},
		{"ask", "-c", "--new-session", "y", "question"},
	} {
		if res := p.run(args...); res.code != 2 || !strings.Contains(res.stderr, "--session, --continue and --new-session exclude one another") {
			t.Errorf("%v: exit %d, stderr %q; want 2", args, res.code, res.stderr)
		}
	}
	if res := p.run("run", "--new-session", "../x", "hi"); res.code != 2 || !strings.Contains(res.stderr, `invalid --new-session "../x"`) {
		t.Errorf("--new-session ../x: exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestContinuePicksTheProjectsMostRecentSession(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("a1"), openaitest.Answer("a2"), openaitest.Answer("a1 again"),
		openaitest.Answer("b"), openaitest.Answer("continued"))
	p := newProcs(t, srv.BaseURL())
	other, empty := t.TempDir(), t.TempDir()
	mustRun(t, "a1", p.run("run", "--new-session", "s-a1", "first of a"))
	mustRun(t, "a2", p.run("run", "--new-session", "s-a2", "second of a"))
	// The older session of the project is the one last active…
	mustRun(t, "a1 again", p.run("run", "--session", "s-a1", "back to the first"))
	// … and another project's is the most recent of all.
	mustRun(t, "b", runIn(p, other, "run", "--new-session", "s-b", "elsewhere"))

	res := p.run("run", "-c", "and now?")
	mustRun(t, "run -c", res)
	if res.stdout != "continued\n" || !strings.HasSuffix(res.stderr, sessionLine("s-a1")) {
		t.Errorf("run -c: stdout %q, stderr %q; want session s-a1", res.stdout, res.stderr)
	}
	last := srv.Requests()[4].Messages
	if !slices.ContainsFunc(last, func(m llm.Message) bool { return m.Content == "a1 again" }) {
		t.Errorf("run -c did not send s-a1's history: %+v", last)
	}

	res = runIn(p, empty, "run", "--continue", "hi")
	if res.code != 2 || !strings.Contains(res.stderr, "--continue: no session of this project ("+empty+") is stored yet") {
		t.Errorf("--continue in a project without sessions: exit %d, stderr %q", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("the model received %d requests, want 5", n)
	}
}

func TestChatContinueAndRunSessionLine(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("one"), openaitest.Status(400, "invalid_request_error", "bad"), openaitest.Answer("two"))
	h := newHarness(t, srv.BaseURL())
	res := h.run(t, "run", "--json", "--new-session", "s-line", "hello")
	mustRun(t, "run --json", res)
	if res.stderr != sessionLine("s-line") {
		t.Errorf("stderr %q, want only the session line", res.stderr)
	}
	for _, l := range strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n") {
		if _, err := event.Decode([]byte(l)); err != nil {
			t.Errorf("--json stdout has a line that is no event: %q", l)
		}
	}
	// A failed turn names its session too.
	res = h.run(t, "run", "--session", "s-line", "fail")
	if res.code != 1 || !strings.Contains(res.stderr, sessionLine("s-line")) {
		t.Errorf("a failed run: exit %d, stderr %q; want 1 and the session line", res.code, res.stderr)
	}

	h.stdin = strings.NewReader("and the chat?\n")
	res = h.run(t, "chat", "-c")
	mustRun(t, "chat -c", res)
	if !strings.Contains(res.stderr, "session s-line") || !strings.Contains(res.stderr, "continued") || res.stdout != "two\n" {
		t.Errorf("chat -c: stdout %q, stderr %q; want session s-line continued", res.stdout, res.stderr)
	}
	if got := srv.Requests()[2].Messages; !slices.ContainsFunc(got, func(m llm.Message) bool { return m.Content == "one" }) {
		t.Errorf("chat -c did not send the session's history: %+v", got)
	}
}

func TestClosestIDs(t *testing.T) {
	ids := []string{"s-20260101T120000-aaaa", "s-20260101T120000-aaab", "s-20251231T080000-ffff", "notes", "nodes-x"}
	for _, c := range []struct {
		id   string
		want []string
	}{
		{"s-20260101T120000-aaac", []string{"s-20260101T120000-aaaa", "s-20260101T120000-aaab", "s-20251231T080000-ffff"}},
		{"s-20251231", []string{"s-20251231T080000-ffff", "s-20260101T120000-aaaa", "s-20260101T120000-aaab"}}, // typed in part
		{"note", []string{"notes", "nodes-x", "s-20260101T120000-aaaa"}},
	} {
		if got := closestIDs(c.id, ids, 3); !slices.Equal(got, c.want) {
			t.Errorf("closestIDs(%q) = %v, want %v", c.id, got, c.want)
		}
	}
	if got := closestIDs("x", nil, 3); len(got) != 0 {
		t.Errorf("closestIDs with no ids = %v", got)
	}
	if d := suggest.Distance("kitten", "sitting"); d != 3 {
		t.Errorf("suggest.Distance(kitten, sitting) = %d, want 3", d)
	}
}

func TestUnknownSessionWithNoStoreYet(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:9/v1") // never reached
	res := h.run(t, "run", "--session", "s-first", "hi")
	if res.code != 2 || !strings.Contains(res.stderr, "--session s-first: no session is stored yet (start one under this id with --new-session s-first)") {
		t.Errorf("exit %d, stderr %q", res.code, res.stderr)
	}
	res = h.run(t, "run", "-c", "hi")
	if res.code != 2 || !strings.Contains(res.stderr, "--continue: no session of this project") {
		t.Errorf("run -c: exit %d, stderr %q", res.code, res.stderr)
	}
}

func countEvents(evs []event.Event, typ event.Type) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// sessionFlag is the flag of the i-th turn of a loop of turns in one
// session under a chosen id: the first starts it, the others continue it.
func sessionFlag(i int) string {
	if i == 0 {
		return "--new-session"
	}
	return "--session"
}

func TestAskContinueFollowsTheProjectsLastSession(t *testing.T) {
	h := newKBHarness(t)
	withBase(t, h, "docs")
	mustRun(t, "ask --new-session", h.run(t, "ask", "--new-session", "s-q", congesQuestion))
	res := h.run(t, "ask", "-c", "télétravail deux jours par semaine")
	mustRun(t, "ask -c", res)
	if !strings.Contains(res.stderr, "session s-q ") {
		t.Errorf("ask -c: stderr %q, want session s-q", res.stderr)
	}
	if n := countEvents(h.load(t, "s-q"), event.UserMessage); n != 2 {
		t.Errorf("s-q has %d questions, want 2: ask -c continued it", n)
	}
}

// onlySessionLine reports that stderr is run's session line and nothing
// else.
func onlySessionLine(stderr string) bool {
	id, ok := strings.CutPrefix(stderr, "session: ")
	return ok && strings.HasSuffix(id, "\n") && !strings.ContainsAny(strings.TrimSuffix(id, "\n"), " \n")
}
