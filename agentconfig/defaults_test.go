package agentconfig

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/moteur/moteur/strictyaml"
)

func TestEnsureDefaultsTable(t *testing.T) {
	qa, sr := ModeQuickAnswer, ModeSmartReasoning
	tru, fls := boolPtr(true), boolPtr(false)
	cases := []struct {
		name  string
		in    CustomAgentConfig
		check func(CustomAgentConfig) bool
	}{
		// temperature < 0 → 0.7; 0 and positive kept.
		{"temperature -0.1 → 0.7", CustomAgentConfig{Temperature: -0.1}, func(c CustomAgentConfig) bool { return c.Temperature == 0.7 }},
		{"temperature -5 → 0.7", CustomAgentConfig{Temperature: -5}, func(c CustomAgentConfig) bool { return c.Temperature == 0.7 }},
		{"temperature 0 kept", CustomAgentConfig{Temperature: 0}, func(c CustomAgentConfig) bool { return c.Temperature == 0 }},
		{"temperature 1.2 kept", CustomAgentConfig{Temperature: 1.2}, func(c CustomAgentConfig) bool { return c.Temperature == 1.2 }},
		// max_completion_tokens.
		{"tokens 0 quick-answer → 2048", CustomAgentConfig{AgentMode: qa}, tokens(2048)},
		{"tokens 0 empty mode → 2048", CustomAgentConfig{}, tokens(2048)},
		{"tokens 0 smart-reasoning → 4096", CustomAgentConfig{AgentMode: sr}, tokens(4096)},
		{"tokens 0 smart-reasoning + sandbox → 24576", CustomAgentConfig{AgentMode: sr, SandboxConfigID: "sb"}, tokens(24576)},
		{"tokens 1 sandbox → 8192", CustomAgentConfig{AgentMode: sr, SandboxConfigID: "sb", MaxCompletionTokens: 1}, tokens(8192)},
		{"tokens 8191 sandbox → 8192", CustomAgentConfig{AgentMode: sr, SandboxConfigID: "sb", MaxCompletionTokens: 8191}, tokens(8192)},
		{"tokens 8192 sandbox kept", CustomAgentConfig{AgentMode: sr, SandboxConfigID: "sb", MaxCompletionTokens: 8192}, tokens(8192)},
		{"tokens 9000 sandbox kept", CustomAgentConfig{AgentMode: sr, SandboxConfigID: "sb", MaxCompletionTokens: 9000}, tokens(9000)},
		{"tokens 1000 without sandbox kept", CustomAgentConfig{AgentMode: sr, MaxCompletionTokens: 1000}, tokens(1000)},
		{"tokens 1000 quick-answer with sandbox id kept", CustomAgentConfig{AgentMode: qa, SandboxConfigID: "sb", MaxCompletionTokens: 1000}, tokens(1000)},
		{"tokens 0 quick-answer with sandbox id → 2048", CustomAgentConfig{AgentMode: qa, SandboxConfigID: "sb"}, tokens(2048)},
		{"tokens negative left for Validate", CustomAgentConfig{MaxCompletionTokens: -1}, tokens(-1)},
		// citation_enabled.
		{"citation unset → true", CustomAgentConfig{}, func(c CustomAgentConfig) bool { return c.CitationEnabled != nil && *c.CitationEnabled && c.Citations() }},
		{"citation false kept", CustomAgentConfig{CitationEnabled: fls}, func(c CustomAgentConfig) bool { return !*c.CitationEnabled && !c.Citations() }},
		// access_level.
		{"access unset → auto_write", CustomAgentConfig{}, func(c CustomAgentConfig) bool { return c.AccessLevel == AccessAutoWrite }},
		{"access read_only kept", CustomAgentConfig{AccessLevel: AccessReadOnly}, func(c CustomAgentConfig) bool { return c.AccessLevel == AccessReadOnly }},
		{"access confirm kept", CustomAgentConfig{AccessLevel: AccessConfirm}, func(c CustomAgentConfig) bool { return c.AccessLevel == AccessConfirm }},
		// max_iterations.
		{"iterations 0 → 10", CustomAgentConfig{}, iterations(10, 10)},
		{"iterations 1 kept", CustomAgentConfig{MaxIterations: 1}, iterations(1, 1)},
		{"iterations 100 kept", CustomAgentConfig{MaxIterations: 100}, iterations(100, 100)},
		{"iterations 101 → 100", CustomAgentConfig{MaxIterations: 101}, iterations(100, 100)},
		{"iterations -1 unlimited, capped at 100", CustomAgentConfig{MaxIterations: -1}, iterations(-1, 100)},
		{"iterations -7 → -1, capped at 100", CustomAgentConfig{MaxIterations: -7}, iterations(-1, 100)},
		// llm_call_timeout.
		{"timeout 0 → 120 s", CustomAgentConfig{}, timeout(120)},
		{"timeout 30 kept", CustomAgentConfig{LLMCallTimeout: 30}, timeout(30)},
		// allowed_tools.
		{"tools null → default list", CustomAgentConfig{}, func(c CustomAgentConfig) bool { return reflect.DeepEqual(c.AllowedTools, DefaultAllowedTools()) }},
		{"tools [] → none", CustomAgentConfig{AllowedTools: []string{}}, func(c CustomAgentConfig) bool { return c.AllowedTools != nil && len(c.AllowedTools) == 0 }},
		{"tools listed kept", CustomAgentConfig{AllowedTools: []string{"shell_exec"}}, func(c CustomAgentConfig) bool { return reflect.DeepEqual(c.AllowedTools, []string{"shell_exec"}) }},
		// reasoning_effort over thinking.
		{"reasoning both absent → off", CustomAgentConfig{}, reasoning(EffortOff)},
		{"reasoning thinking true → auto", CustomAgentConfig{Thinking: tru}, reasoning(EffortAuto)},
		{"reasoning thinking false → off", CustomAgentConfig{Thinking: fls}, reasoning(EffortOff)},
		{"reasoning effort wins over thinking true", CustomAgentConfig{Thinking: tru, ReasoningEffort: EffortLow}, reasoning(EffortLow)},
		{"reasoning effort wins over thinking false", CustomAgentConfig{Thinking: fls, ReasoningEffort: EffortMax}, reasoning(EffortMax)},
		{"reasoning off wins over thinking true", CustomAgentConfig{Thinking: tru, ReasoningEffort: EffortOff}, reasoning(EffortOff)},
		// selections.
		{"kb unset, none listed → all", CustomAgentConfig{}, func(c CustomAgentConfig) bool { return c.KBSelectionMode == SelectAll }},
		{"kb unset, listed → selected", CustomAgentConfig{KnowledgeBases: []string{"a"}}, func(c CustomAgentConfig) bool { return c.KBSelectionMode == SelectSelected }},
		{"kb none kept", CustomAgentConfig{KBSelectionMode: SelectNone, KnowledgeBases: []string{"a"}}, func(c CustomAgentConfig) bool { return c.KBSelectionMode == SelectNone }},
		{"mcp unset → none", CustomAgentConfig{}, func(c CustomAgentConfig) bool { return c.MCPSelectionMode == SelectNone }},
		{"mcp unset, listed → selected", CustomAgentConfig{MCPServices: []string{"m"}}, func(c CustomAgentConfig) bool { return c.MCPSelectionMode == SelectSelected }},
		{"skills unset → none", CustomAgentConfig{}, func(c CustomAgentConfig) bool { return c.SkillsSelectionMode == SelectNone }},
		{"skills all kept", CustomAgentConfig{SkillsSelectionMode: SelectAll}, func(c CustomAgentConfig) bool { return c.SkillsSelectionMode == SelectAll }},
		// web.
		{"web max results 0 → 5", CustomAgentConfig{}, func(c CustomAgentConfig) bool { return c.WebSearchMaxResults == 5 && !c.WebSearchEnabled }},
		{"web max results 8 kept, on", CustomAgentConfig{WebSearchEnabled: true, WebSearchMaxResults: 8}, func(c CustomAgentConfig) bool { return c.WebSearchMaxResults == 8 && c.WebSearchEnabled }},
		// modes, multi-turn, history.
		{"mode unset → quick-answer", CustomAgentConfig{}, func(c CustomAgentConfig) bool { return c.AgentMode == qa && !c.IsAgentMode() && c.AgentType == "" }},
		{"smart-reasoning type unset → custom", CustomAgentConfig{AgentMode: sr}, func(c CustomAgentConfig) bool { return c.AgentType == TypeCustom }},
		{"smart-reasoning unknown type → custom", CustomAgentConfig{AgentMode: sr, AgentType: "weird"}, func(c CustomAgentConfig) bool { return c.AgentType == TypeCustom }},
		{"smart-reasoning rag-qa kept", CustomAgentConfig{AgentMode: sr, AgentType: TypeRAGQA}, func(c CustomAgentConfig) bool { return c.AgentType == TypeRAGQA }},
		{"smart-reasoning forces multi-turn", CustomAgentConfig{AgentMode: sr}, func(c CustomAgentConfig) bool { return c.MultiTurnEnabled }},
		{"quick-answer multi-turn off kept", CustomAgentConfig{AgentMode: qa}, func(c CustomAgentConfig) bool { return !c.MultiTurnEnabled }},
		{"history turns 0 → 5", CustomAgentConfig{}, func(c CustomAgentConfig) bool { return c.HistoryTurns == 5 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.in.Clone()
			c.EnsureDefaults()
			if !tc.check(c) {
				t.Errorf("after EnsureDefaults: %+v", c)
			}
			again := c.Clone()
			again.EnsureDefaults()
			if !reflect.DeepEqual(again, c) {
				t.Errorf("EnsureDefaults is not idempotent:\n%+v\n%+v", c, again)
			}
		})
	}
}

