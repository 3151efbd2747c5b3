package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// effortSent is the reasoning_effort of the n-th request the model got
// ("" when absent).
func effortSent(t *testing.T, ts *testServer, n int) string {
	t.Helper()
	reqs := ts.model.Requests()
	if len(reqs) <= n {
		t.Fatalf("%d model requests, want request %d", len(reqs), n+1)
	}
	var w struct {
		Effort *string `json:"reasoning_effort"`
	}
	if err := json.Unmarshal(reqs[n].Body, &w); err != nil {
		t.Fatal(err)
	}
	if w.Effort == nil {
		return ""
	}
	return *w.Effort
}

// effortAgent stores a smart-reasoning agent whose reasoning effort is
// low.
func effortAgent(ts *testServer) agentconfig.Agent {
	return ts.newAgent("pensif", agentconfig.CustomAgentConfig{AgentMode: agentconfig.ModeSmartReasoning, ReasoningEffort: "low"})
}

// The chat routes refuse an unknown reasoning_effort, naming the field and
// the valid values, before any turn; a valid one overrides the agent's.
func TestChatReasoningEffort(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("un"), openaitest.Answer("deux"))
	agent := effortAgent(ts)
	id := ts.newSession()
	for _, route := range []string{"/api/v1/agent-chat/", "/api/v1/knowledge-chat/"} {
		msg := wantError(t, ts.do("POST", route+id, ts.key, map[string]any{"query": "q", "agent_id": agent.ID, "reasoning_effort": "turbo"}),
			http.StatusBadRequest, CodeInvalidField)
		if !strings.Contains(msg, `reasoning_effort "turbo"`) || !strings.Contains(msg, "off, auto, minimal, low, medium, high, xhigh, max") {
			t.Errorf("%s: message %q: want the field and the valid values", route, msg)
		}
	}
	if n := len(ts.model.Requests()); n != 0 {
		t.Fatalf("%d model requests after refused bodies", n)
	}
	frames := streamOf(t, ts.do("POST", "/api/v1/agent-chat/"+id, ts.key,
		map[string]any{"query": "q", "agent_id": agent.ID, "reasoning_effort": "high"})).until(t, string(event.TurnCompleted))
	if len(frames) == 0 {
		t.Fatal("no TurnCompleted")
	}
	if got := effortSent(t, ts, 0); got != "high" {
		t.Errorf("with reasoning_effort high: the model was asked %q", got)
	}
	// Another session: the first one's turn may still be closing.
	streamOf(t, ts.do("POST", "/api/v1/agent-chat/"+ts.newSession(), ts.key, map[string]any{"query": "q", "agent_id": agent.ID})).
		until(t, string(event.TurnCompleted))
	if got := effortSent(t, ts, 1); got != "low" {
		t.Errorf("without reasoning_effort: the model was asked %q, want the agent's low", got)
	}
}

// The OpenAI door honours reasoning_effort: a level overrides the agent's,
// OpenAI's "none" is off; an unknown value or a non-string is refused,
// naming the field.
func TestDoorReasoningEffort(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("un"), openaitest.Answer("deux"))
	agent := effortAgent(ts)
	for _, bad := range []any{"ultra", 3} {
		msg := wantOpenAIError(t, ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "messages": []any{userMessage("q")},
			"reasoning_effort": bad}), http.StatusBadRequest, CodeInvalidField)
		if !strings.Contains(msg, `"reasoning_effort"`) || !strings.Contains(msg, "none, off, auto, minimal") {
			t.Errorf("reasoning_effort %v: message %q: want the field and the valid values", bad, msg)
		}
	}
	if n := len(ts.model.Requests()); n != 0 {
		t.Fatalf("%d model requests after refused bodies", n)
	}
	decodeJSON(t, ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "messages": []any{userMessage("q")},
		"reasoning_effort": "medium"}), http.StatusOK, nil)
	if got := effortSent(t, ts, 0); got != "medium" {
		t.Errorf("reasoning_effort medium: the model was asked %q", got)
	}
	decodeJSON(t, ts.openAIPost(ts.key, map[string]any{"model": agent.ID, "messages": []any{userMessage("q")},
		"reasoning_effort": "none"}), http.StatusOK, nil)
	if got := effortSent(t, ts, 1); got != "" {
		t.Errorf("reasoning_effort none: the model was asked %q, want nothing (thinking off)", got)
	}
}
