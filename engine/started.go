package engine

import (
	"slices"

	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/event"
)

// sessionStarted describes what this process runs a session with: the
// record an auditor reads to know which rules were in force.
func (e *Engine) sessionStarted() event.SessionStartedPayload {
	d := e.deps
	c := e.defaultCandidate()
	p := event.SessionStartedPayload{
		Provider: c.Provider.Name(), Model: c.Provider.Model(), Local: c.Local, ProjectRoot: d.ProjectRoot,
		Instructions: d.Instructions, Tools: d.Tools.Names(), MaxIterations: d.MaxIterations,
		Lang: string(d.Lang), Profile: string(e.profile.Name), Mode: string(d.Mode),
		Routing: d.Routing, Sandbox: d.Sandbox, MCP: d.MCP, Agent: d.AgentID,
	}
	for _, l := range d.Allowlists {
		if !l.Empty() {
			p.Allowlists = append(p.Allowlists, l.Entries())
		}
	}
	if pol := d.Policy; pol != nil {
		p.Policy = &event.PolicyInfo{Path: pol.Path, AllowedHosts: pol.AllowedHosts.Entries(),
			DeniedTools: pol.DeniedTools, Profile: string(pol.Profile), MinMode: string(pol.MinMode)}
	}
	if d.Agents != nil && !slices.Contains(p.Tools, agents.ToolName) {
		p.Tools = append(slices.Clone(p.Tools), agents.ToolName)
		slices.Sort(p.Tools)
	}
	if p.Routing == nil && d.Router != nil {
		p.Routing = &event.RoutingInfo{}
		for _, rc := range d.Router.Candidates(false) {
			p.Routing.Candidates = append(p.Routing.Candidates, event.RouteCandidate{
				Provider: rc.Provider.Name(), Model: rc.Provider.Model(), Host: hostOf(rc.Endpoint), Local: rc.Local})
		}
	}
	return p
}
