package app

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
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
			NoThinking: p.NoThinking, ReasoningEfforts: p.ReasoningEfforts, Lang: lang,
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

// withEffort is the session's providers, first and router (either may be
// nil), asking level of their requests (see effortProvider); "" leaves
// them as they are. A client and its candidate share one wrapper, whose
// notes are said once.
func (s *Settings) withEffort(first provider.Provider, router *routing.Router, level string) (provider.Provider, *routing.Router, error) {
	if level == "" {
		return first, router, nil
	}
	wrapped := map[provider.Provider]*effortProvider{}
	wrap := func(p provider.Provider) provider.Provider {
		if p == nil {
			return nil
		}
		if w, ok := wrapped[p]; ok {
			return w
		}
		w := &effortProvider{Provider: p, level: level, lang: s.Lang, notify: s.notify}
		wrapped[p] = w
		return w
	}
	first = wrap(first)
	if router == nil {
		return first, nil, nil
	}
	cands := slices.Clone(router.Candidates(false))
	for i := range cands {
		cands[i].Provider = wrap(cands[i].Provider)
	}
	router, err := routing.New(routing.Config{Candidates: cands})
	return first, router, err
}

// effortProvider asks level of every request that asks none and thinks:
// every request of the loop and of the quick answer's generation, not the
// summaries and closing syntheses, which turn thinking off. A provider
// that adjusts levels (openai.Client.EffortFor) is watched: the user is
// told, once, of a level it lacks and of a server that refuses the field.
type effortProvider struct {
	provider.Provider
	level  string
	lang   i18n.Lang
	notify func(string)

	mu   sync.Mutex
	told map[string]bool
}

// effortAdjuster is a provider that sends the nearest level its model
// accepts ("": none at all).
type effortAdjuster interface {
	EffortFor(asked string) string
}

// Stream sends req, asking the wrapper's level where req asks none.
func (p *effortProvider) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	if req.NoThinking || req.ReasoningEffort != "" {
		return p.Provider.Stream(ctx, req, onDelta)
	}
	req.ReasoningEffort = p.level
	adj, ok := p.Provider.(effortAdjuster)
	if !ok {
		return p.Provider.Stream(ctx, req, onDelta)
	}
	p.tell(adj.EffortFor(p.level))
	resp, err := p.Provider.Stream(ctx, req, onDelta)
	// The server may have refused the field during the call.
	p.tell(adj.EffortFor(p.level))
	return resp, err
}

// Endpoint and Local are the wrapped provider's, for the engine's
// routing (they are optional methods of a provider).
func (p *effortProvider) Endpoint() string {
	if ep, ok := p.Provider.(interface{ Endpoint() string }); ok {
		return ep.Endpoint()
	}
	return ""
}

func (p *effortProvider) Local() bool {
	l, ok := p.Provider.(interface{ Local() bool })
	return ok && l.Local()
}

// tell notes, once, that the provider sends sent rather than the level.
func (p *effortProvider) tell(sent string) {
	if sent == p.level {
		return
	}
	line := effortNote(p.lang, p.Name(), p.level, sent)
	p.mu.Lock()
	seen := p.told[line]
	if p.told == nil {
		p.told = map[string]bool{}
	}
	p.told[line] = true
	p.mu.Unlock()
	if !seen && p.notify != nil {
		p.notify(line)
	}
}

// effortNote says that provider name sends sent ("": nothing) when asked.
func effortNote(l i18n.Lang, name, asked, sent string) string {
	en := l.Normalize() == i18n.EN
	switch {
	case sent == "" && en:
		return fmt.Sprintf("provider %s refuses reasoning_effort: its requests go without it (the server's default, not %s)", name, asked)
	case sent == "":
		return fmt.Sprintf("le fournisseur %s refuse reasoning_effort : ses requêtes partent sans (le défaut du serveur, pas %s)", name, asked)
	case en:
		return fmt.Sprintf("provider %s has no reasoning effort %s: it is asked for %s (its reasoning_efforts)", name, asked, sent)
	}
	return fmt.Sprintf("le fournisseur %s n'a pas l'effort de réflexion %s : %s lui est demandé (ses reasoning_efforts)", name, asked, sent)
}
