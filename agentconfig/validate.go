package agentconfig

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrInvalid is wrapped by every FieldError, for errors.Is.
var ErrInvalid = errors.New("invalid agent config")

// Bounds Moteur adds where seed 000 names none, so that a typo (an extra
// zero) is refused rather than sent to a provider.
const (
	MaxTemperature         = 2.0 // the range OpenAI-compatible providers accept
	MaxWebSearchResultsCap = 50
	MaxHistoryTurns        = 100
)

// FieldError is a bad value of one field, named by its wire name.
type FieldError struct {
	Field  string // e.g. "access_level", "allowed_tools[2]"
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

func (e *FieldError) Unwrap() error { return ErrInvalid }

// Validate reports every bad value, each as a *FieldError (joined with
// errors.Join), or nil. It does not quote free-text values (a prompt may
// hold a secret pasted in the wrong place); enumerated values are quoted.
func (c *CustomAgentConfig) Validate() error {
	var errs []error
	add := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
	}
	oneOf(add, "agent_mode", c.AgentMode, true, ModeQuickAnswer, ModeSmartReasoning)
	oneOf(add, "access_level", c.AccessLevel, false, AccessReadOnly, AccessConfirm, AccessAutoWrite)
	oneOf(add, "reasoning_effort", c.ReasoningEffort, false, Efforts()...)
	oneOf(add, "kb_selection_mode", c.KBSelectionMode, false, SelectAll, SelectSelected, SelectNone)
	oneOf(add, "mcp_selection_mode", c.MCPSelectionMode, false, SelectAll, SelectSelected, SelectNone)
	oneOf(add, "skills_selection_mode", c.SkillsSelectionMode, false, SelectAll, SelectSelected, SelectNone)
	validateNumbers(c, add)
	names(add, "allowed_tools", c.AllowedTools)
	names(add, "mcp_services", c.MCPServices)
	names(add, "selected_skills", c.SelectedSkills)
	names(add, "knowledge_bases", c.KnowledgeBases)
	names(add, "supported_file_types", c.SupportedFileTypes)
	return errors.Join(errs...)
}

type addFunc func(field, format string, args ...any)

func validateNumbers(c *CustomAgentConfig, add addFunc) {
	switch {
	case math.IsNaN(c.Temperature) || math.IsInf(c.Temperature, 0):
		add("temperature", "must be a finite number")
	case c.Temperature > MaxTemperature:
		add("temperature", "%g is above %g", c.Temperature, MaxTemperature)
	}
	if c.MaxCompletionTokens < 0 {
		add("max_completion_tokens", "must not be negative (0 picks the default)")
	}
	if c.LLMCallTimeout < 0 {
		add("llm_call_timeout", "must not be negative (seconds; 0 means %d)", DefaultLLMCallTimeout)
	}
	if c.MCPAuthWaitTimeout < 0 {
		add("mcp_auth_wait_timeout", "must not be negative (seconds; 0 uses the gate's default)")
	}
	if c.WebSearchMaxResults < 0 || c.WebSearchMaxResults > MaxWebSearchResultsCap {
		add("web_search_max_results", "must be between 0 and %d (0 means %d)", MaxWebSearchResultsCap, DefaultWebSearchMaxResults)
	}
	if c.HistoryTurns < 0 || c.HistoryTurns > MaxHistoryTurns {
		add("history_turns", "must be between 0 and %d (0 means %d)", MaxHistoryTurns, DefaultHistoryTurns)
	}
}

// oneOf checks an enumerated value; an empty one is accepted unless
// required (EnsureDefaults fills it).
func oneOf(add addFunc, field, v string, required bool, allowed ...string) {
	if v == "" && !required {
		return
	}
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	want := strings.Join(allowed, ", ")
	if v == "" {
		add(field, "required: one of %s", want)
		return
	}
	add(field, "%q is not one of %s", v, want)
}

// names checks a list of identifiers: no empty entry, no duplicate, no
// control character.
func names(add addFunc, field string, list []string) {
	seen := make(map[string]bool, len(list))
	for i, n := range list {
		at := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case strings.TrimSpace(n) == "":
			add(at, "empty name")
		case strings.ContainsFunc(n, isControl):
			add(at, "contains a control character")
		case seen[n]:
			add(at, "%q is listed twice", n)
		}
		seen[n] = true
	}
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
