package agentconfig

import "time"

// Seed 000's defaults (EnsureDefaults of internal/types/custom_agent.go and
// the runtime defaults it names).
const (
	DefaultTemperature = 0.7

	DefaultMaxTokensQuickAnswer    = 2048
	DefaultMaxTokensSmartReasoning = 4096
	DefaultMaxTokensSandbox        = 24576
	// MinMaxTokensSandbox is the floor of an explicit max_completion_tokens
	// with a sandbox: shell output and generated files need room.
	MinMaxTokensSandbox = 8192

	DefaultMaxIterations = 10
	// MaxIterationsCap is the service's hard cap: a larger value is lowered
	// to it and "unlimited" (negative) means it.
	MaxIterationsCap = 100
	// UnlimitedIterations is how EnsureDefaults writes any negative
	// max_iterations.
	UnlimitedIterations = -1

	DefaultLLMCallTimeout      = 120 // seconds
	DefaultWebSearchMaxResults = 5
	DefaultHistoryTurns        = 5
)

// DefaultAllowedTools is seed 000's DefaultAllowedTools: the built-in
// tools of an agent whose allowed_tools is null. web_search, web_fetch and
// search_memory are not in it: their switches decide.
func DefaultAllowedTools() []string {
	return []string{"search_knowledge", "read_document", "list_documents", "search_conversations"}
}

// EnsureDefaults fills what is unset with seed 000's defaults. It never
// turns a bad value into a good one except where the seed says so
// (temperature < 0), so Validate after it still reports a bad input.
func (c *CustomAgentConfig) EnsureDefaults() {
	if c.AgentMode == "" {
		c.AgentMode = ModeQuickAnswer
	}
	if c.IsAgentMode() {
		if c.AgentType == "" || !knownType(c.AgentType) {
			c.AgentType = TypeCustom
		}
		c.MultiTurnEnabled = true // smart-reasoning always loads history
	}
	if c.Temperature < 0 {
		c.Temperature = DefaultTemperature
	}
	c.MaxCompletionTokens = defaultMaxTokens(c)
	if c.CitationEnabled == nil {
		c.CitationEnabled = boolPtr(true)
	}
	if c.AccessLevel == "" {
		c.AccessLevel = AccessAutoWrite
	}
	c.MaxIterations = defaultIterations(c.MaxIterations)
	if c.LLMCallTimeout == 0 {
		c.LLMCallTimeout = DefaultLLMCallTimeout
	}
	if c.AllowedTools == nil {
		c.AllowedTools = DefaultAllowedTools()
	}
	ensureSelections(c)
	if c.WebSearchMaxResults == 0 {
		c.WebSearchMaxResults = DefaultWebSearchMaxResults
	}
	if c.HistoryTurns == 0 {
		c.HistoryTurns = DefaultHistoryTurns
	}
}

// defaultMaxTokens applies the runtime defaults: by mode when unset, and
// the sandbox floor when set lower. A negative value is left for Validate.
func defaultMaxTokens(c *CustomAgentConfig) int {
	n := c.MaxCompletionTokens
	switch {
	case n == 0 && c.HasSandbox():
		return DefaultMaxTokensSandbox
	case n == 0 && c.IsAgentMode():
		return DefaultMaxTokensSmartReasoning
	case n == 0:
		return DefaultMaxTokensQuickAnswer
	case n > 0 && n < MinMaxTokensSandbox && c.HasSandbox():
		return MinMaxTokensSandbox
	}
	return n
}

func defaultIterations(n int) int {
	switch {
	case n == 0:
		return DefaultMaxIterations
	case n < 0:
		return UnlimitedIterations
	case n > MaxIterationsCap:
		return MaxIterationsCap
	}
	return n
}

// ensureSelections picks a selection mode where none is set. Seed 000 gives
// none; Moteur's choice: knowledge bases listed → selected, else all (the
// quick answer needs bases and reading grants nothing); MCP and skills →
// selected when some are listed, else none, as an agent without an MCP
// selection mode gets no MCP service and skills run scripts.
func ensureSelections(c *CustomAgentConfig) {
	if c.KBSelectionMode == "" {
		c.KBSelectionMode = SelectAll
		if len(c.KnowledgeBases) > 0 {
			c.KBSelectionMode = SelectSelected
		}
	}
	c.MCPSelectionMode = listedOrNone(c.MCPSelectionMode, c.MCPServices)
	c.SkillsSelectionMode = listedOrNone(c.SkillsSelectionMode, c.SelectedSkills)
}

func listedOrNone(mode string, list []string) string {
	switch {
	case mode != "":
		return mode
	case len(list) > 0:
		return SelectSelected
	}
	return SelectNone
}

// EffectiveMaxIterations is the number of rounds the loop may run: the
// hard cap for unlimited, never more than it.
func (c *CustomAgentConfig) EffectiveMaxIterations() int {
	n := c.MaxIterations
	switch {
	case n < 0 || n > MaxIterationsCap:
		return MaxIterationsCap
	case n == 0:
		return DefaultMaxIterations
	}
	return n
}

// LLMCallTimeoutDuration is llm_call_timeout as a duration, 120 s when unset.
func (c *CustomAgentConfig) LLMCallTimeoutDuration() time.Duration {
	if c.LLMCallTimeout <= 0 {
		return DefaultLLMCallTimeout * time.Second
	}
	return time.Duration(c.LLMCallTimeout) * time.Second
}

// Citations reports whether answers cite their sources (unset: true).
func (c *CustomAgentConfig) Citations() bool {
	return c.CitationEnabled == nil || *c.CitationEnabled
}

func knownType(t string) bool {
	switch t {
	case TypeRAGQA, TypeDataAnalysis, TypeCustom:
		return true
	}
	return false
}

func boolPtr(b bool) *bool { return &b }
