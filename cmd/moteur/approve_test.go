package main

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// Approvals: asked on the terminal when there is one, refused at once with
// a hint when there is none.

const askQuestion = "Allow? [y]es / [n]o / [a]lways for this session"

func TestRunWithoutTerminalRefusesAtOnceWithTheHint(t *testing.T) {
	// Two rounds that each call test_write: both are refused, the hint is
	// printed once, and the turn completes.
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "test_write", writeArgs),
		openaitest.Calls("call_2", "test_write", `{"path":"other.txt"}`),
		openaitest.Answer("done"))
	h := newHarness(t, srv.BaseURL())
	ran := h.withWriteTool(t)

	res := h.run(t, "run", "--mode", "confirm", "--new-session", "s-noterm", "write it")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if ran.Load() != 0 {
		t.Error("test_write ran without an answer")
	}
	hint := "no terminal to ask: allow it with --allow 'test_write(PATTERN)' or --mode auto_write"
	if strings.Count(res.stderr, hint) != 1 || strings.Contains(res.stderr, "Allow?") {
		t.Errorf("stderr %q, want the hint once and no question", res.stderr)
	}
	if !strings.Contains(res.stderr, "moteur: permission needed (risk write): test_write: notes.txt\n") {
		t.Errorf("stderr %q, want the request shown", res.stderr)
	}
	if !strings.HasSuffix(res.stdout, "done\n") || !strings.Contains(res.stdout, "✗ test_write: ") {
		t.Errorf("stdout %q, want the refused calls and the answer", res.stdout)
	}
	var refusals int
	for _, r := range payloads[event.ToolResultPayload](h.load(t, "s-noterm")) {
		if r.IsError && strings.Contains(r.Content, hint) {
			refusals++
		}
	}
	if refusals != 2 {
		t.Errorf("%d tool results carry the refusal's reason, want 2", refusals)
	}
	for _, p := range payloads[event.PermissionResolvedPayload](h.load(t, "s-noterm")) {
		if p.Allow || p.By != "user" || p.Reason != hint {
			t.Errorf("resolved %+v, want refused at once with the hint", p)
		}
	}
}

func TestRunJSONWithoutTerminalKeepsStdoutForEvents(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Calls("call_1", "test_write", writeArgs), openaitest.Answer("done"))
	h := newHarness(t, srv.BaseURL())
	h.withWriteTool(t)

	res, evs := h.runJSON(t, "--mode", "confirm", "write it")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if len(payloads[event.PermissionRequestedPayload](evs)) != 1 || len(payloads[event.PermissionResolvedPayload](evs)) != 1 {
		t.Errorf("stdout lacks the request and its resolution:\n%s", res.stdout)
	}
	if !strings.HasPrefix(res.stderr, "moteur: test_write refused: no terminal to ask") || strings.Count(res.stderr, "\n") != 2 ||
		!strings.HasSuffix(res.stderr, "\nsession: "+evs[0].SessionID+"\n") {
		t.Errorf("stderr %q, want the hint alone, then the session line", res.stderr)
	}
}

// callRounds are n replies that each call test_write with writeArgs.
func callRounds(n int) []http.HandlerFunc {
	var out []http.HandlerFunc
	for i := range n {
		out = append(out, openaitest.Calls(fmt.Sprintf("call_%d", i+1), "test_write", writeArgs))
	}
	return out
}

// askOnTerminal runs one turn whose model calls test_write in each of
// rounds (same arguments every time), with a terminal on which the user
// types typed.
func askOnTerminal(t *testing.T, rounds int, typed string, args ...string) (result, []event.Event, int32) {
	t.Helper()
	srv := openaitest.NewServer(t, append(callRounds(rounds), openaitest.Answer("done"))...)
	h := newHarness(t, srv.BaseURL())
	ran := h.withWriteTool(t)
	h.tty = true
	h.stdin = strings.NewReader(typed)
	res, evs := h.runJSON(t, append([]string{"--mode", "confirm"}, args...)...)
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	return res, evs, ran.Load()
}