func tokens(n int) func(CustomAgentConfig) bool {
	return func(c CustomAgentConfig) bool { return c.MaxCompletionTokens == n }
}

func iterations(stored, effective int) func(CustomAgentConfig) bool {
	return func(c CustomAgentConfig) bool {
		return c.MaxIterations == stored && c.EffectiveMaxIterations() == effective
	}
}

func timeout(s int) func(CustomAgentConfig) bool {
	return func(c CustomAgentConfig) bool {
		return c.LLMCallTimeout == s && c.LLMCallTimeoutDuration() == time.Duration(s)*time.Second
	}
}

func reasoning(e string) func(CustomAgentConfig) bool {
	return func(c CustomAgentConfig) bool { return c.Reasoning() == e }
}

// null and [] in allowed_tools mean different things; both must survive a
// trip through JSON and YAML, and EnsureDefaults after it.
func TestAllowedToolsNullAndEmptySurviveRoundTrips(t *testing.T) {
	decodeJSON := func(s string) CustomAgentConfig {
		var c CustomAgentConfig
		if err := json.Unmarshal([]byte(s), &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	decodeYAML := func(s string) CustomAgentConfig {
		var c CustomAgentConfig
		if _, err := strictyaml.Decode([]byte(s), &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for name, c := range map[string]CustomAgentConfig{
		"json []":   decodeJSON(`{"agent_mode":"quick-answer","allowed_tools":[]}`),
		"yaml []":   decodeYAML("agent_mode: quick-answer\nallowed_tools: []\n"),
		"json null": decodeJSON(`{"agent_mode":"quick-answer","allowed_tools":null}`),
		"json none": decodeJSON(`{"agent_mode":"quick-answer"}`),
		"yaml null": decodeYAML("agent_mode: quick-answer\nallowed_tools: null\n"),
		"yaml none": decodeYAML("agent_mode: quick-answer\n"),
	} {
		wantEmpty := name == "json []" || name == "yaml []"
		if (c.AllowedTools != nil) != wantEmpty {
			t.Fatalf("%s decoded as %#v", name, c.AllowedTools)
		}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		back := decodeJSON(string(out))
		back.EnsureDefaults()
		if wantEmpty && (back.AllowedTools == nil || len(back.AllowedTools) != 0) {
			t.Errorf("%s: [] became %#v after %s", name, back.AllowedTools, out)
		}
		if !wantEmpty && !reflect.DeepEqual(back.AllowedTools, DefaultAllowedTools()) {
			t.Errorf("%s: null became %#v", name, back.AllowedTools)
		}
	}
}
