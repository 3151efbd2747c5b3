package engine

import (
	"context"
	"encoding/json"
	"github.com/moteur/moteur/effect"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/shell"
)

func shellTool(t *testing.T, root string) *shell.Exec {
	t.Helper()
	e, err := shell.New(shell.Config{Root: root, Sandbox: shell.SandboxNone})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The approval prompt of a shell command shows its env and stdin (the
// tool's tools.Summarizer), and the result records the risk the call was
// authorised as, not one assessed after it ran: `> new.txt` is a write
// before the call and would be destructive after, new.txt then existing.
func TestShellCallSummaryAndRisk(t *testing.T) {
	root := t.TempDir()
	sh := shellTool(t, root)
	args := `{"command":"echo x > new.txt","env":{"TZ":"UTC"},"stdin":"hello\n"}`
	evs := confirmedTurn(t, []scripted.Step{scripted.Call("c1", shell.Name, args), {Text: "fait"}}, []tools.Tool{sh}, Reply{Allow: true})
	req := last[event.PermissionRequestedPayload](t, evs, event.PermissionRequested)
	for _, want := range []string{"shell_exec: echo x > new.txt", "TZ=UTC", "stdin (6 bytes, 1 lines): hello"} {
		if !strings.Contains(req.Summary, want) {
			t.Errorf("summary %q lacks %q", req.Summary, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	if now := sh.RiskOf(json.RawMessage(args)); now != effect.RiskDestructive {
		t.Fatalf("after the run RiskOf = %s; the test needs a risk that changes", now)
	}
	res := last[event.ToolResultPayload](t, evs, event.ToolResult)
	if res.Risk != string(effect.RiskWrite) || req.Risk != string(effect.RiskWrite) || !res.NotUndoable {
		t.Errorf("request risk %s, result risk %s, not undoable %v: want the write it was authorised as", req.Risk, res.Risk, res.NotUndoable)
	}
}

// In auto_write a destructive command asks; once run, a rewind's note
// says that it could not be undone and that it was destructive.
func TestRewindNoteNamesWhatCannotBeUndone(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "build", "obj"), 0o755); err != nil {
		t.Fatal(err)
	}
	store, err := checkpoint.Open(checkpoint.Config{Dir: t.TempDir(), Clear: true})
	if err != nil {
		t.Fatal(err)
	}
	toolset := append(fileTools(root, store)[:1], shellTool(t, root)) // put, shell_exec
	steps := []scripted.Step{
		put("w1", "a.txt", "a"), {Text: "tour 1"},
		scripted.Call("s1", shell.Name, `{"command":"rm -rf build"}`), {Text: "tour 2"},
	}
	h := newHarness(t, steps, toolset, func(d *Deps) {
		d.ProjectRoot, d.Checkpoints = root, store
		d.Permissions = permissions(t, policy.AutoWrite, policy.Rules{})
	})
	for _, q := range []string{"premier", "second"} {
		seen := answerRequests(t, h, Reply{Allow: true})
		if err := h.submit(q); err != nil {
			t.Fatal(err)
		}
		evs := <-seen
		if q == "second" {
			req := last[event.PermissionRequestedPayload](t, evs, event.PermissionRequested)
			if req.Risk != string(effect.RiskDestructive) {
				t.Errorf("rm -rf build asked as %s, want destructive", req.Risk)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "build")); !os.IsNotExist(err) {
		t.Fatalf("rm -rf build did not run: %v", err)
	}
	pts := h.e.RewindPoints("s1")
	plan, err := h.e.RewindPlan("s1", pts[1].Seq)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.NotUndoable) != 1 || plan.NotUndoable[0].Risk != string(effect.RiskDestructive) {
		t.Fatalf("plan.NotUndoable = %+v", plan.NotUndoable)
	}
	res, err := h.e.Rewind(context.Background(), "s1", pts[1].Seq, RewindCode, plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Note, "shell_exec at seq") || !strings.Contains(res.Note, "(destructive)") {
		t.Errorf("note %q does not say the destructive command stays", res.Note)
	}
}
