package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/mcp/serve"
	"github.com/moteur/moteur/rag"
)

// MCPServeConfig is what moteur mcp serve asks for besides the Options
// (whose KnowledgeBases are the bases served: none means all of them, and
// SearchMode the quick answer's mode). The zero value is the default.
type MCPServeConfig struct {
	// ServeClassified serves the passages of classified documents
	// (--serve-classified) instead of withholding them.
	ServeClassified bool
	// Version is the version given to clients in the handshake.
	Version string
	// Logger receives what the operator should know (nil: nothing).
	Logger *slog.Logger
}

// MCPServer is the knowledge bases served over MCP, with the store it
// reads; Close closes the store.
type MCPServer struct {
	*serve.Server
	store *kb.Store
}

// Close closes the knowledge bases.
func (m *MCPServer) Close() error { return m.store.Close() }

// ErrNoBase is returned by OpenMCPServer when there is no knowledge base
// to serve.
var ErrNoBase = errors.New("no knowledge base to serve: create one with moteur kb create NAME, then moteur kb add NAME FOLDER")

// OpenMCPServer opens the knowledge bases the options name (all of them
// when none; one that does not exist is an error wrapping kb.ErrNotFound)
// with the configuration's classification rules, and the quick answer
// with the configured models behind the outbound check (none: extractive).
// Nothing of it writes: no session or audit log is recorded for the
// calls, which only read.
func (s *Settings) OpenMCPServer(ctx context.Context, c MCPServeConfig) (_ *MCPServer, err error) {
	bases := s.opts.KnowledgeBases
	st, err := s.openBases(ctx, bases)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, st.Close())
		}
	}()
	if len(bases) == 0 {
		all, err := st.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("list knowledge bases: %w", err)
		}
		for _, b := range all {
			bases = append(bases, b.Name)
		}
	}
	if len(bases) == 0 {
		return nil, &ConfigError{Err: &translatedError{err: ErrNoBase,
			msg: i18n.Tr(s.Lang, "no knowledge base to serve: create one with moteur kb create NAME, then moteur kb add NAME FOLDER")}}
	}
	quick := &rag.Config{Mode: s.opts.SearchMode, Lang: s.Lang}
	if quick.Outbound, err = s.outbound(); err != nil {
		return nil, err
	}
	if _, quick.Router, err = providers(s.Config, true); err != nil {
		return nil, err
	}
	srv, err := serve.New(serve.Config{Store: st, Bases: bases, Classifier: s.classifier, ProjectRoot: s.ProjectRoot(),
		ServeClassified: c.ServeClassified, Quick: quick, Version: c.Version, Logger: c.Logger})
	if err != nil {
		return nil, err
	}
	return &MCPServer{Server: srv, store: st}, nil
}
