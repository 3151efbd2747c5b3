package hooks

// claudeToMoteur is the one table of Claude Code's tool names and the
// Moteur tools that do the same work; hook matchers and sub-agent `tools:`
// lists written for Claude Code are read through it.
var claudeToMoteur = map[string]string{
	"Bash":      "shell_exec",
	"Write":     "write_file",
	"Edit":      "edit_file",
	"MultiEdit": "edit_file",
	"Read":      "read_file",
	"Grep":      "grep",
	"Glob":      "glob",
	"WebFetch":  "web_fetch",
	"WebSearch": "web_search",
	"Task":      "agent",
}

// moteurToClaude is the reverse table. edit_file maps back to Edit, not
// MultiEdit: a single edit is the common shape hook scripts check for.
var moteurToClaude = map[string]string{
	"shell_exec": "Bash",
	"write_file": "Write",
	"edit_file":  "Edit",
	"read_file":  "Read",
	"grep":       "Grep",
	"glob":       "Glob",
	"web_fetch":  "WebFetch",
	"web_search": "WebSearch",
	"agent":      "Task",
}

// MoteurToolName returns the Moteur tool that does what Claude Code's tool
// claude does; false when claude is not one of Claude Code's tool names.
func MoteurToolName(claude string) (string, bool) {
	m, ok := claudeToMoteur[claude]
	return m, ok
}

// ClaudeToolName returns Claude Code's name for the Moteur tool moteur;
// false when Claude Code has no such tool.
func ClaudeToolName(moteur string) (string, bool) {
	c, ok := moteurToClaude[moteur]
	return c, ok
}
