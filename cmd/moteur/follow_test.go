package main

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/moteur/moteur/llm"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// In-process tests of following and answering; the real processes are in
// multiproc_test.go.

// started runs args in the background in a CLI of h's whose standard
// streams can be waited on; the exit status comes on the channel.
func (h *harness) started(t *testing.T, args ...string) (stdout, stderr *watchedWriter, code <-chan int) {
	t.Helper()
	stdout, stderr = &watchedWriter{}, &watchedWriter{}
	c := newCLI(envMap(h.env), strings.NewReader(""), stdout, stderr)
	c.workDir = func() (string, error) { return h.dir, nil }
	c.tools = append(c.tools, h.tools...)
	if h.interrupts != nil {
		c.interrupts = func() (<-chan os.Signal, func()) { return h.interrupts, func() {} }
	}
	done := make(chan int, 1)
	go func() { done <- c.execute(t.Context(), args) }()
	return stdout, stderr, done
}

func TestFollowRendersTheNextTurnAsRunDoes(t *testing.T) {
	srv := openaitest.NewServer(t, append([]http.HandlerFunc{openaitest.Answer("first answer")}, toolThenAnswer("second ", "answer")...)...)
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-f", "first question"); res.code != 0 {
		t.Fatalf("run: exit %d, stderr %q", res.code, res.stderr)
	}
	out, errOut, code := h.started(t, "sessions", "follow", "s-f", "--until-turn-end")
	// The stored turn is shown, and the follower does not stop at its end:
	// that turn had ended when the follow began.
	out.waitFor("first answer\n", 1)
	if res := h.run(t, "run", "--session", "s-f", "second question"); res.code != 0 {
		t.Fatalf("second run: exit %d, stderr %q", res.code, res.stderr)
	}
	if c := <-code; c != 0 {
		t.Fatalf("follow: exit %d, stderr %q", c, errOut.String())
	}
	want := "› first question\nfirst answer\n› second question\n→ thinking " + oneLine(thinkingArgs, argsPreview) +
		"\n✓ thinking ("
	if got := out.String(); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "ms)\nsecond answer\n") {
		t.Errorf("follow printed %q, want %q… then the answer", got, want)
	}
	if errOut.String() != "" {
		t.Errorf("stderr %q", errOut.String())
	}
}

func TestFollowEndsOnCtrlC(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("the answer"))
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-c", "hi"); res.code != 0 {
		t.Fatalf("run: exit %d, stderr %q", res.code, res.stderr)
	}
	h.interrupts = make(chan os.Signal, 1)
	out, errOut, code := h.started(t, "sessions", "follow", "--json", "--after", "2", "s-c")
	out.waitFor(`"type":"TurnCompleted"`, 1)
	h.interrupts <- os.Interrupt
	if c := <-code; c != 0 || errOut.String() != "" {
		t.Fatalf("follow: exit %d, stderr %q; want 0 and nothing", c, errOut.String())
	}
	// Seq 3 on: the answer and the turn's end.
	evs := decodeLines(t, []byte(out.String()))
	if len(evs) != 2 || evs[0].Seq != 3 || evs[1].Type != event.TurnCompleted {
		t.Errorf("followed %v, want the events after seq 2", typesOf(evs))
	}
}

