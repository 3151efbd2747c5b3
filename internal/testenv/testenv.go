// Package testenv decides, for tests, what happens when something a test
// needs from outside Moteur is missing — a program (bwrap, tmux, chromium,
// git), a file a Debian package installs, root: the test is skipped with
// what is missing and how to get it, except under CI=true, where it fails.
// .ci/run installs everything; a skip there would hide a test that never
// ran.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// Missing skips tb with why, or fails it under CI=true.
func Missing(tb testing.TB, why string) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf("CI=true: %s", why)
	}
	tb.Skipf("skipped: %s", why)
}

// Program is the path of the program name; when it is not on PATH, tb is
// skipped (failed under CI=true), saying how to install it (install, e.g.
// "apt-get install bubblewrap").
func Program(tb testing.TB, name, install string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, fmt.Sprintf("%s is not installed (%v): %s", name, err, install))
	}
	return p
}

// File reads path; when it cannot, tb is skipped (failed under CI=true),
// saying how to get it (install).
func File(tb testing.TB, path, install string) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		Missing(tb, fmt.Sprintf("%s cannot be read (%v): %s", path, err, install))
	}
	return data
}
