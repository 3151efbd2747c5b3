// Package agents owns the sub-agent catalog (seed 003's agents.Catalog):
// the agents the `agent` tool may start, read from Claude Code's sub-agent
// file format in .moteur/agents/*.md, the user's
// $XDG_CONFIG_HOME/moteur/agents/*.md and the shared .claude/agents/*.md,
// plus the built-in general-purpose agent and read-only explorer. A Catalog
// is immutable once built and safe for concurrent use.
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
	// Source is the file it was read from, or "builtin".
	Source string
}

// Catalog is the set of sub-agents of a session, by name.
type Catalog struct {
	agents []Agent // sorted by name
	byName map[string]int
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