func TestFollowTextNotesALaggedFollowerAndHowToAnswer(t *testing.T) {
	var out, errOut strings.Builder
	v := &followText{r: newRenderer(&out, &errOut, false, false), begun: 4, waiting: map[string]bool{"s/1": true}}
	for _, ev := range []event.Event{
		{Seq: 3, Type: event.PermissionRequested, Payload: event.PermissionRequestedPayload{ID: "s/1", Number: 1, Tool: "write_file", Summary: "write_file: a", Risk: "write"}},
		{Seq: 4, Type: event.PermissionRequested, Payload: event.PermissionRequestedPayload{ID: "s/0", Number: 0, Tool: "write_file", Summary: "write_file: old", Risk: "write"}},
		{Type: event.Warning, Ephemeral: true, Payload: event.WarningPayload{Kind: "follower_lagged", Message: "this follower fell behind after seq 4"}},
		{Seq: 5, Type: event.PermissionResolved, Payload: event.PermissionResolvedPayload{ID: "s/1", Allow: true, By: "user"}},
		{Type: event.Error, Ephemeral: true, Payload: event.ErrorPayload{Kind: "follow", Message: "said by the command"}},
	} {
		if err := v.event(ev); err != nil {
			t.Fatal(err)
		}
	}
	want := "moteur: permission needed (risk write): write_file: a\n" +
		"moteur: answer with moteur sessions approve s 1, or moteur sessions deny s 1 --reason TEXT\n" +
		"moteur: permission needed (risk write): write_file: old\n" +
		"moteur: note: this follower fell behind after seq 4\n" +
		"moteur: permission request s/1: allowed\n"
	if errOut.String() != want || out.String() != "" {
		t.Errorf("stderr %q, stdout %q; want %q", errOut.String(), out.String(), want)
	}
}

func TestPendingAndAnswersUsage(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1/v1")
	for _, c := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		// No store yet: nothing waits.
		{[]string{"sessions", "pending", "--json"}, 0, "[]\n", ""},
		{[]string{"sessions", "pending"}, 0, "", "no pending permission requests\n"},
		{[]string{"sessions", "pending", "--session", "s-none"}, 1, "", "moteur: session s-none not found\n"},
		{[]string{"sessions", "approve", "s-none", "1"}, 1, "", "moteur: session s-none not found\n"},
		{[]string{"sessions", "follow", "s-none"}, 1, "", "moteur: session s-none not found\n"},
		{[]string{"sessions", "approve", "s-x", "x"}, 2, "",
			"moteur: invalid PERMISSION \"x\": want the request's number (3) or its id (s-x/3), as moteur sessions pending lists them\nRun 'moteur sessions approve --help' for usage.\n"},
		{[]string{"sessions", "deny", "s-x", "s-y/1"}, 2, "",
			"moteur: permission request s-y/1 is not one of session s-x\nRun 'moteur sessions deny --help' for usage.\n"},
		{[]string{"sessions", "approve", "s-x", "0"}, 2, "",
			"moteur: invalid PERMISSION \"0\": want the request's number (3) or its id (s-x/3), as moteur sessions pending lists them\nRun 'moteur sessions approve --help' for usage.\n"},
	} {
		res := h.run(t, c.args...)
		if res.code != c.code || res.stdout != c.stdout || res.stderr != c.stderr {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", c.args, res.code, res.stdout, res.stderr, c.code, c.stdout, c.stderr)
		}
	}
	noStore(t, h.home())
}

func TestApproveRefusesWhatARequestCannotTake(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Calls("call_1", "test_write", writeArgs), openaitest.Answer("done"))
	h := newHarness(t, srv.BaseURL())
	ran := h.withWriteTool(t)
	_, errOut, code := h.started(t, "run", "--wait-approvals", "--mode", "confirm", "--new-session", "s-net", "write it")
	errOut.waitFor("moteur sessions approve s-net 1", 1)

	res := h.run(t, "sessions", "approve", "s-net", "2")
	if want := "moteur: session s-net has no permission request 2 (moteur sessions pending --session s-net lists those waiting)\n"; res.code != 1 || res.stderr != want {
		t.Errorf("approve an unknown request: exit %d, stderr %q; want 1 and %q", res.code, res.stderr, want)
	}
	res = h.run(t, "sessions", "approve", "--network", "s-net", "1")
	if res.code != 1 || !strings.HasPrefix(res.stderr, "moteur: session s-net: permission request 1 (test_write: notes.txt): --network is only for a shell command run in the sandbox") ||
		strings.Count(res.stderr, "\n") != 1 {
		t.Errorf("approve --network: exit %d, stderr %q", res.code, res.stderr)
	}
	if ran.Load() != 0 {
		t.Fatal("the call ran before it was approved")
	}
	if res := h.run(t, "sessions", "approve", "--remember", "s-net", "1"); res.code != 0 ||
		res.stdout != "permission request s-net/1 (test_write: notes.txt): allowed, and for the rest of the session\n" {
		t.Fatalf("approve: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if c := <-code; c != 0 {
		t.Fatalf("run: exit %d, stderr %q", c, errOut.String())
	}
	if ran.Load() != 1 {
		t.Errorf("test_write ran %d times, want 1", ran.Load())
	}
	want := "moteur: permission needed (risk write): test_write: notes.txt\n" +
		"moteur: waiting up to 10 min for an answer: moteur sessions approve s-net 1, or moteur sessions deny s-net 1 --reason TEXT\n" +
		"moteur: permission request s-net/1 answered: allowed, and for the rest of the session\n" +
		"session: s-net\n"
	if got := errOut.String(); got != want {
		t.Errorf("run's stderr %q, want %q", got, want)
	}
}

