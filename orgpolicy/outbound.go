package orgpolicy

import (
	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/hostmatch"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
)

// Outbound is the check made before anything is sent off the machine (a
// model request, an embedding or rerank request) under this policy (p may
// be nil: no policy): the organisation's hosts, the provider allowlists,
// what the profile demands, and the markings and paths cl finds (nil: the
// built-in markings alone). The engine and the assembly of a session both
// build it here, so the two can never check differently.
func (p *Policy) Outbound(allowlists []hostmatch.List, prof profile.Profile, cl *classify.Classifier) (*policy.Outbound, error) {
	cfg := policy.OutboundConfig{Allowlists: allowlists, Classifier: cl,
		RequireAllowlist: prof.RequireAllowlist, LocalOnly: prof.LocalOnly}
	if p != nil {
		cfg.OrgHosts, cfg.OrgPath = p.AllowedHosts, p.Path
	}
	return policy.NewOutbound(cfg)
}
