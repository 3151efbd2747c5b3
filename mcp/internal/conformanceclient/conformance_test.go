package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/internal/npmtest"
)

// TestConformanceClientScenarios runs the official suite's client
// scenarios against this program: every scenario of the scenarios table,
// each of which must pass. Without node 22 and the suite (installed by
// .ci/run under $MOTEUR_NPM) it skips, except under CI=true.
func TestConformanceClientScenarios(t *testing.T) {
	node, suite := npmtest.Conformance(t)

	bin := filepath.Join(t.TempDir(), "conformanceclient")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	names := make([]string, 0, len(scenarios))
	for name := range scenarios {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "client", "--command", bin, "--scenario", name, "--timeout", "60000")
			cmd.Dir = t.TempDir() // the suite writes its results under the working directory
			cmd.Env = append(os.Environ(), "CI=true")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "OVERALL: PASSED") {
				t.Fatalf("scenario %s: %v\n%s", name, err, tail(string(out), 4000))
			}
		})
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
