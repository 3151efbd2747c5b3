package app

import (
	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/hostmatch"
	"github.com/moteur/moteur/orgpolicy"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
)

// NewOutbound is the check made before anything is sent off the machine
// (a model request, an embedding or rerank request): the organisation's
// hosts (pol may be nil), the provider allowlists, what the profile
// demands, and the markings and paths cl finds (nil: the built-in markings
// alone).
func NewOutbound(pol *orgpolicy.Policy, allowlists []hostmatch.List, p profile.Profile, cl *classify.Classifier) (*policy.Outbound, error) {
	cfg := policy.OutboundConfig{Allowlists: allowlists, Classifier: cl,
		RequireAllowlist: p.RequireAllowlist, LocalOnly: p.LocalOnly}
	if pol != nil {
		cfg.OrgHosts, cfg.OrgPath = pol.AllowedHosts, pol.Path
	}
	return policy.NewOutbound(cfg)
}

// outbound is the settings' pre-send check.
func (s *Settings) outbound() (*policy.Outbound, error) {
	cfg := s.Config
	return NewOutbound(cfg.Policy, cfg.Allowlists, cfg.Profile, s.classifier)
}
