// Package kb holds the knowledge tools of seed 000: search_knowledge,
// read_document and list_documents. The model reads only short aliases
// (bN, dN, cN from the session's cite.Table), never a stored id; every
// result lists, in Result.References, what its aliases stand for, so the
// turn's events carry the sources by construction.
//
// The tools only read; they are safe for concurrent use.
package kb

import (
	"context"
	"fmt"
	"strings"

	"github.com/moteur/moteur/cite"
	kbs "github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/kb/retrieval"
	"github.com/moteur/moteur/tools"
)

// Tool names.
const (
	SearchName = "search_knowledge"
	ReadName   = "read_document"
	ListName   = "list_documents"
)

// Store is what the tools read of the knowledge bases (*kb.Store).
type Store interface {
	Search(ctx context.Context, q kbs.Query) (kbs.Result, error)
	Base(ctx context.Context, name string) (kbs.Base, error)
	Document(ctx context.Context, id string) (kbs.DocInfo, error)
	Documents(ctx context.Context, base, keyword string, page, pageSize int) ([]kbs.DocInfo, int, error)
	Chunk(ctx context.Context, id string) (kbs.ChunkInfo, error)
	Chunks(ctx context.Context, doc string, offset, limit int) ([]kbs.ChunkInfo, error)
	Retrieval() retrieval.Settings
}

// Config configures the tools. Bases is required.
type Config struct {
	Store Store
	// Bases are the names of the knowledge bases in scope: the tools reach
	// nothing else.
	Bases []string
	// Budget is the tool output budget in runes (0: tools.DefaultMaxOutput);
	// a search uses at most 4/5 of it, a page of read_document 80 %.
	Budget int
}

// Register adds the three tools to r, for the bases in cfg.Bases.
func Register(r *tools.Registry, cfg Config) error {
	if cfg.Store == nil || len(cfg.Bases) == 0 {
		return fmt.Errorf("knowledge tools: a store and at least one knowledge base are required")
	}
	if cfg.Budget <= 0 {
		cfg.Budget = tools.DefaultMaxOutput
	}
	sc := &scope{cfg: cfg, own: cite.NewTable()}
	for _, t := range []tools.Tool{&search{sc}, &read{sc}, &list{sc}} {
		if err := r.Register(t); err != nil {
			return fmt.Errorf("knowledge tools: %w", err)
		}
	}
	return nil
}

// scope is what the three tools share: the store, the bases in reach and a
// table for calls made outside a session (tests, tools used alone).
type scope struct {
	cfg Config
	own *cite.Table
}

func (s *scope) table(ctx context.Context) *cite.Table {
	if t, ok := cite.TableFrom(ctx); ok {
		return t
	}
	return s.own
}

// base resolves what the model gave for a knowledge base: its alias (b2)
// or its name, checked against the scope.
func (s *scope) base(ctx context.Context, t *cite.Table, given string) (kbs.Base, error) {
	name := given
	if r, ok := t.Resolve(given); ok && r.Kind == cite.Base {
		name = r.ID
	}
	b, err := s.cfg.Store.Base(ctx, name)
	if err != nil || !s.inScope(b.ID, b.Name) {
		return kbs.Base{}, fmt.Errorf("unknown knowledge base %q: the knowledge bases available are %s", given, s.names())
	}
	return b, nil
}

// inScope reports whether the base with this id and name is one the tools
// may reach (Config.Bases names bases by name or id).
func (s *scope) inScope(id, name string) bool {
	for _, n := range s.cfg.Bases {
		if n == name || n == id {
			return true
		}
	}
	return false
}

func (s *scope) names() string { return strings.Join(s.cfg.Bases, ", ") }

// baseRef gives a base its alias.
func baseRef(t *cite.Table, id, name string) cite.Ref {
	r := cite.Ref{Kind: cite.Base, ID: id, Base: id, BaseName: name}
	r.Alias = t.Alias(r)
	return r
}

// docRef gives a document its alias.
func docRef(t *cite.Table, d kbs.DocInfo) cite.Ref {
	r := cite.Ref{Kind: cite.Document, ID: d.ID, Base: d.Base, BaseName: d.BaseName, Document: d.ID,
		Title: d.Title, Path: d.Path}
	r.Alias = t.Alias(r)
	return r
}

// chunkRef gives a chunk its alias.
func chunkRef(t *cite.Table, d cite.Ref, id, headings string, page int, score float64) cite.Ref {
	r := cite.Ref{Kind: cite.Chunk, ID: id, Base: d.Base, BaseName: d.BaseName, Document: d.ID,
		Title: d.Title, Path: d.Path, Headings: headings, Page: page, Score: score}
	r.Alias = t.Alias(r)
	return r
}

// errResult is a failed call the model can correct.
func errResult(err error) (tools.Result, error) {
	return tools.Result{Content: err.Error(), IsError: true}, nil
}
