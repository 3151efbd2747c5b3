package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
)

// emptyDir fails the test unless dir exists and holds nothing.
func emptyDir(t *testing.T, what, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		t.Errorf("%s %s holds %v after the demo; want nothing", what, dir, names)
	}
}

// TestDemoAnswersWithCitationsAndLeavesNothingBehind runs the real binary
// as a new user would, away from the repository (the sample documents are
// in the binary), with a model configured that must not be called: the
// demo answers from the sample documents with citations, says what to try
// next, and leaves the data directory, the configuration directory and the
// temporary directory as empty as they were.
func TestDemoAnswersWithCitationsAndLeavesNothingBehind(t *testing.T) {
	bin := moteurBinary(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var calls atomic.Int32
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		http.Error(w, "the demo must not call a model", http.StatusTeapot)
	}))
	defer model.Close()
	home, config, data, tmp := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MOTEUR_HOME=" + home, "XDG_CONFIG_HOME=" + config,
		"XDG_DATA_HOME=" + data, "TMPDIR=" + tmp, "MOTEUR_LANG=fr",
		"MOTEUR_BASE_URL=" + model.URL + "/v1", "MOTEUR_MODEL=test-model", "MOTEUR_API_KEY=sk-test",
	}
	run := func(args ...string) (stdout, stderr string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir, cmd.Env = t.TempDir(), env
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("moteur %v: %v\nstdout %s\nstderr %s", args, err, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}

	stdout, stderr := run("demo")
	for _, want := range []string{
		"> Chaque salarié acquiert 2,5 jours ouvrables de congés payés par mois de travail effectif, soit 30 jours ouvrables par an. [c1]",
		"Sources :\n  [c1] Congés et absences — conges.md",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{
		"moteur demo: ajout des documents d'exemple (examples/docs) à la base de connaissances demo…\n",
		"moteur demo: 5 documents, 12 passages en ",
		"moteur demo: question : Combien de jours de congés payés par an ?\n",
		"moteur ask \"combien de jours de télétravail par semaine ?\"",
		"moteur chat ",
		"export MOTEUR_BASE_URL=",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("demo stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stdout, "moteur demo:") {
		t.Errorf("progress on stdout:\n%s", stdout)
	}

	// --json: the answer's events, and nothing else, on stdout.
	stdout, stderr = run("--lang", "en", "demo", "--json")
	if !strings.Contains(stderr, "moteur demo: question: How long must a password be?\n") || !strings.Contains(stderr, "Next (in a clone") ||
		strings.Contains(stderr, "documents d'exemple") {
		t.Errorf("demo --lang en: stderr not in English alone:\n%s", stderr)
	}
	evs := decodeLines(t, []byte(stdout))
	var question, cited bool
	for _, e := range evs {
		switch p := e.Payload.(type) {
		case event.UserMessagePayload:
			question = p.Text == "How long must a password be?"
		case event.AssistantMessagePayload:
			cited = strings.Contains(p.Text, "at least 14 characters") && strings.Contains(p.Text, "[c1]")
		}
	}
	if !question || !cited {
		t.Errorf("demo --json: question %v, cited answer %v:\n%s", question, cited, stdout)
	}

	if n := calls.Load(); n != 0 {
		t.Errorf("the demo called the configured model %d times", n)
	}
	emptyDir(t, "MOTEUR_HOME", home)
	emptyDir(t, "XDG_CONFIG_HOME", config)
	emptyDir(t, "XDG_DATA_HOME", data)
	emptyDir(t, "TMPDIR (the scratch directory)", tmp)
}
