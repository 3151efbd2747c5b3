package agentconfig

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestValidateMessages(t *testing.T) {
	base := func() CustomAgentConfig {
		c := CustomAgentConfig{AgentMode: ModeSmartReasoning}
		c.EnsureDefaults()
		return c
	}
	cases := []struct {
		name   string
		change func(*CustomAgentConfig)
		want   string
	}{
		{"mode missing", func(c *CustomAgentConfig) { c.AgentMode = "" }, "agent_mode: required: one of quick-answer, smart-reasoning"},
		{"mode unknown", func(c *CustomAgentConfig) { c.AgentMode = "fast" }, `agent_mode: "fast" is not one of quick-answer, smart-reasoning`},
		{"access", func(c *CustomAgentConfig) { c.AccessLevel = "write" }, `access_level: "write" is not one of read_only, confirm, auto_write`},
		{"effort", func(c *CustomAgentConfig) { c.ReasoningEffort = "extreme" }, `reasoning_effort: "extreme" is not one of off, auto, minimal, low, medium, high, xhigh, max`},
		{"kb mode", func(c *CustomAgentConfig) { c.KBSelectionMode = "some" }, `kb_selection_mode: "some" is not one of all, selected, none`},
		{"mcp mode", func(c *CustomAgentConfig) { c.MCPSelectionMode = "any" }, `mcp_selection_mode: "any" is not one of all, selected, none`},
		{"skills mode", func(c *CustomAgentConfig) { c.SkillsSelectionMode = "x" }, `skills_selection_mode: "x" is not one of`},
		{"temperature NaN", func(c *CustomAgentConfig) { c.Temperature = math.NaN() }, "temperature: must be a finite number"},
		{"temperature high", func(c *CustomAgentConfig) { c.Temperature = 7 }, "temperature: 7 is above 2"},
		{"tokens negative", func(c *CustomAgentConfig) { c.MaxCompletionTokens = -1 }, "max_completion_tokens: must not be negative"},
		{"timeout negative", func(c *CustomAgentConfig) { c.LLMCallTimeout = -1 }, "llm_call_timeout: must not be negative (seconds; 0 means 120)"},
		{"mcp wait negative", func(c *CustomAgentConfig) { c.MCPAuthWaitTimeout = -3 }, "mcp_auth_wait_timeout: must not be negative"},
		{"web results high", func(c *CustomAgentConfig) { c.WebSearchMaxResults = 51 }, "web_search_max_results: must be between 0 and 50 (0 means 5)"},
		{"web results negative", func(c *CustomAgentConfig) { c.WebSearchMaxResults = -1 }, "web_search_max_results: must be between 0 and 50"},
		{"history negative", func(c *CustomAgentConfig) { c.HistoryTurns = -1 }, "history_turns: must be between 0 and 100"},
		{"tool empty", func(c *CustomAgentConfig) { c.AllowedTools = []string{"read_document", " "} }, "allowed_tools[1]: empty name"},
		{"tool twice", func(c *CustomAgentConfig) { c.AllowedTools = []string{"a", "b", "a"} }, `allowed_tools[2]: "a" is listed twice`},
		{"kb control char", func(c *CustomAgentConfig) { c.KnowledgeBases = []string{"a\nb"} }, "knowledge_bases[0]: contains a control character"},
		{"skill twice", func(c *CustomAgentConfig) { c.SelectedSkills = []string{"s", "s"} }, `selected_skills[1]: "s" is listed twice`},
		{"mcp empty", func(c *CustomAgentConfig) { c.MCPServices = []string{""} }, "mcp_services[0]: empty name"},
		{"file type empty", func(c *CustomAgentConfig) { c.SupportedFileTypes = []string{""} }, "supported_file_types[0]: empty name"},
	}
	ok := base()
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	for _, tc := range cases {
		c := base()
		tc.change(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			continue
		}
		var fe *FieldError
		if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) || !strings.HasPrefix(tc.want, fe.Field+":") {
			t.Errorf("%s: not a FieldError naming the field: %#v", tc.name, err)
		}
	}
}

func TestValidateReportsEveryBadField(t *testing.T) {
	c := CustomAgentConfig{AgentMode: "x", AccessLevel: "y", MaxCompletionTokens: -1}
	err := c.Validate()
	for _, f := range []string{"agent_mode:", "access_level:", "max_completion_tokens:"} {
		if err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("missing %s in %v", f, err)
		}
	}
}

func TestEmptyOptionalEnumsAreValidBeforeDefaults(t *testing.T) {
	c := CustomAgentConfig{AgentMode: ModeQuickAnswer}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}
