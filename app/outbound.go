package app

import (
	"github.com/moteur/moteur/policy"
)

// outbound is the settings' pre-send check.
func (s *Settings) outbound() (*policy.Outbound, error) {
	cfg := s.Config
	return cfg.Policy.Outbound(cfg.Allowlists, cfg.Profile, s.classifier)
}