func TestTerminalQuestionAnsweredFromAnotherProcess(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Calls("call_1", "test_write", writeArgs), openaitest.Answer("done"))
	h := newHarness(t, srv.BaseURL())
	ran := h.withWriteTool(t)
	term := h.onTerminal(t, nil) // the user types nothing
	go func() {
		term.errOut.waitFor("Allow?", 1)
		if res := h.run(t, "sessions", "approve", "s-elsewhere", "1"); res.code != 0 {
			t.Errorf("approve: exit %d, stderr %q", res.code, res.stderr)
		}
	}()
	// --wait-approvals changes nothing on a terminal: the question is asked.
	code := term.c.execute(t.Context(), []string{"run", "--wait-approvals", "--mode", "confirm", "--new-session", "s-elsewhere", "write it"})
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, term.errOut.String())
	}
	if ran.Load() != 1 {
		t.Errorf("test_write ran %d times, want 1", ran.Load())
	}
	got := term.errOut.String()
	if !strings.Contains(got, askQuestion) || strings.Contains(got, "waiting up to") ||
		!strings.HasSuffix(got, "\nmoteur: permission request s-elsewhere/1 was answered elsewhere: allowed\nsession: s-elsewhere\n") {
		t.Errorf("stderr %q, want the question, withdrawn with a note", got)
	}
	// The question no longer reads the terminal: what is typed next is
	// nobody's answer.
	term.w.WriteString("y\n")
	term.w.Close()
	if p := payloads[event.PermissionResolvedPayload](h.load(t, "s-elsewhere")); len(p) != 1 || !p[0].Allow || p[0].By != "user" {
		t.Errorf("resolved %+v", p)
	}
}

// TestApprovalTimeoutFlag: a request nobody answers is refused once
// --approval-timeout has passed, the hint says how long it waits, and the
// call does not run.
func TestApprovalTimeoutFlag(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Calls("call_1", "test_write", writeArgs), openaitest.Answer("not written"))
	h := newHarness(t, srv.BaseURL())
	ran := h.withWriteTool(t)
	_, errOut, code := h.started(t, "run", "--wait-approvals", "--approval-timeout", "200ms", "--mode", "confirm", "--new-session", "s-late", "write it")
	errOut.waitFor("moteur sessions approve s-late 1", 1)
	if c := <-code; c != 0 {
		t.Fatalf("run: exit %d, stderr %q", c, errOut.String())
	}
	if !strings.Contains(errOut.String(), "200ms") {
		t.Errorf("the hint does not say how long the request waits: %q", errOut.String())
	}
	if ran.Load() != 0 {
		t.Fatalf("test_write ran %d times after the timeout", ran.Load())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(lastToolContent(reqs[1].Messages), "did not answer") {
		t.Fatalf("the model was not told the request timed out: %d requests", len(reqs))
	}
}

func lastToolContent(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleTool {
			return msgs[i].Content
		}
	}
	return ""
}
