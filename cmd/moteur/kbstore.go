package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/session"
	"github.com/moteur/moteur/tools"
	kbtools "github.com/moteur/moteur/tools/kb"
)

// openKB opens the knowledge bases of $MOTEUR_HOME with the embedding and
// rerank models of the configuration.
func (c *cli) openKB(ctx context.Context, st *settings) (*kb.Store, error) {
	home, err := dataDir(c.env)
	if err != nil {
		return nil, err
	}
	em, rr, err := kbModels(st)
	if err != nil {
		return nil, err
	}
	root, err := c.projectRoot()
	if err != nil {
		return nil, err
	}
	cl, err := classifierOf(st.cfg)
	if err != nil {
		return nil, failure(err)
	}
	kc := kb.Config{Path: session.DefaultPath(home), Retrieval: st.cfg.Retrieval,
		// The configuration's classify paths: relative ones from the
		// project the command runs in, absolute ones anywhere.
		Classify: func(path string) (string, bool) {
			m, ok := cl.Path(root, path)
			return m.Rule, ok
		}}
	if em != nil {
		kc.Embedder = em
	}
	if rr != nil {
		kc.Reranker = rr
	}
	s, err := kb.Open(ctx, kc)
	if err != nil {
		return nil, failure(err)
	}
	return s, nil
}

// kbModels makes the configured embedding and rerank clients (nil when
// not configured), each behind the outbound check: a document's text goes
// to such a server only where a model request could go.
func kbModels(st *settings) (*checkedEmbedder, *checkedReranker, error) {
	out, err := outboundFor(st)
	if err != nil {
		return nil, nil, failure(err)
	}
	var em *checkedEmbedder
	var rr *checkedReranker
	if e := st.cfg.Embedding; e.Model != "" {
		if e.BaseURL == "" {
			return nil, nil, configError(fmt.Errorf("embedding model %s has no server: set MOTEUR_EMBED_BASE_URL or MOTEUR_BASE_URL", e.Model))
		}
		cl, err := openai.NewEmbedder(openai.EmbedConfig{BaseURL: e.BaseURL, APIKey: e.APIKey, Model: e.Model})
		if err != nil {
			return nil, nil, configError(fmt.Errorf("embedding model: %w", err))
		}
		em = &checkedEmbedder{gate{out, endpointDest("embeddings", e, st.cfg)}, cl}
	}
	if r := st.cfg.Rerank; r.Model != "" {
		if r.BaseURL == "" {
			return nil, nil, configError(fmt.Errorf("rerank model %s has no server: set MOTEUR_RERANK_BASE_URL or MOTEUR_BASE_URL", r.Model))
		}
		cl, err := openai.NewReranker(openai.RerankConfig{BaseURL: r.BaseURL, APIKey: r.APIKey, Model: r.Model})
		if err != nil {
			return nil, nil, configError(fmt.Errorf("rerank model: %w", err))
		}
		rr = &checkedReranker{gate{out, endpointDest("rerank", r, st.cfg)}, cl}
	}
	return em, rr, nil
}

// outboundFor is the pre-send check of the configuration: the
// organisation's hosts, the allowlists, the profile, the markings.
func outboundFor(st *settings) (*policy.Outbound, error) {
	cfg := st.cfg
	cl, err := classifierOf(cfg)
	if err != nil {
		return nil, err
	}
	oc := policy.OutboundConfig{Allowlists: cfg.Allowlists, Classifier: cl,
		RequireAllowlist: cfg.Profile.RequireAllowlist, LocalOnly: cfg.Profile.LocalOnly}
	if cfg.Policy != nil {
		oc.OrgHosts, oc.OrgPath = cfg.Policy.AllowedHosts, cfg.Policy.Path
	}
	return policy.NewOutbound(oc)
}

// endpointDest describes an embedding or rerank server as a destination.
// It is local when it is a local provider's server.
func endpointDest(what string, e config.Endpoint, cfg *config.Config) policy.Destination {
	d := policy.Destination{Provider: what + " (" + e.Model + ")", Endpoint: e.BaseURL}
	for _, p := range cfg.Providers {
		if p.Local && strings.TrimRight(p.BaseURL, "/") == strings.TrimRight(e.BaseURL, "/") {
			d.Local = true
		}
	}
	return d
}

// gate is the outbound check in front of an embedding or rerank server,
// made before every request: texts of a document under a classified path
// (which may show no marking) go to a local server only, and the rest
// passes the same check as a model request.
type gate struct {
	out *policy.Outbound
	dst policy.Destination
}

func (g gate) check(ctx context.Context, texts ...string) error {
	if rule, ok := kb.ClassifiedFrom(ctx); ok && !g.dst.Local {
		return &policy.Refusal{Rule: "classification (" + rule + ")",
			Reason: "the document is classified and " + g.dst.Provider + " is not local"}
	}
	msgs := make([]llm.Message, len(texts))
	for i, t := range texts {
		msgs[i] = llm.Message{Role: llm.RoleUser, Content: t}
	}
	return g.out.Check(g.dst, msgs)
}

// checkedEmbedder checks every batch before it is sent.
type checkedEmbedder struct {
	gate
	inner *openai.Embedder
}

func (c *checkedEmbedder) Model() string { return c.inner.Model() }

func (c *checkedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := c.check(ctx, texts...); err != nil {
		return nil, err
	}
	return c.inner.Embed(ctx, texts)
}

// checkedReranker checks every request before it is sent.
type checkedReranker struct {
	gate
	inner *openai.Reranker
}

func (c *checkedReranker) Model() string { return c.inner.Model() }

func (c *checkedReranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if err := c.check(ctx, append([]string{query}, docs...)...); err != nil {
		return nil, err
	}
	return c.inner.Rerank(ctx, query, docs)
}

// knowledgeTools opens the knowledge bases of --kb and gives the agent
// their tools; nil without --kb. Every base named must exist.
func (c *cli) knowledgeTools(ctx context.Context, st *settings, bases []string, reg *tools.Registry) (*kb.Store, error) {
	if len(bases) == 0 {
		return nil, nil
	}
	s, err := c.openKB(ctx, st)
	if err != nil {
		return nil, err
	}
	for _, b := range bases {
		if _, err := s.Base(ctx, b); err != nil {
			s.Close()
			return nil, kbError(err)
		}
	}
	if err := kbtools.Register(reg, kbtools.Config{Store: s, Bases: bases}); err != nil {
		s.Close()
		return nil, failure(err)
	}
	return s, nil
}

// classifierOf compiles the configuration's classification rules (the
// built-in markings always apply).
func classifierOf(cfg *config.Config) (*classify.Classifier, error) {
	cl, err := classify.New(cfg.ClassifyRules())
	if err != nil {
		return nil, fmt.Errorf("classification rules: %w", err)
	}
	return cl, nil
}
