package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// Sessions shared by real processes: turns run by one process after
// another, a permission request answered from another process, a process
// killed while it waited for one, a session followed from another process.

// TestProcessesTakingTurnsSendTheHistoryOfOne runs three turns of a
// session, each in a process of its own, and the same three turns in one
// chat process: every request the model gets is the same, byte for byte.
func TestProcessesTakingTurnsSendTheHistoryOfOne(t *testing.T) {
	turns := func() []http.HandlerFunc {
		return append(toolThenAnswer("first ", "answer"), openaitest.Answer("second answer"), openaitest.Answer("third answer"))
	}
	prompts := []string{"first question", "second question", "third question"}

	one := openaitest.NewServer(t, turns()...)
	p := newProcs(t, one.BaseURL())
	if res := p.runWithInput(strings.Join(prompts, "\n")+"\n", "chat", "--new-session", "s-one"); res.code != 0 {
		t.Fatalf("chat: exit %d, stderr:\n%s", res.code, res.stderr)
	}

	taking := openaitest.NewServer(t, turns()...)
	q := newProcs(t, taking.BaseURL())
	q.project = p.project // the same project: the same system prompt
	for i, prompt := range prompts {
		if res := q.run("run", sessionFlag(i), "s-turns", prompt); res.code != 0 {
			t.Fatalf("run %q: exit %d, stderr:\n%s", prompt, res.code, res.stderr)
		}
	}

	want, got := one.Requests(), taking.Requests()
	if len(got) != 4 || len(want) != 4 {
		t.Fatalf("%d requests by the processes, %d by the chat; want 4 each", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i].Body, want[i].Body) {
			t.Errorf("request %d differs from the one process's:\n%s\nwant:\n%s", i+1, got[i].Body, want[i].Body)
		}
	}
	taking.CheckPairing(t)
	if last := got[3].Messages; len(last) != 8 || last[7].Content != "third question" {
		t.Errorf("last request %+v, want the system prompt, the three turns (with the call) and the new question", last)
	}
}

// appendArgs are write_file's arguments that append one line to notes.txt:
// a call run twice would leave the line twice.
const appendArgs = `{"path":"notes.txt","content":"one line\n","mode":"append"}`

// waitingRun starts moteur run --wait-approvals in confirm mode, off a
// terminal, and waits until it says how to answer its first request.
func waitingRun(t *testing.T, p *procs, id string) *proc {
	t.Helper()
	pr := p.start("run", "--json", "--wait-approvals", "--mode", "confirm", "--new-session", id, "write the notes")
	pr.stderr.waitForText(t, "moteur sessions approve "+id+" 1, or moteur sessions deny "+id+" 1")
	return pr
}

// pendingOf runs moteur sessions pending --json.
func pendingOf(t *testing.T, p *procs, args ...string) []pendingJSON {
	t.Helper()
	res := p.run(append([]string{"sessions", "pending", "--json"}, args...)...)
	if res.code != 0 {
		t.Fatalf("sessions pending: exit %d, stderr %q", res.code, res.stderr)
	}
	var out []pendingJSON
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("sessions pending --json: %v\n%s", err, res.stdout)
	}
	return out
}

