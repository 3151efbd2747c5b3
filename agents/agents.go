// Package agents owns the sub-agent catalog (seed 003's agents.Catalog):
// the agents the `agent` tool may start, read from Claude Code's sub-agent
// file format in .moteur/agents/*.md, the user's
// $XDG_CONFIG_HOME/moteur/agents/*.md and the shared .claude/agents/*.md,
// plus the built-in general-purpose agent and read-only explorer. A Catalog
// is immutable once built and safe for concurrent use.
//
// Decisions, so that the engine and the README agree:
//   - Order and duplicates: .moteur/agents (project), then .claude/agents
//     (project), then the user's directory, then the built-ins; within a
//     directory, files by name. The first agent of a name wins and every
//     later one is reported. Project before user is Claude Code's order
//     (project > personal), so a shared .claude/agents file means the same
//     in both; an agent only narrows its parent's tools, so letting the
//     project win grants nothing.
//   - A file may replace a built-in of the same name (reported, kept):
//     the replacement has no more rights than any child.
//   - A tool in `tools:` that is unknown, not in the session, or written
//     with an argument pattern (Bash(git *)) is reported and left out: the
//     agent is kept with a narrower list, never a wider one (an allowlist
//     emptied this way gives no tools, not every tool).
//   - An unknown model is reported and the agent runs on its parent's.
//   - A file without front matter, without name or description, with a bad
//     name or a field of the wrong type is reported and skipped. Nothing in
//     a file is fatal to the catalog.
package agents

// Agent is one sub-agent.
type Agent struct {
	// Name is what `agent`'s subagent_type names.
	Name string
	// Description tells the model when to use it.
	Description string
	// Tools is the allowlist of Moteur tool names the agent may use (Claude
	// Code names in a file are mapped to Moteur's); nil: every tool of its
	// parent. It can only narrow the parent's tools.
	Tools []string
	// Model is the model it asks for ("": its parent's).
	Model string
	// Prompt is its system prompt: the file's body (for a built-in, its
	// own), added after the base prompt and the preamble.
	Prompt string
	// Denied are Moteur tool names removed from its tools whatever Tools
	// says (Claude Code's disallowedTools).
	Denied []string
	// Source is the file it was read from, or "builtin".
	Source string
	// Line is the first line of the prompt in Source (0 for a built-in).
	Line int
	// Extra holds the front matter's other keys as read (color,
	// permissionMode, …): kept for listing, never applied.
	Extra map[string]any
}

// Builtin is the Source of a built-in agent.
const Builtin = "builtin"

// Catalog is the set of sub-agents of a session, by name.
type Catalog struct {
	agents   []Agent // sorted by name
	byName   map[string]int
	maxDepth int // >= 1
}

// Lookup returns the agent named name.
func (c *Catalog) Lookup(name string) (Agent, bool) {
	if c == nil {
		return Agent{}, false
	}
	i, ok := c.byName[name]
	if !ok {
		return Agent{}, false
	}
	return c.agents[i], true
}

// List returns every agent, sorted by name.
func (c *Catalog) List() []Agent {
	if c == nil {
		return nil
	}
	return append([]Agent(nil), c.agents...)
}
