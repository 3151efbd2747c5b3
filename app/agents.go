package app

import (
	"github.com/moteur/moteur/agents"
)

// Agents is the sub-agent catalog of the settings' project and user: the
// project's .moteur/agents and .claude/agents, the user's
// $XDG_CONFIG_HOME/moteur/agents, then the built-ins, first wins. tools are
// the session's tool names, against which the files' tools: lists are
// checked (nil: not checked). What cannot be used is returned as warnings;
// the other agents are kept.
func (s *Settings) Agents(tools []string) (*agents.Catalog, []string) {
	var models []string
	for _, p := range s.Config.Providers {
		models = append(models, p.Model)
	}
	cat, errs := agents.Load(agents.Config{ProjectDir: s.opts.ProjectRoot, UserDir: agents.UserDir(s.opts.Env),
		Tools: tools, Models: models, Lang: s.Lang, MaxDepth: s.Config.AgentsMaxDepth})
	var warnings []string
	for _, err := range errs {
		warnings = append(warnings, "agents: "+err.Error())
	}
	return cat, warnings
}