func TestRunOnTerminalYesRunsTheCall(t *testing.T) {
	res, evs, ran := askOnTerminal(t, 1, "y\n", "write it")
	if ran != 1 {
		t.Errorf("test_write ran %d times, want 1", ran)
	}
	if r := payloads[event.ToolResultPayload](evs); len(r) != 1 || r[0].IsError || r[0].Content != "written" {
		t.Errorf("tool results %+v", r)
	}
	// In --json mode the question says what it is about, on stderr.
	want := "moteur: permission needed (risk write): test_write: notes.txt\n" + askQuestion
	if !strings.HasPrefix(res.stderr, want) || strings.Contains(res.stdout, "Allow?") {
		t.Errorf("stderr %q, want the request then the question (none on stdout)", res.stderr)
	}
}

func TestRunOnTerminalNoWithAReasonRefuses(t *testing.T) {
	_, evs, ran := askOnTerminal(t, 1, "what?\nn because not now\n", "write it")
	if ran != 0 {
		t.Errorf("test_write ran %d times, want 0", ran)
	}
	r := payloads[event.ToolResultPayload](evs)
	if len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Content, "Reason: because not now") {
		t.Errorf("tool results %+v, want the refusal with the user's reason", r)
	}
	if p := payloads[event.PermissionResolvedPayload](evs); len(p) != 1 || p[0].Allow || p[0].Reason != "because not now" {
		t.Errorf("resolved %+v", p)
	}
}

func TestRunOnTerminalAlwaysIsNotAskedAgain(t *testing.T) {
	// One answer typed: a second question would find the input closed and
	// be refused.
	_, evs, ran := askOnTerminal(t, 2, "a\n", "write it twice")
	if ran != 2 {
		t.Errorf("test_write ran %d times, want 2", ran)
	}
	if n := len(payloads[event.PermissionRequestedPayload](evs)); n != 1 {
		t.Errorf("%d requests, want 1: the second identical call is remembered", n)
	}
	if p := payloads[event.PermissionResolvedPayload](evs); len(p) != 1 || !p[0].Allow || !p[0].Remember {
		t.Errorf("resolved %+v, want allowed and remembered", p)
	}
}

func TestRunOnTerminalClosedInputRefuses(t *testing.T) {
	_, evs, ran := askOnTerminal(t, 1, "", "write it")
	if ran != 0 {
		t.Errorf("test_write ran %d times, want 0", ran)
	}
	if p := payloads[event.PermissionResolvedPayload](evs); len(p) != 1 || p[0].Allow {
		t.Errorf("resolved %+v, want refused", p)
	}
}

func TestRunCtrlCWhileAskedWithdrawsTheQuestion(t *testing.T) {
	// The turn, cancelled, ends at once: the model is asked nothing more.
	srv := openaitest.NewServer(t, append(callRounds(1), openaitest.Answer("never asked"))...)
	h := newHarness(t, srv.BaseURL())
	ran := h.withWriteTool(t)
	intr := make(chan os.Signal, 1)
	term := h.onTerminal(t, intr) // the user types nothing
	c, errOut := term.c, term.errOut
	go func() {
		errOut.waitFor("Allow?", 1)
		intr <- os.Interrupt
	}()

	code := c.execute(t.Context(), []string{"run", "--mode", "confirm", "--new-session", "s-askint", "write it"})
	if code != exitInterrupted || !strings.Contains(errOut.String(), "interrupted") || !strings.Contains(errOut.String(), "session: s-askint\n") {
		t.Fatalf("exit %d, stderr %q; want 130, interrupted and the session", code, errOut.String())
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1: none after Ctrl-C", n)
	}
	if ran.Load() != 0 {
		t.Error("test_write ran")
	}
	p := payloads[event.PermissionResolvedPayload](h.load(t, "s-askint"))
	if len(p) != 1 || p[0].Allow || p[0].By != "cancelled" {
		t.Errorf("resolved %+v, want refused by the cancellation", p)
	}
}

