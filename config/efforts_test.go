package config

import (
	"slices"
	"testing"
)

// reasoning_efforts reaches each provider of the file it was read from;
// a provider that lists none, or comes from the environment, has none.
func TestReasoningEfforts(t *testing.T) {
	e := newEnv(t).writeUser(`providers:
  - name: vllm
    base_url: http://127.0.0.1:8000/v1
    model: qwen3
    reasoning_efforts: [high, low, medium]
  - name: plain
    base_url: https://api.example.com/v1
    model: m
`)
	e.vars["MOTEUR_BASE_URL"] = "http://127.0.0.1:9000/v1"
	e.vars["MOTEUR_MODEL"] = "env-model"
	c := e.mustLoad()
	if got := names(c.Providers); !slices.Equal(got, []string{"127.0.0.1:9000", "vllm", "plain"}) {
		t.Fatalf("providers %v", got)
	}
	if got := c.Providers[1].ReasoningEfforts; !slices.Equal(got, []string{"high", "low", "medium"}) {
		t.Errorf("vllm: reasoning efforts %v", got)
	}
	if got := c.Providers[2].ReasoningEfforts; got != nil {
		t.Errorf("plain: reasoning efforts %v, want none", got)
	}
	if got := c.Providers[0].ReasoningEfforts; got != nil {
		t.Errorf("environment: reasoning efforts %v, want none", got)
	}
}

// An unknown level is refused with the line of its key and the levels
// that exist.
func TestReasoningEffortsUnknown(t *testing.T) {
	e := newEnv(t).writeProject("providers:\n  - name: a\n    base_url: https://a.example/v1\n    model: m\n    reasoning_efforts:\n      - low\n      - extreme\n")
	e.loadErr("config "+e.projectFile()+": ", "line 7", `providers[0].reasoning_efforts[1]: unknown reasoning effort "extreme"`,
		"want minimal, low, medium, high, xhigh, max")
	e = newEnv(t).writeProject("providers:\n  - {name: a, base_url: https://a.example/v1, model: m, reasoning_efforts: [off]}\n")
	e.loadErr("line 2", `unknown reasoning effort "off"`)
}
