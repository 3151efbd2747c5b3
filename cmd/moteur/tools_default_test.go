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
	p, ok := ev.Payload.(event.SessionStartedPayload)
	if !ok || !slices.Equal(p.Tools, []string{"thinking", "todo_write"}) {
		t.Errorf("SessionStarted %+v, want the tools thinking and todo_write only", ev.Payload)
	}
	if tools := srv.Requests()[0].Tools; !slices.Equal(tools, []string{"thinking", "todo_write"}) {
		t.Errorf("tools sent to the model %v", tools)
	}
}
