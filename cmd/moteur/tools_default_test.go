//go:build !moteur_testtools

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

func TestTheMoteurBinaryHasNoTestTools(t *testing.T) {
	if len(extraTools) != 0 {
		t.Fatalf("%d extra tools registered without the moteur_testtools tag", len(extraTools))
	}
	srv := openaitest.NewServer(t, openaitest.Answer("ok"))
	h := newHarness(t, srv.BaseURL())
	res := h.run(t, "run", "--json", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	first, _, _ := strings.Cut(res.stdout, "\n")
	ev, err := event.Decode([]byte(first))
	if err != nil {
		t.Fatal(err)
	}
	// The built-ins: sub-agents, planning, files, shell.
	want := []string{"agent", "edit_file", "glob", "grep", "list_files", "read_file", "shell_exec", "thinking", "todo_write", "write_file"}
	p, ok := ev.Payload.(event.SessionStartedPayload)
	if !ok || !slices.Equal(p.Tools, want) {
		t.Errorf("SessionStarted %+v, want the built-in tools %v only", ev.Payload, want)
	}
	if tools := srv.Requests()[0].Tools; !slices.Equal(tools, want) {
		t.Errorf("tools sent to the model %v, want %v", tools, want)
	}
}
