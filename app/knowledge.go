package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/data"
	kbtools "github.com/moteur/moteur/tools/kb"
)

// OpenKnowledge opens the knowledge bases of the data directory with the
// embedding and rerank models of the configuration (KnowledgeModels). A
// document under a classified path of the configuration (relative ones
// from the project, absolute ones anywhere) is marked so. The caller closes
// the store.
func (s *Settings) OpenKnowledge(ctx context.Context) (*kb.Store, error) {
	em, rr, err := s.KnowledgeModels()
	if err != nil {
		return nil, err
	}
	root := s.ProjectRoot()
	kc := kb.Config{Path: s.Database().KBPath(), Retrieval: s.Config.Retrieval, Embedder: em, Reranker: rr,
		Classify: func(path string) (string, bool) {
			m, ok := s.classifier.Path(root, path)
			return m.Rule, ok
		}}
	return kb.Open(ctx, kc)
}

// KnowledgeModels makes the configured embedding and rerank clients (nil
// when not configured), each behind the outbound check: a document's text
// goes to such a server only where a model request could go. A model
// without a server is a *ConfigError.
func (s *Settings) KnowledgeModels() (kb.Embedder, kb.Reranker, error) {
	out, err := s.outbound()
	if err != nil {
		return nil, nil, err
	}
	cfg := s.Config
	var em kb.Embedder
	var rr kb.Reranker
	if e := cfg.Embedding; e.Model != "" {
		if e.BaseURL == "" {
			return nil, nil, &ConfigError{Err: errors.New(i18n.Trf(s.Lang, "embedding model %s has no server: set MOTEUR_EMBED_BASE_URL or MOTEUR_BASE_URL", e.Model))}
		}
		cl, err := openai.NewEmbedder(openai.EmbedConfig{BaseURL: e.BaseURL, APIKey: e.APIKey, Model: e.Model})
		if err != nil {
			return nil, nil, &ConfigError{Err: fmt.Errorf("embedding model: %w", err)}
		}
		em = &checkedEmbedder{gate{out, endpointDest("embeddings", e, cfg)}, cl}
	}
	if r := cfg.Rerank; r.Model != "" {
		if r.BaseURL == "" {
			return nil, nil, &ConfigError{Err: errors.New(i18n.Trf(s.Lang, "rerank model %s has no server: set MOTEUR_RERANK_BASE_URL or MOTEUR_BASE_URL", r.Model))}
		}
		cl, err := openai.NewReranker(openai.RerankConfig{BaseURL: r.BaseURL, APIKey: r.APIKey, Model: r.Model})
		if err != nil {
			return nil, nil, &ConfigError{Err: fmt.Errorf("rerank model: %w", err)}
		}
		rr = &checkedReranker{gate{out, endpointDest("rerank", r, cfg)}, cl}
	}
	return em, rr, nil
}

// openBases opens the knowledge bases and checks that every base named
// exists (an error wrapping kb.ErrNotFound otherwise).
func (s *Settings) openBases(ctx context.Context, bases []string) (*kb.Store, error) {
	st, err := s.OpenKnowledge(ctx)
	if err != nil {
		return nil, err
	}
	for _, b := range bases {
		if _, err := st.Base(ctx, b); err != nil {
			return nil, errors.Join(KnowledgeBaseError(ctx, s.Lang, st, []string{b}, err), st.Close())
		}
	}
	return st, nil
}

// knowledgeTools opens the knowledge bases of sel and gives the agent
// their tools in st's registry, those allow lets through (nil: all): the
// knowledge tools, and the data tools when a base holds a table. It
// returns the store (nil when there is no base or no such tool), the bases
// when the knowledge tools are offered, and the prompt section of the data
// tools ("" without them).
func (s *Settings) knowledgeTools(ctx context.Context, sel knowledgeSelection, st *sessionTools, allow func(string) bool) (*kb.Store, []string, string, error) {
	if !sel.all && len(sel.bases) == 0 ||
		allow != nil && !slices.ContainsFunc(knowledgeToolNames, allow) && !slices.ContainsFunc(dataToolNames, allow) {
		return nil, nil, "", nil
	}
	ks, err := s.openBases(ctx, sel.bases)
	if err != nil {
		return nil, nil, "", err
	}
	bases := sel.bases
	if sel.all {
		if bases, err = baseNames(ctx, ks); err != nil || len(bases) == 0 {
			return nil, nil, "", errors.Join(err, ks.Close())
		}
	}
	var named []string
	if allow == nil || slices.ContainsFunc(knowledgeToolNames, allow) {
		register := func(r *tools.Registry) error { return kbtools.Register(r, kbtools.Config{Store: ks, Bases: bases}) }
		if err := registerAllowed(st.reg, allow, register); err != nil {
			return nil, nil, "", errors.Join(fmt.Errorf("register knowledge tools: %w", err), ks.Close())
		}
		named = bases
	}
	section, err := s.dataTools(ctx, ks, bases, st, allow)
	if err != nil {
		return nil, nil, "", errors.Join(err, ks.Close())
	}
	if named == nil && section == "" {
		// An agent of the data tools alone, and no table: nothing uses
		// the bases.
		return nil, nil, "", ks.Close()
	}
	return ks, named, section, nil
}

// dataTools gives the agent the data tools allow lets through when a base
// holds a table, their databases dropped with the session's tools, and
// returns their prompt section ("" without them).
func (s *Settings) dataTools(ctx context.Context, ks *kb.Store, bases []string, st *sessionTools, allow func(string) bool) (string, error) {
	if allow != nil && !slices.ContainsFunc(dataToolNames, allow) {
		return "", nil
	}
	tables, err := tabularDocuments(ctx, ks, bases)
	if err != nil || len(tables) == 0 {
		return "", err
	}
	set, err := data.New(data.Config{Documents: newKBTables(ks, bases)})
	if err != nil {
		return "", fmt.Errorf("data tools: %w", err)
	}
	st.onClose(set)
	if err := registerAllowed(st.reg, allow, set.Register); err != nil {
		return "", fmt.Errorf("register data tools: %w", err)
	}
	_, withList := st.reg.Lookup(kbtools.ListName)
	return dataPrompt(s.Lang, tables, withList, s.citations()), nil
}

// baseNames are the names of every base of st.
func baseNames(ctx context.Context, st *kb.Store) ([]string, error) {
	list, err := st.List(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(list))
	for i, b := range list {
		names[i] = b.Name
	}
	return names, nil
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
