package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// TestRunSIGINTExits130AndNamesTheSession sends SIGINT to the real binary
// while a tool call runs: the turn stops at once (the model is asked
// nothing more), run exits 130 and names its session on standard error,
// and the store ends with the turn, cancelled.
func TestRunSIGINTExits130AndNamesTheSession(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "tool-is-running")
	args, _ := json.Marshal(map[string]string{"marker": marker})
	srv := openaitest.NewServer(t, openaitest.Calls("call_block", "test_block", string(args)),
		// Only a request sent after Ctrl-C would get this.
		openaitest.Answer("a synthesis nobody asked for"))
	p := newProcs(t, srv.BaseURL())
	pr := p.start("run", "--new-session", "s-sigint", "start the long task")
	waitForFile(t, marker, 30*time.Second)
	if err := pr.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := pr.wait()
	code := exitCodeOf(t, err)
	stderr := pr.stderr.text()
	if code != exitInterrupted {
		t.Fatalf("exit %d, want 130; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "\nsession: s-sigint\n") && !strings.HasPrefix(stderr, "session: s-sigint\n") {
		t.Errorf("stderr %q lacks the line session: s-sigint", stderr)
	}
	if !strings.Contains(stderr, "interrupted") {
		t.Errorf("stderr %q does not say the run was interrupted", stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model received %d requests, want 1: none after Ctrl-C", n)
	}
	st := openTestStore(t, session.SQLiteConfig{Path: session.DefaultPath(p.home)})
	stored, err := st.Load(t.Context(), "s-sigint")
	if err != nil {
		t.Fatal(err)
	}
	last := stored[len(stored)-1]
	if tc, ok := last.Payload.(event.TurnCompletedPayload); !ok || tc.Reason != event.StopCancelled || tc.Answer != "" {
		t.Fatalf("the store ends with %s %+v, want TurnCompleted cancelled", last.Type, last.Payload)
	}
	var cut *event.ToolResultPayload
	for _, ev := range stored {
		if r, ok := ev.Payload.(event.ToolResultPayload); ok && r.CallID == "call_block" {
			cut = &r
		}
	}
	if cut == nil || !cut.IsError || !strings.Contains(cut.Content, "canceled") {
		t.Errorf("the call cut short is stored as %+v, want an error result saying it was cancelled", cut)
	}
}
