package app

import (
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/web"
)

// The web tools (web_search, web_fetch) are not among an agent's allowed
// tools: seed 000 switches them on per agent and per request. A session
// offers them when
//
//   - the options ask for them (`--web`, a request's web_search_enabled),
//   - else its custom agent's web_search_enabled says so,
//   - else, with no agent, the user's configuration has a web: section;
//
// and never with Options.NoWeb (`--no-web`) nor in a profile that registers
// no web tool (airgapped). web_fetch needs no search provider: without
// web.search it is offered alone.

// webWanted reports whether the options, the agent or the configuration
// ask for the web tools, before the profile has its say.
func (s *Settings) webWanted() bool {
	switch {
	case s.opts.NoWeb:
		return false
	case s.opts.Web:
		return true
	case s.agent != nil:
		return s.agent.Config.WebSearchEnabled
	}
	return s.Config.Web != nil
}

// webEnabled reports whether the session offers the web tools, and a note
// for the user when they were asked for and the profile refuses them.
func (s *Settings) webEnabled() (bool, string) {
	if !s.webWanted() {
		return false, ""
	}
	if s.Config.Profile.NoWebTools {
		note := ""
		if s.opts.Web {
			note = i18n.Trf(s.Lang, "web tools: off in the %s profile, which sends nothing to the web", s.Config.Profile.Name)
		}
		return false, note
	}
	return true, ""
}

// webConfig is the web tools' configuration: every query and URL put to
// out (webGate), the snapshots in snaps, the search provider and the
// private hosts of the user's web: section, a confirmation before each
// fetch where the profile wants one.
func (s *Settings) webConfig(out *policy.Outbound, snaps web.Snapshots) web.Config {
	c := web.Config{Gate: webGate{out: out, perms: s.Permissions}, Snapshots: snaps, ConfirmFetch: s.Config.Profile.ConfirmWebFetch}
	w := s.Config.Web
	if w == nil {
		return c
	}
	c.AllowPrivateHosts = w.AllowPrivateHosts
	if p := w.Search; p != nil {
		c.Search = &web.SearchConfig{Provider: p.Provider, BaseURL: p.BaseURL, APIKey: p.APIKey, Local: p.Local, MaxResults: p.MaxResults}
		if s.agent != nil && s.agent.Config.WebSearchMaxResults > 0 {
			c.Search.MaxResults = s.agent.Config.WebSearchMaxResults
		}
	}
	return c
}

// webTools registers the web tools in reg when the session offers them,
// and returns what the user should know: a note when the profile refuses
// them, a search provider that cannot be used (web_fetch is offered alone
// then).
func (s *Settings) webTools(reg *tools.Registry, snaps web.Snapshots) ([]string, error) {
	on, note := s.webEnabled()
	if !on {
		return nonEmpty(note), nil
	}
	out, err := s.outbound()
	if err != nil {
		return nil, err
	}
	cfg := s.webConfig(out, snaps)
	if err := web.Register(reg, cfg); err == nil || cfg.Search == nil {
		return nil, err
	} else {
		// The provider is unusable (a key missing from the environment):
		// the session still reads pages.
		cfg.Search = nil
		note = i18n.Trf(s.Lang, "web_search is off: %v; web_fetch is offered alone", err)
	}
	return nonEmpty(note), web.Register(reg, cfg)
}

// nonEmpty is the note as a list, empty when there is none.
func nonEmpty(note string) []string {
	if note == "" {
		return nil
	}
	return []string{note}
}
