package agents

import (
	"path/filepath"

	"github.com/moteur/moteur/i18n"
)

// ToolName is the name of the tool that starts a sub-agent.
const ToolName = "agent"

// Config says where Load reads agent files and what they are checked
// against. The zero value is a catalog of the two built-ins only.
type Config struct {
	// ProjectDir is the project root: its .moteur/agents/*.md and
	// .claude/agents/*.md are read ("": none).
	ProjectDir string
	// UserDir is the user's agent directory, usually UserDir(os.Getenv)
	// ("": none; tests and embedders keep the user's files out this way).
	UserDir string
	// Tools are the tool names the session has; a `tools:` entry naming
	// another one is reported and left out. nil: not checked (entries are
	// still mapped from Claude Code's names; ToolsFor drops what the parent
	// lacks in any case).
	Tools []string
	// MapTool maps a name Moteur's table does not know, such as Claude
	// Code's mcp__server__tool, to a Moteur tool name (nil: none).
	MapTool func(name string) (string, bool)
	// Models are the configured model names; `model:` naming another one
	// (Claude Code's sonnet, opus, haiku included, unless configured) is
	// reported and the agent runs on its parent's model. "inherit" is
	// always the parent's.
	Models []string
	// MaxDepth is how many levels of sub-agents may run below the main
	// agent (0: 1, children only: they get no `agent` tool).
	MaxDepth int
	// Lang is the language of the built-ins' descriptions and prompts.
	Lang i18n.Lang
}

// UserDir is the user's agent directory, $XDG_CONFIG_HOME/moteur/agents
// (XDG_CONFIG_HOME defaulting to $HOME/.config; a relative value is
// ignored, as the XDG spec says); "" when neither is set.
func UserDir(getenv func(string) string) string {
	base := getenv("XDG_CONFIG_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "moteur", "agents")
}

func (c Config) maxDepth() int {
	if c.MaxDepth < 1 {
		return 1
	}
	return c.MaxDepth
}
