package shell_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/moteur/moteur/tools"
)

// A command's output is reported line by line while it runs: the command
// here waits, after its first line, for the test to have seen that line.
func TestOutputIsReportedAsItComes(t *testing.T) {
	modes(t, func(t *testing.T, mode string) {
		e, root := newExec(t, mode)
		fifo := filepath.Join(root, "go")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		seen := make(chan string, 16)
		ctx := tools.WithProgress(context.Background(), func(p tools.Progress) { seen <- p.Message })
		done := make(chan tools.Result, 1)
		go func() {
			done <- run(t, ctx, e, map[string]any{"command": "echo first; read x < go; echo second", "timeout_sec": 30})
		}()
		select {
		case line := <-seen:
			if line != "first" {
				t.Fatalf("first line reported %q, want %q", line, "first")
			}
		case res := <-done:
			t.Fatalf("the command ended before its first line was reported: %s", res.Content)
		case <-time.After(20 * time.Second):
			t.Fatal("no line reported while the command ran")
		}
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.WriteString("x\n")
		_ = f.Close()
		contains(t, (<-done).Content, "exit code: 0", "first\nsecond\n")
	})
}
