package effect_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBelowTools checks the layering this package exists for: the packages
// that record, judge and undo calls do not depend on the tools package.
func TestBelowTools(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found: cannot list the packages' dependencies")
	}
	for _, pkg := range []string{"event", "policy", "checkpoint", "effect"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/moteur/moteur/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) == 0 {
			t.Fatalf("go list %s listed nothing", pkg)
		}
		for _, d := range deps {
			if d == "github.com/moteur/moteur/tools" || strings.HasPrefix(d, "github.com/moteur/moteur/tools/") {
				t.Errorf("%s depends on %s", pkg, d)
			}
		}
	}
}
