package app

import (
	"fmt"

	"github.com/moteur/moteur/skills"
)

// Skills discovers the skills of the settings' project and of the user:
// the user's $XDG_CONFIG_HOME/moteur/skills, then the project's
// .moteur/skills, .agents/skills and .claude/skills, first wins, offered as
// the configuration's skills: selection says. Packages that cannot be used
// are in the set's Problems.
func (s *Settings) Skills() (*skills.Set, error) {
	sel, err := skills.ParseSelection(s.Config.SkillSelection, s.Config.SkillsSelected)
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	// A custom agent narrows the selection to its own.
	sel = agentSkills(sel, s.agent)
	return skills.Discover(skills.Config{ProjectRoot: s.opts.ProjectRoot, UserDir: skills.UserDir(s.opts.Env), Selection: sel}), nil
}
