package main

import (
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

func TestChatReadsPromptsLineByLine(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("Bonjour"))
	h := newHarness(t, srv.BaseURL())
	h.stdin = strings.NewReader("hello\n/exit\nnever sent\n")
	res := h.run(t, "chat", "--new-session", "s-chat")
	if res.code != 0 || res.stdout != "Bonjour\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if res.stderr != "moteur chat · session s-chat · model test-model\n" {
		t.Errorf("stderr %q, want the one-line header", res.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	want := []event.Type{event.SessionStarted, event.UserMessage, event.AssistantMessage, event.TurnCompleted}
	if got := types(h.load(t, "s-chat")); !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
}

func TestChatContinuesASession(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("first"), openaitest.Answer("second"))
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-chat", "hello"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	// A prompt continued with a backslash, /session, an unknown command
	// (not sent), then the end of input.
	h.stdin = strings.NewReader("line one\\\nline two\n/session\n/bogus\n")
	res := h.run(t, "chat", "--session", "s-chat")
	if res.code != 0 || res.stdout != "second\ns-chat\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stderr, "continued (4 events)") || !strings.Contains(res.stderr, "unknown command or skill /bogus") {
		t.Errorf("stderr %q", res.stderr)
	}
	var got []string
	for _, m := range srv.Requests()[1].Messages[1:] {
		got = append(got, m.Content)
	}
	if want := []string{"hello", "first", "line one\nline two"}; !slices.Equal(got, want) {
		t.Errorf("request %q, want %q", got, want)
	}
	checkSeqs(t, h.load(t, "s-chat"))
}

func TestChatCtrlCStopsTheTurnOnly(t *testing.T) {
	h := newHarness(t, "")
	h.interrupts = make(chan os.Signal, 1)
	// The user presses Ctrl-C while the model is answering.
	srv := openaitest.NewServer(t, func(_ http.ResponseWriter, r *http.Request) {
		h.interrupts <- os.Interrupt
		<-r.Context().Done()
	}, openaitest.Answer("after"))
	h.env["MOTEUR_BASE_URL"] = srv.BaseURL()
	h.stdin = strings.NewReader("first\nsecond\n")
	res := h.run(t, "chat", "--new-session", "s-int")
	if res.code != 0 || res.stdout != "after\n" || !strings.Contains(res.stderr, "moteur: turn interrupted\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	var reasons []string
	for _, e := range h.load(t, "s-int") {
		if p, ok := e.Payload.(event.TurnCompletedPayload); ok {
			reasons = append(reasons, p.Reason)
		}
	}
	if want := []string{event.StopCancelled, event.StopNatural}; !slices.Equal(reasons, want) {
		t.Errorf("turns ended %v, want %v", reasons, want)
	}
}

func TestChatCtrlCAtThePromptEnds(t *testing.T) {
	srv := openaitest.NewServer(t)
	h := newHarness(t, srv.BaseURL())
	h.interrupts = make(chan os.Signal, 1)
	h.interrupts <- syscall.SIGINT
	r, w, err := os.Pipe() // a line that never comes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	h.stdin = r
	if res := h.run(t, "chat"); res.code != 0 {
		t.Errorf("exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestChatScriptStopsAtAFailedTurn(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Status(http.StatusBadRequest, "invalid_request_error", "bad model"))
	h := newHarness(t, srv.BaseURL())
	h.stdin = strings.NewReader("one\ntwo\n")
	res := h.run(t, "chat")
	if res.code != 1 || !strings.Contains(res.stderr, "moteur: ") || !strings.Contains(res.stderr, "bad model") {
		t.Errorf("exit %d, stderr %q", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1: the chat stops at the failed turn", n)
	}
}

func TestChatWithoutModelCreatesNothing(t *testing.T) {
	home := t.TempDir()
	var out, errOut strings.Builder
	code := execute(t.Context(), []string{"chat"}, envMap(map[string]string{"MOTEUR_HOME": home, "MOTEUR_LANG": "en"}),
		strings.NewReader("hi\n"), &out, &errOut)
	if code != 2 || !strings.Contains(errOut.String(), "no model configured") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	if _, err := os.Stat(session.DefaultPath(home)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("database created without a model: %v", err)
	}
}

func TestChatOnATerminalPromptsAndCtrlCDropsAContinuedPrompt(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("ok"))
	h := newHarness(t, srv.BaseURL())
	intr := make(chan os.Signal, 1)
	term := h.onTerminal(t, intr)
	c, w, out, errOut := term.c, term.w, term.out, term.errOut

	// The user starts a prompt over two lines, thinks better of it
	// (Ctrl-C), types another, then ends the chat with Ctrl-D. Each key
	// waits for the prompt that the chat shows when ready for it.
	go func() {
		w.WriteString("dropped \\\n")
		errOut.waitFor("… ", 1)
		intr <- os.Interrupt
		errOut.waitFor("› ", 2)
		w.WriteString("kept\n")
		w.Close()
	}()
	code := c.execute(t.Context(), []string{"chat", "--new-session", "s-tty"})
	if code != 0 || out.String() != "ok\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	want := "moteur chat · session s-tty · model test-model · /exit to quit\n› … \n› › \n"
	if got := errOut.String(); got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	msgs := srv.Requests()[0].Messages
	if last := msgs[len(msgs)-1]; last.Content != "kept" {
		t.Errorf("sent %q, want only the prompt typed after Ctrl-C", last.Content)
	}
}

// watchedWriter is a writer whose content another goroutine can wait on.
type watchedWriter struct {
	mu   sync.Mutex
	cond *sync.Cond
	b    strings.Builder
}

func (w *watchedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cond != nil {
		defer w.cond.Broadcast()
	}
	return w.b.Write(p)
}

func (w *watchedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// waitFor waits until s has been written n times.
func (w *watchedWriter) waitFor(s string, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cond == nil {
		w.cond = sync.NewCond(&w.mu)
	}
	for strings.Count(w.b.String(), s) < n {
		w.cond.Wait()
	}
}
