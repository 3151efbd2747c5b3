package engine

import (
	"context"
	"encoding/json"
	"github.com/moteur/moteur/effect"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

const (
	userKey = "sk-proj-Abcdefghijklmnopqrstuvwx0123456789"
	toolKey = "AKIAIOSFODNN7EXAMPLE"
	argKey  = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
)

// TestSecretsAreMaskedBeforeAnySinkAndAfterTheTurn: a secret the user typed
// reaches the model in that turn only; secrets in tool arguments and
// results never reach the log; the next turn and a restored session read
// the masked text.
func TestSecretsAreMaskedBeforeAnySinkAndAfterTheTurn(t *testing.T) {
	leak := &fakeTool{name: "env", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: "AWS_KEY_ID=" + toolKey}, nil
	}}
	steps := []scripted.Step{
		{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "env", Arguments: `{"q":"` + argKey + `"}`}}},
		{Text: "Clé notée."},
		{Text: "Suite."},
	}
	h := newHarness(t, steps, []tools.Tool{leak}, nil)
	if err := h.submit("Voici ma clé " + userKey + " pour le test"); err != nil {
		t.Fatal(err)
	}
	if err := h.submit("Et maintenant ?"); err != nil {
		t.Fatal(err)
	}
	for _, e := range h.sink.all() {
		b, _ := json.Marshal(e)
		for _, secret := range []string{userKey, toolKey, argKey} {
			if strings.Contains(string(b), secret) {
				t.Errorf("the sink received a secret in %s: %s", e.Type, b)
			}
		}
	}
	reqs := h.p.Requests()
	if !strings.Contains(reqs[0].Messages[1].Content, userKey) || !strings.Contains(reqs[1].Messages[1].Content, userKey) {
		t.Errorf("within its turn the model must read what the user typed")
	}
	second := reqs[2].Messages
	if c := second[1].Content; strings.Contains(c, userKey) || !strings.Contains(c, "[REDACTED:") {
		t.Errorf("a later turn must read the masked text, got %q", c)
	}
	for _, m := range reqs[1].Messages {
		if strings.Contains(m.Content, toolKey) {
			t.Errorf("a tool result's secret reached the model: %q", m.Content)
		}
		for _, c := range m.ToolCalls {
			if strings.Contains(c.Arguments, argKey) {
				t.Errorf("a tool argument's secret stays in the history: %s", c.Arguments)
			}
		}
	}
	// A restored session reads what the live one reads.
	r := newHarness(t, []scripted.Step{{Text: "x"}}, nil, nil)
	if err := r.e.Restore("s1", h.sink.all()); err != nil {
		t.Fatal(err)
	}
	if err := r.submit("Et maintenant ?"); err != nil {
		t.Fatal(err)
	}
	restored := r.p.Requests()[0].Messages
	if contents(restored[:len(restored)-1])[1] != contents(second)[1] {
		t.Errorf("restored user message %q differs from live %q", restored[1].Content, second[1].Content)
	}
}

func TestToolResultEventsCarryRisk(t *testing.T) {
	steps := []scripted.Step{scripted.Call("c1", "w", `{}`), {Text: "ok"}}
	h := newHarness(t, steps, []tools.Tool{&fakeTool{name: "w", risk: effect.RiskWrite}}, nil)
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	if r := last[event.ToolResultPayload](t, h.drain(), event.ToolResult); r.Risk != "write" {
		t.Errorf("ToolResult risk = %q", r.Risk)
	}
}
