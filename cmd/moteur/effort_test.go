package main

import (
	"encoding/json"
	"testing"

	"github.com/moteur/moteur/provider/openai/openaitest"
)

// --effort wins over the agent's reasoning effort, on run and on ask; a
// level that does not exist is a usage error and nothing is sent.
func TestEffortFlagReachesTheRequest(t *testing.T) {
	effortOf := func(t *testing.T, body []byte) any {
		t.Helper()
		var b map[string]any
		if err := json.Unmarshal(body, &b); err != nil {
			t.Fatal(err)
		}
		return b["reasoning_effort"]
	}
	srv := openaitest.NewServer(t, openaitest.Answer("voilà"))
	h := newHarness(t, srv.BaseURL())
	cfg := smartConfig()
	cfg.ReasoningEffort = "low"
	storeAgent(t, h, "réfléchi", cfg)
	if res := h.run(t, "run", "--agent", "réfléchi", "--effort", "high", "bonjour"); res.code != 0 {
		t.Fatalf("run: exit %d, stderr %q", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if got := effortOf(t, reqs[0].Body); got != "high" {
		t.Errorf("reasoning_effort %v, want high over the agent's low: %s", got, reqs[0].Body)
	}
	res := h.run(t, "run", "--effort", "extreme", "bonjour")
	if res.code != exitUsage || len(srv.Requests()) != 1 {
		t.Errorf("--effort extreme: exit %d, %d requests; want %d and none more (stderr %q)", res.code, len(srv.Requests()), exitUsage, res.stderr)
	}
}
