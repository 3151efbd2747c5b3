package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// The moteur binary with the test tools, built once for the tests that run
// real processes.
var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// moteurBinary builds moteur with the build tag moteur_testtools (the
// test_block tool) once, and returns its path.
func moteurBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("skipped: the go command is not on PATH (%v), so the moteur binary cannot be built", err)
	}
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "moteur-test-bin-"); buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "moteur")
		out, err := exec.Command(goTool, "build", "-buildvcs=false", "-tags", "moteur_testtools", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build -tags moteur_testtools: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// decodeLines decodes JSON lines of events, failing the test on a bad one.
func decodeLines(t *testing.T, out []byte) []event.Event {
	t.Helper()
	var evs []event.Event
	for _, l := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		e, err := event.Decode(l)
		if err != nil {
			t.Fatalf("bad event line: %v\n%s", err, l)
		}
		evs = append(evs, e)
	}
	return evs
}

// persistedOnly drops the ephemeral events.
func persistedOnly(evs []event.Event) []event.Event {
	return slices.DeleteFunc(slices.Clone(evs), func(e event.Event) bool { return e.Ephemeral })
}

// TestCrashInAToolCallThenContinueInANewProcess is the crash test: a real
// moteur process is killed (SIGKILL) while a tool runs, and a second process
// continues the same session.
func TestCrashInAToolCallThenContinueInANewProcess(t *testing.T) {
	bin := moteurBinary(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	home, project := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "tool-is-running")
	args, _ := json.Marshal(map[string]string{"marker": marker})
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_block", "test_block", string(args)),
		openaitest.Answer("resumed after the crash"))
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MOTEUR_HOME=" + home, "MOTEUR_LANG=en",
		"MOTEUR_BASE_URL=" + srv.BaseURL(), "MOTEUR_MODEL=test-model", "MOTEUR_API_KEY=sk-test",
	}
	command := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir, cmd.Env = project, env
		return cmd
	}

	// The first process runs until its tool call blocks.
	first := command("run", "--json", "--new-session", "s-crash", "start the long task")
	var stderr1 bytes.Buffer
	first.Stderr = &stderr1
	stdout, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	var printed []byte
	called := false
	for !called && lines.Scan() {
		printed = append(append(printed, lines.Bytes()...), '\n')
		e, err := event.Decode(lines.Bytes())
		if err != nil {
			t.Fatalf("first process printed a bad line: %v\n%s", err, lines.Bytes())
		}
		p, ok := e.Payload.(event.AssistantMessagePayload)
		called = ok && len(p.ToolCalls) == 1 && p.ToolCalls[0].Name == "test_block"
	}
	if !called {
		_ = first.Wait()
		t.Fatalf("the first process ended before calling test_block (%v); stdout:\n%s\nstderr:\n%s", first.ProcessState, printed, &stderr1)
	}
	// The call was delivered; wait for the tool to run (an effect of
	// another process: polled, with a deadline).
	waitForFile(t, marker, 30*time.Second)
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		printed = append(append(printed, lines.Bytes()...), '\n')
	}
	err = first.Wait()
	if ws, ok := first.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("first process: %v, want killed by SIGKILL; stderr:\n%s", err, &stderr1)
	}
	before := persistedOnly(decodeLines(t, printed))

	// The second process continues the session.
	second := command("run", "--json", "--session", "s-crash", "continue")
	var stdout2, stderr2 bytes.Buffer
	second.Stdout, second.Stderr = &stdout2, &stderr2
	if err := second.Run(); err != nil {
		t.Fatalf("second process: %v; stderr:\n%s", err, &stderr2)
	}
	after := persistedOnly(decodeLines(t, stdout2.Bytes()))

	// The store holds every event the first process persisted, unchanged,
	// then the second process's, seqs without a gap.
	st, err := session.OpenSQLite(ctx, session.SQLiteConfig{Path: session.DefaultPath(home)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stored, err := st.Load(ctx, "s-crash")
	if err != nil {
		t.Fatal(err)
	}
	checkSeqs(t, stored)
	if len(before) < 3 {
		t.Fatalf("the first process printed %d persisted events, want SessionStarted, UserMessage, AssistantMessage", len(before))
	}
	if got, want := jsonLines(t, stored), jsonLines(t, append(slices.Clone(before), after...)); got != want {
		t.Errorf("stored events:\n%s\nwant those of the first process then those of the second:\n%s", got, want)
	}
	if last := stored[len(stored)-1]; last.Type != event.TurnCompleted ||
		last.Payload.(event.TurnCompletedPayload).Reason != event.StopNatural ||
		last.Payload.(event.TurnCompletedPayload).Answer != "resumed after the crash" {
		t.Errorf("last stored event %+v, want the new turn's TurnCompleted", last)
	}
	// The second process records its own setup, then the synthetic answer
	// the model is given for the call the kill interrupted, then the turn.
	if len(after) < 3 || after[0].Type != event.SessionStarted || after[0].Seq != before[len(before)-1].Seq+1 ||
		after[1].Type != event.ToolResult || after[2].Type != event.UserMessage {
		t.Fatalf("second process starts with %v, want SessionStarted (seq %d), ToolResult, UserMessage",
			typesOf(after), before[len(before)-1].Seq+1)
	}
	if r := after[1].Payload.(event.ToolResultPayload); !r.Synthetic || r.CallID != "call_block" {
		t.Errorf("recorded answer to the dangling call = %+v, want a synthetic answer to call_block", r)
	}

	// The model saw the dangling call answered.
	srv.CheckPairing(t)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	i := slices.IndexFunc(msgs, func(m llm.Message) bool { return m.Role == llm.RoleTool && m.ToolCallID == "call_block" })
	if i < 0 || !strings.Contains(msgs[i].Content, "before the call finished") {
		t.Errorf("second request lacks the synthetic answer to call_block: %+v", msgs)
	}
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleUser || last.Content != "continue" {
		t.Errorf("second request ends with %+v, want the new prompt", last)
	}

	// The audit log, written by both processes, verifies.
	verify := command("audit", "verify")
	out, err := verify.CombinedOutput()
	want := fmt.Sprintf("ok %d records  %s\n", len(stored), filepath.Join(home, "audit", "s-crash.jsonl"))
	if err != nil || string(out) != want {
		t.Errorf("moteur audit verify: %v, output %q; want %q", err, out, want)
	}
}

// waitForFile waits until path exists, failing the test after timeout.
func waitForFile(t *testing.T, path string, timeout time.Duration) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s did not appear within %s", path, timeout)
		}
	}
}

func typesOf(evs []event.Event) []event.Type {
	out := make([]event.Type, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}
