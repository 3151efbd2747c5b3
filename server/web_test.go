package server

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// toolsOffered are the tool names of the n-th request the model got.
func toolsOffered(t *testing.T, ts *testServer, n int) []string {
	t.Helper()
	reqs := ts.model.Requests()
	if len(reqs) <= n {
		t.Fatalf("%d model requests, want request %d", len(reqs), n+1)
	}
	var w struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(reqs[n].Body, &w); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range w.Tools {
		out = append(out, tl.Function.Name)
	}
	return out
}

// The agent route offers the web tools when the request's
// web_search_enabled turns them on, or the agent's does; neither: none.
func TestChatWebSwitch(t *testing.T) {
	ts := newTestServer(t, testOptions{}, openaitest.Answer("un"), openaitest.Answer("deux"), openaitest.Answer("trois"))
	off := ts.newAgent("sans-web", agentconfig.CustomAgentConfig{AgentMode: agentconfig.ModeSmartReasoning})
	on := ts.newAgent("avec-web", agentconfig.CustomAgentConfig{AgentMode: agentconfig.ModeSmartReasoning, WebSearchEnabled: true})
	for i, tc := range []struct {
		agent string
		web   bool
		want  bool
	}{
		{off.ID, false, false},
		{off.ID, true, true},
		{on.ID, false, true},
	} {
		streamOf(t, ts.do("POST", "/api/v1/agent-chat/"+ts.newSession(), ts.key,
			map[string]any{"query": "q", "agent_id": tc.agent, "web_search_enabled": tc.web})).until(t, string(event.TurnCompleted))
		if got := slices.Contains(toolsOffered(t, ts, i), "web_fetch"); got != tc.want {
			t.Errorf("agent %s, web_search_enabled %t: web_fetch offered %t, want %t (tools %q)", tc.agent, tc.web, got, tc.want, toolsOffered(t, ts, i))
		}
	}
}
