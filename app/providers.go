package app

import (
	"fmt"

	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/routing"
)

// providers makes one client per configured provider, in order, and the
// router over them: nil for a single provider that is not local (the
// engine sends to the first alone) unless always is set. A single local
// provider still gets a router, which is what tells the engine that it may
// receive classified content. Without providers, nil and nil. The clients
// speak the configuration file's language; providersIn takes the session's.
func providers(cfg *config.Config, always bool) (first *openai.Client, router *routing.Router, err error) {
	return providersIn(cfg, always, i18n.Parse(cfg.Lang))
}

// providersIn is providers whose clients say what to do about a failure
// in lang.
func providersIn(cfg *config.Config, always bool, lang i18n.Lang) (first *openai.Client, router *routing.Router, err error) {
	var cands []routing.Candidate
	for _, p := range cfg.Providers {
		cl, err := openai.New(openai.Config{
			Name: p.Name, BaseURL: p.BaseURL, APIKey: p.APIKey, APIKeyEnv: p.APIKeyEnv, Model: p.Model,
			NoThinking: p.NoThinking, Lang: lang,
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

// keyWarnings are the warnings, before any request, of the providers whose
// api_key_env names a variable that is not set: their requests go without
// a key, which a server that needs one refuses.
func keyWarnings(cfg *config.Config, lang i18n.Lang) []string {
	var out []string
	for _, p := range cfg.Providers {
		if p.APIKeyEnv != "" && p.APIKey == "" {
			out = append(out, i18n.KeyVarUnsetAtStart(lang, p.Name, p.APIKeyEnv))
		}
	}
	return out
}