func TestApprovalAnsweredFromAnotherProcess(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_w", "write_file", appendArgs), openaitest.Answer("written"),
		openaitest.Calls("call_d", "write_file", `{"path":"other.txt","content":"no\n"}`), openaitest.Answer("changed course"))
	p := newProcs(t, srv.BaseURL())
	first := waitingRun(t, p, "s-wait")

	// Process 2 sees the request, waiting in process 1.
	reqs := pendingOf(t, p)
	if len(reqs) != 1 {
		t.Fatalf("pending %+v, want the one request", reqs)
	}
	if r := reqs[0]; r.ID != "s-wait/1" || r.SessionID != "s-wait" || r.Number != 1 || r.Tool != "write_file" ||
		r.CallID != "call_w" || r.Risk != "write" || !r.Live || r.PID != first.cmd.Process.Pid || r.AskedAt.IsZero() {
		t.Errorf("pending %+v, want request 1 of s-wait, live, asked by pid %d", r, first.cmd.Process.Pid)
	}
	if res := p.run("sessions", "pending"); !strings.Contains(res.stdout, "s-wait ") || !strings.Contains(res.stdout, " live ") {
		t.Errorf("sessions pending: %q", res.stdout)
	}

	// Process 3 answers it; process 1 goes on.
	if res := p.run("sessions", "approve", "s-wait", "1"); res.code != 0 || !strings.Contains(res.stdout, "permission request s-wait/1 (") ||
		!strings.HasSuffix(res.stdout, "): allowed\n") {
		t.Fatalf("approve: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if err := first.wait(); err != nil {
		t.Fatalf("process 1: %v, stderr:\n%s", err, first.stderr.text())
	}
	if got := readFile(t, filepath.Join(p.project, "notes.txt")); got != "one line\n" {
		t.Errorf("notes.txt = %q, want the line written once", got)
	}
	evs := decodeLines(t, []byte(first.stdout.text()))
	if r := payloads[event.PermissionResolvedPayload](evs); len(r) != 1 || !r[0].Allow || r[0].By != "user" {
		t.Errorf("resolved %+v, want allowed by the user", r)
	}
	if r := payloads[event.ToolResultPayload](evs); len(r) != 1 || r[0].IsError {
		t.Errorf("tool results %+v, want write_file run once", r)
	}
	if !strings.Contains(first.stderr.text(), "moteur: permission request s-wait/1 answered: allowed\n") {
		t.Errorf("process 1 stderr lacks the answer:\n%s", first.stderr.text())
	}

	// A second answer counts for nothing.
	res := p.run("sessions", "approve", "s-wait", "s-wait/1")
	if res.code != 1 || !strings.HasPrefix(res.stderr, "moteur: session s-wait: permission request 1 (") ||
		!strings.Contains(res.stderr, "was already answered (allow) by user at ") || strings.Count(res.stderr, "\n") != 1 {
		t.Errorf("approve again: exit %d, stderr %q; want 1 and one line saying it was answered", res.code, res.stderr)
	}
	if reqs := pendingOf(t, p); len(reqs) != 0 {
		t.Errorf("pending after the answer: %+v", reqs)
	}

	// A refusal's reason reaches the model.
	second := waitingRun(t, p, "s-deny")
	if res := p.run("sessions", "deny", "s-deny", "s-deny/1", "--reason", "not that file"); res.code != 0 ||
		!strings.HasSuffix(res.stdout, "): refused: not that file\n") {
		t.Fatalf("deny: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if err := second.wait(); err != nil {
		t.Fatalf("process 1 of s-deny: %v, stderr:\n%s", err, second.stderr.text())
	}
	if _, err := os.Stat(filepath.Join(p.project, "other.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused call wrote other.txt: %v", err)
	}
	srv.CheckPairing(t)
	msgs := srv.Requests()[3].Messages
	i := slices.IndexFunc(msgs, func(m llm.Message) bool { return m.Role == llm.RoleTool && m.ToolCallID == "call_d" })
	if i < 0 || !strings.Contains(msgs[i].Content, "refused. Reason: not that file") {
		t.Errorf("the model was not given the reason: %+v", msgs)
	}
}

func TestKilledWhileWaitingForAnApproval(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Calls("call_k", "write_file", appendArgs), openaitest.Answer("went on"))
	p := newProcs(t, srv.BaseURL())
	first := waitingRun(t, p, "s-kill")
	pid := first.cmd.Process.Pid
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.wait()
	if ws, ok := first.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("process 1: %v, want killed by SIGKILL", first.cmd.ProcessState)
	}

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	if reqs := pendingOf(t, p, "--session", "s-kill"); len(reqs) != 1 || reqs[0].Live || reqs[0].PID != pid {
		t.Fatalf("pending %+v, want the request, stale", reqs)
	}
	stale := fmt.Sprintf("stale: pid %d on host %s stopped", pid, host)
	if res := p.run("sessions", "pending"); !strings.Contains(res.stdout, stale) {
		t.Errorf("sessions pending %q, want %q", res.stdout, stale)
	}
	res := p.run("sessions", "approve", "s-kill", "1")
	if res.code != 1 || !strings.Contains(res.stderr, "session s-kill: permission request 1 (") ||
		!strings.Contains(res.stderr, "the turn that asked is no longer running") || strings.Count(res.stderr, "\n") != 1 {
		t.Errorf("approve a stale request: exit %d, stderr %q", res.code, res.stderr)
	}

	// The next turn withdraws it: the model is told the call did not run.
	if res := p.run("run", "--session", "s-kill", "go on"); res.code != 0 {
		t.Fatalf("run --session: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	srv.CheckPairing(t)
	msgs := srv.Requests()[1].Messages
	i := slices.IndexFunc(msgs, func(m llm.Message) bool { return m.Role == llm.RoleTool && m.ToolCallID == "call_k" })
	if i < 0 || !strings.Contains(msgs[i].Content, "was not run") || strings.Contains(msgs[i].Content, "may or may not have run") {
		t.Errorf("the model's answer to the call: %+v, want 'was not run'", msgs)
	}
	if _, err := os.Stat(filepath.Join(p.project, "notes.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("notes.txt was written: %v", err)
	}
	if reqs := pendingOf(t, p); len(reqs) != 0 {
		t.Errorf("pending after the next turn: %+v", reqs)
	}
}

func TestFollowATurnOfAnotherProcess(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "tool-is-running")
	args, _ := json.Marshal(map[string]string{"marker": marker})
	srv := openaitest.NewServer(t, openaitest.Calls("call_block", "test_block", string(args)), openaitest.Answer("stopped"))
	p := newProcs(t, srv.BaseURL())
	first := p.start("run", "--json", "--new-session", "s-follow", "start the long task")
	waitForFile(t, marker, 30*time.Second)

	// Started mid-turn: the stored events, then the rest as they come.
	follower := p.start("sessions", "follow", "s-follow", "--json", "--until-turn-end")
	follower.stdout.waitFor(t, "the call of test_block", func(line string) bool {
		e, err := event.Decode([]byte(line))
		p, ok := e.Payload.(event.AssistantMessagePayload)
		return err == nil && ok && len(p.ToolCalls) == 1 && p.ToolCalls[0].Name == "test_block"
	})
	// Ctrl-C ends the turn: the tool is cancelled, the turn closed.
	if err := first.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_ = first.wait()
	if err := follower.wait(); err != nil {
		t.Fatalf("follow: %v, stderr:\n%s", err, follower.stderr.text())
	}
	followed := decodeLines(t, []byte(follower.stdout.text()))
	stored, err := openTestStore(t, session.SQLiteConfig{Path: session.DefaultPath(p.home)}).Load(t.Context(), "s-follow")
	if err != nil {
		t.Fatal(err)
	}
	if last := stored[len(stored)-1]; last.Type != event.TurnCompleted {
		t.Fatalf("the store ends with %s, want the turn's end", last.Type)
	}
	if got, want := jsonLines(t, followed), jsonLines(t, stored); got != want {
		t.Errorf("followed:\n%s\nwant every stored event once, in order:\n%s", got, want)
	}

	res := p.run("sessions", "follow", "s-follow", "--after", "999")
	want := fmt.Sprintf("moteur: session s-follow: follow after seq 999: seq beyond the end of the session (it ends at seq %d)\n", len(stored))
	if res.code != 1 || res.stderr != want {
		t.Errorf("follow --after 999: exit %d, stderr %q; want 1 and %q", res.code, res.stderr, want)
	}
	if res := p.run("sessions", "follow", "s-nothing"); res.code != 1 || res.stderr != "moteur: session s-nothing not found\n" {
		t.Errorf("follow an unknown session: exit %d, stderr %q", res.code, res.stderr)
	}
}
