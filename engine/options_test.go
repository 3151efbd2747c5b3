package engine

import (
	"encoding/json"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/tools"
)

// wireOptions are the request options as a server reads them.
type wireOptions struct {
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature"`
	MaxTokens   int      `json:"max_tokens"`
	Thinking    *struct {
		Type string `json:"type"`
	} `json:"thinking"`
}

func decodeOptions(t *testing.T, body []byte) wireOptions {
	t.Helper()
	var w wireOptions
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	return w
}

// TestAgentOptionsReachTheWire: Deps.Temperature, MaxTokens and NoThinking
// are in the body of every request the server receives — a round with a
// tool call and the round after it — and AgentID is in SessionStarted.
func TestAgentOptionsReachTheWire(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("c1", "probe", `{"q":"x"}`),
		openaitest.Answer("fini"))
	client, err := openai.New(openai.Config{BaseURL: srv.BaseURL(), Model: "m-agent",
		NoThinking: json.RawMessage(`{"thinking":{"type":"disabled"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	temp := 0.25
	probe := &fakeTool{name: "probe", concurrent: true}
	h := newHarness(t, nil, []tools.Tool{probe}, func(d *Deps) {
		d.Provider = client
		d.Temperature, d.MaxTokens, d.NoThinking, d.AgentID = &temp, 777, true, "ag-1"
	})
	if err := h.submit("bonjour"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the server received %d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		w := decodeOptions(t, r.Body)
		if w.Model != "m-agent" || w.Temperature == nil || *w.Temperature != 0.25 || w.MaxTokens != 777 ||
			w.Thinking == nil || w.Thinking.Type != "disabled" {
			t.Errorf("request %d: %s, want model m-agent, temperature 0.25, max_tokens 777 and thinking off", i+1, r.Body)
		}
	}
	started := last[event.SessionStartedPayload](t, h.drain(), event.SessionStarted)
	if started.Agent != "ag-1" {
		t.Errorf("SessionStarted.Agent = %q, want ag-1", started.Agent)
	}
}

// TestNoAgentOptionsSendNone: without them the body carries no
// temperature, no max_tokens and no thinking switch (the server's
// defaults), as before custom agents.
func TestNoAgentOptionsSendNone(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("ok"))
	client, err := openai.New(openai.Config{BaseURL: srv.BaseURL(), Model: "m",
		NoThinking: json.RawMessage(`{"thinking":{"type":"disabled"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, nil, nil, func(d *Deps) { d.Provider = client })
	if err := h.submit("bonjour"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the server received %d requests, want 1", len(reqs))
	}
	if w := decodeOptions(t, reqs[0].Body); w.Temperature != nil || w.MaxTokens != 0 || w.Thinking != nil {
		t.Errorf("request: %s, want no temperature, max_tokens nor thinking", reqs[0].Body)
	}
	if started := last[event.SessionStartedPayload](t, h.drain(), event.SessionStarted); started.Agent != "" {
		t.Errorf("SessionStarted.Agent = %q, want none", started.Agent)
	}
}

// TestAgentOptionsReachSubAgents: a sub-agent's requests carry them too.
func TestAgentOptionsReachSubAgents(t *testing.T) {
	temp := 0.5
	h, fp := agentHarness(t, childScript("probe", "A"), []tools.Tool{&fakeTool{name: "probe", concurrent: true}},
		func(d *Deps) { d.Temperature, d.MaxTokens = &temp, 321 })
	if err := h.submit("cherche"); err != nil {
		t.Fatal(err)
	}
	children := 0
	for i, r := range fp.requests() {
		if isChild(r) {
			children++
		}
		if r.Temperature == nil || *r.Temperature != 0.5 || r.MaxTokens != 321 {
			t.Errorf("request %d (child %v): temperature %v, max tokens %d, want 0.5 and 321", i+1, isChild(r), r.Temperature, r.MaxTokens)
		}
	}
	if children == 0 {
		t.Fatal("no sub-agent request was made")
	}
}
