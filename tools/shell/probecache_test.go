package shell_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/tools/shell"
)

// The sandbox's trial run starts bubblewrap once per process for the same
// project: the next session of the project (moteur serve opens one per
// turn) reuses what it found, and gets the same isolation.
func TestSandboxTrialRunOncePerProject(t *testing.T) {
	needBwrap(t)
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	count := filepath.Join(t.TempDir(), "runs")
	wrapper := fakeBwrap(t, "#!/bin/sh\necho run >> '"+count+"'\nexec '"+real+"' \"$@\"\n")
	root := t.TempDir()
	var first string
	for i := range 3 {
		got := newWithBwrap(t, root, shell.SandboxBwrap, wrapper).Sandbox().Detail
		if i == 0 {
			first = got
		} else if got != first {
			t.Errorf("session %d: sandbox %q, want the first's %q", i+1, got, first)
		}
	}
	runs, err := os.ReadFile(count)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(runs), "run"); n != 1 {
		t.Errorf("bubblewrap ran %d times for three sessions of one project, want 1", n)
	}
	if !strings.Contains(first, "project root writable") {
		t.Errorf("the wrapped bubblewrap gave no sandbox: %q", first)
	}
}
