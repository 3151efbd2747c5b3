package app

import (
	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/engine"
)

// engine makes the engine of a live session from deps, with what every
// engine of a session gets, whether it runs turns or rewinds: the project,
// the rules of the configuration, the checkpoints, the session's sinks and
// the outbound check with the settings' one classifier. The access mode
// and the sandbox are not given: the engine derives them from the
// permissions and the tools. The session's reasoning effort is applied
// here, to what Open prepared: its providers ask it.
func (s *Settings) engine(deps engine.Deps, cps *checkpoint.Store, ls *liveSession) (*engine.Engine, error) {
	cfg := s.Config
	out, err := s.outbound()
	if err != nil {
		return nil, err
	}
	if effort := s.reasoningEffort(); effort != "" {
		var level string
		deps.NoThinking, level = agentconfig.RequestEffort(effort)
		if deps.Provider, deps.Router, err = s.withEffort(deps.Provider, deps.Router, level); err != nil {
			return nil, err
		}
	}
	deps.ProjectRoot = s.ProjectRoot()
	deps.Lang = s.Lang
	deps.Now = s.opts.Now
	deps.Permissions = s.Permissions
	deps.Profile = cfg.Profile.Name
	deps.Policy = cfg.Policy
	deps.Allowlists = cfg.Allowlists
	deps.Outbound = out
	deps.Checkpoints = cps
	deps.Sinks = ls.sinks()
	return engine.New(deps)
}