func TestChatAsksOnTheTerminalBetweenPrompts(t *testing.T) {
	srv := openaitest.NewServer(t, append(callRounds(1), openaitest.Answer("done"), openaitest.Answer("second"))...)
	h := newHarness(t, srv.BaseURL())
	ran := h.withWriteTool(t)
	term := h.onTerminal(t, nil)
	c, w, out, errOut := term.c, term.w, term.out, term.errOut

	// The answer is typed once the question is on screen; the next prompt
	// once the chat asks for it.
	go func() {
		w.WriteString("write it\n")
		errOut.waitFor("Allow?", 1)
		w.WriteString("y\n")
		errOut.waitFor("› ", 2)
		w.WriteString("thanks\n")
		errOut.waitFor("› ", 3)
		w.Close()
	}()
	code := c.execute(t.Context(), []string{"chat", "--mode", "confirm", "--new-session", "s-chatask"})
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	if ran.Load() != 1 {
		t.Errorf("test_write ran %d times, want 1", ran.Load())
	}
	if !strings.Contains(out.String(), "done\n") || !strings.HasSuffix(out.String(), "second\n") {
		t.Errorf("stdout %q", out.String())
	}
	if !strings.Contains(errOut.String(), "moteur: permission needed (risk write): test_write: notes.txt\n"+askQuestion) {
		t.Errorf("stderr %q, want the request and the question", errOut.String())
	}
	msgs := srv.Requests()[2].Messages
	if last := msgs[len(msgs)-1]; last.Content != "thanks" {
		t.Errorf("second prompt %q: the answer to the question was taken for a prompt, or the reverse", last.Content)
	}
}

// fakeResponder records the replies given to the engine.
type fakeResponder struct {
	mu      sync.Mutex
	replies map[string]engine.Reply
	got     chan string // the id of each reply
}

func (f *fakeResponder) Respond(id string, r engine.Reply) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.replies == nil {
		f.replies = map[string]engine.Reply{}
	}
	f.replies[id] = r
	f.got <- id
	return nil
}

func TestApprovalsWithdrawAQuestionTheEngineResolved(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	lines := readLines(r)
	defer lines.stop()
	eng := &fakeResponder{got: make(chan string, 4)}
	errOut := &watchedWriter{}
	a := &approvals{eng: eng, w: errOut, lang: i18n.EN, lines: func() *lineReader { return lines }}
	req := event.PermissionRequestedPayload{ID: "s/1", Tool: "shell_exec", Summary: "shell_exec: make", Risk: "destructive", Sandboxed: true}

	a.event(event.Event{Payload: req})
	errOut.waitFor("[w]ith network", 1)
	// The approval timeout passes: the engine refuses the call itself.
	a.event(event.Event{Payload: event.PermissionResolvedPayload{ID: "s/1", Tool: "shell_exec", By: "timeout"}})
	if !strings.HasSuffix(errOut.String(), "\nmoteur: no answer in time: shell_exec was refused\n") {
		t.Errorf("stderr %q", errOut.String())
	}
	if len(eng.got) != 0 {
		t.Errorf("replied %q after the engine resolved the request", <-eng.got)
	}
	// What is typed next is for whoever reads next, not the withdrawn
	// question.
	w.WriteString("w\n")
	if line := <-lines.lines; line != "w" {
		t.Errorf("next line %q, want w", line)
	}

	// A sandboxed request answered w runs with the network.
	a.event(event.Event{Payload: event.PermissionRequestedPayload{ID: "s/2", Tool: "shell_exec", Risk: "destructive", Sandboxed: true}})
	w.WriteString("w\n")
	<-eng.got // the engine then records the answer
	a.event(event.Event{Payload: event.PermissionResolvedPayload{ID: "s/2", Allow: true, By: "user"}})
	a.finish()
	if got := eng.replies["s/2"]; got != (engine.Reply{Allow: true, Network: true}) {
		t.Errorf("reply %+v, want allowed with the network", got)
	}
}
