package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// A file under a classify path of the project's configuration has no
// marking in its text; once the agent has read it, nothing more goes to the
// remote model.
func TestRunClassifiedPathStopsRemoteSends(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("c1", "read_file", `{"path":"secret/plan.md"}`),
		openaitest.Answer("never sent"))
	h := newHarness(t, srv.BaseURL())
	for name, text := range map[string]string{
		".moteur/config.yaml": "classify:\n  paths: [\"secret/**\"]\n",
		"secret/plan.md":      "La fusion avec Beta est prévue pour mars.\n",
	} {
		p := filepath.Join(h.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res := h.run(t, "run", "--new-session", "s-plan", "lis secret/plan.md")
	if res.code != 1 || !strings.Contains(res.stderr, "sensitive") {
		t.Fatalf("exit %d, stderr %q; want a refusal: the session is sensitive", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests reached the remote model; want only the first, before the file was read", n)
	}
	found := false
	for _, ev := range h.load(t, "s-plan") {
		if p, ok := ev.Payload.(event.SessionClassifiedPayload); ok && p.Marking == "path:secret/**" && p.Source == "tool read_file" {
			found = true
		}
	}
	if !found {
		t.Fatal("no SessionClassified naming the path rule and the tool")
	}
}
