package app

import (
	"fmt"

	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/routing"
)

// providers makes one client per configured provider, in order, and the
// router over them: nil for a single provider that is not local (the
// engine sends to the first alone) unless always is set. A single local
// provider still gets a router, which is what tells the engine that it may
// receive classified content. Without providers, nil and nil.
func providers(cfg *config.Config, always bool) (first *openai.Client, router *routing.Router, err error) {
	var cands []routing.Candidate
	for _, p := range cfg.Providers {
		cl, err := openai.New(openai.Config{
			Name: p.Name, BaseURL: p.BaseURL, APIKey: p.APIKey, Model: p.Model, NoThinking: p.NoThinking,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("provider %s (%s): %w", p.Name, p.Source, err)
		}
		if first == nil {
			first = cl
		}
		cands = append(cands, routing.Candidate{Provider: cl, Endpoint: cl.Endpoint(), Local: p.Local})
	}
	if len(cands) > 1 || len(cands) == 1 && (cands[0].Local || always) {
		if router, err = routing.New(routing.Config{Candidates: cands}); err != nil {
			return nil, nil, err
		}
	}
	return first, router, nil
}
