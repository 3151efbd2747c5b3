// Package agentconfig owns the custom agents of seed 000: the
// CustomAgentConfig an "Agents" page or `moteur agents` edits, its
// EnsureDefaults and Validate, the type presets that prefill the editor
// (rag-qa, data-analysis, custom) and the built-in agents, both read from
// YAML files embedded in the binary.
//
// It holds data and rules only: storing agents, running them and mapping a
// config onto a provider request belong to their callers. A
// CustomAgentConfig is a plain value with no locking; the catalogue of
// presets and built-ins is decoded once and every accessor returns a deep
// copy, so callers may modify what they get and use the package from many
// goroutines.
package agentconfig

// Agent modes (agent_mode). Only smart-reasoning runs the agent loop; any
// other mode is the quick answer (seed 000: "seul Config.AgentMode ==
// smart-reasoning active Agent").
const (
	ModeQuickAnswer    = "quick-answer"
	ModeSmartReasoning = "smart-reasoning"
)

// Agent types (agent_type): the preset a smart-reasoning agent came from.
// An empty or unknown type is custom.
const (
	TypeRAGQA        = "rag-qa"
	TypeDataAnalysis = "data-analysis"
	TypeCustom       = "custom"
)

// Access levels (access_level): what the agent may do without asking.
const (
	AccessReadOnly  = "read_only"
	AccessConfirm   = "confirm"
	AccessAutoWrite = "auto_write"
)

// Selection modes of knowledge bases, MCP services and skills.
const (
	SelectAll      = "all"
	SelectSelected = "selected"
	SelectNone     = "none"
)

// CustomAgentConfig is seed 000's CustomAgentConfig: what an agent's editor
// sets. Field names on the wire are seed 000's snake_case names.
//
// Pointers mark the fields whose absence means something other than their
// zero value (citation_enabled unset is true, memory_enabled unset inherits).
// AllowedTools has no omitempty on purpose: null means the default list and
// [] means no built-in tool, and omitempty would turn [] into null on the way
// out.
type CustomAgentConfig struct {
	// Base.
	AgentMode         string `json:"agent_mode" yaml:"agent_mode"`
	AgentType         string `json:"agent_type,omitempty" yaml:"agent_type,omitempty"`
	SystemPrompt      string `json:"system_prompt,omitempty" yaml:"system_prompt,omitempty"`
	SystemPromptID    string `json:"system_prompt_id,omitempty" yaml:"system_prompt_id,omitempty"`
	ContextTemplate   string `json:"context_template,omitempty" yaml:"context_template,omitempty"`
	ContextTemplateID string `json:"context_template_id,omitempty" yaml:"context_template_id,omitempty"`

	// Model.
	ModelID             string  `json:"model_id,omitempty" yaml:"model_id,omitempty"`
	RerankModelID       string  `json:"rerank_model_id,omitempty" yaml:"rerank_model_id,omitempty"`
	Temperature         float64 `json:"temperature" yaml:"temperature"`
	MaxCompletionTokens int     `json:"max_completion_tokens" yaml:"max_completion_tokens"`
	Thinking            *bool   `json:"thinking,omitempty" yaml:"thinking,omitempty"`
	ReasoningEffort     string  `json:"reasoning_effort,omitempty" yaml:"reasoning_effort,omitempty"`
	CitationEnabled     *bool   `json:"citation_enabled,omitempty" yaml:"citation_enabled,omitempty"`

	// Agent.
	AccessLevel    string   `json:"access_level,omitempty" yaml:"access_level,omitempty"`
	MaxIterations  int      `json:"max_iterations" yaml:"max_iterations"`
	LLMCallTimeout int      `json:"llm_call_timeout" yaml:"llm_call_timeout"` // seconds without stream output
	AllowedTools   []string `json:"allowed_tools" yaml:"allowed_tools"`

	// MCP.
	MCPSelectionMode   string   `json:"mcp_selection_mode,omitempty" yaml:"mcp_selection_mode,omitempty"`
	MCPServices        []string `json:"mcp_services,omitempty" yaml:"mcp_services,omitempty"`
	MCPAuthWaitTimeout int      `json:"mcp_auth_wait_timeout,omitempty" yaml:"mcp_auth_wait_timeout,omitempty"` // seconds; 0: the gate's default

	// Skills.
	SkillsSelectionMode string   `json:"skills_selection_mode,omitempty" yaml:"skills_selection_mode,omitempty"`
	SelectedSkills      []string `json:"selected_skills,omitempty" yaml:"selected_skills,omitempty"`
	SandboxConfigID     string   `json:"sandbox_config_id,omitempty" yaml:"sandbox_config_id,omitempty"`

	// Memory: nil inherits the workspace's setting; false neither reads nor
	// writes memory for this agent.
	MemoryEnabled *bool `json:"memory_enabled,omitempty" yaml:"memory_enabled,omitempty"`

	// Knowledge bases.
	KBSelectionMode             string   `json:"kb_selection_mode,omitempty" yaml:"kb_selection_mode,omitempty"`
	KnowledgeBases              []string `json:"knowledge_bases,omitempty" yaml:"knowledge_bases,omitempty"`
	RetrieveKBOnlyWhenMentioned bool     `json:"retrieve_kb_only_when_mentioned,omitempty" yaml:"retrieve_kb_only_when_mentioned,omitempty"`
	RetainRetrievalHistory      bool     `json:"retain_retrieval_history,omitempty" yaml:"retain_retrieval_history,omitempty"`

	// Files.
	SupportedFileTypes []string `json:"supported_file_types,omitempty" yaml:"supported_file_types,omitempty"`

	// Web.
	WebSearchEnabled    bool `json:"web_search_enabled" yaml:"web_search_enabled"`
	WebSearchMaxResults int  `json:"web_search_max_results,omitempty" yaml:"web_search_max_results,omitempty"`

	// Multi-turn.
	MultiTurnEnabled bool `json:"multi_turn_enabled" yaml:"multi_turn_enabled"`
	HistoryTurns     int  `json:"history_turns,omitempty" yaml:"history_turns,omitempty"`
}

// IsAgentMode reports whether the config runs the agent loop; a
// quick-answer agent on the agent route is downgraded to the quick answer.
func (c *CustomAgentConfig) IsAgentMode() bool { return c.AgentMode == ModeSmartReasoning }

// HasSandbox reports whether a smart-reasoning agent is bound to a sandbox,
// which raises its output budget (scripts and generated files).
func (c *CustomAgentConfig) HasSandbox() bool {
	return c.IsAgentMode() && c.SandboxConfigID != ""
}

// Clone returns a deep copy.
func (c CustomAgentConfig) Clone() CustomAgentConfig {
	c.Thinking = cloneBool(c.Thinking)
	c.CitationEnabled = cloneBool(c.CitationEnabled)
	c.MemoryEnabled = cloneBool(c.MemoryEnabled)
	c.AllowedTools = cloneList(c.AllowedTools)
	c.MCPServices = cloneList(c.MCPServices)
	c.SelectedSkills = cloneList(c.SelectedSkills)
	c.KnowledgeBases = cloneList(c.KnowledgeBases)
	c.SupportedFileTypes = cloneList(c.SupportedFileTypes)
	return c
}

func cloneBool(p *bool) *bool {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneList keeps nil nil and [] empty: the difference is meaningful for
// allowed_tools.
func cloneList(s []string) []string {
	if s == nil {
		return nil
	}
	return append(make([]string, 0, len(s)), s...)
}
