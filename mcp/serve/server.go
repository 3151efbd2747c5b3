package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/rag"
	"github.com/moteur/moteur/tools"
	kbtools "github.com/moteur/moteur/tools/kb"
)

// Name is the server's name in the MCP handshake.
const Name = "moteur"

// Config configures a Server. Store and Bases are required; the zero value
// of every other field is the default.
type Config struct {
	// Store holds the knowledge bases (*kb.Store).
	Store kbtools.Store
	// Bases are the names of the knowledge bases served: the tools reach
	// nothing else.
	Bases []string
	// Classifier holds the configuration's classification rules (nil: the
	// built-in markings only, no path rule beyond those the store recorded).
	Classifier *classify.Classifier
	// ProjectRoot is where relative path rules apply ("" : they apply to
	// no path; the rules recorded when documents were added still do).
	ProjectRoot string
	// ServeClassified serves the passages of classified documents instead
	// of withholding them (--serve-classified). Each result still says
	// which classified documents it holds.
	ServeClassified bool
	// Quick configures ask, the quick answer (its Store and Bases are set
	// here, to the guarded bases); nil offers no ask tool.
	Quick *rag.Config
	// Budget is the tools' output budget in runes (0:
	// tools.DefaultMaxOutput).
	Budget int
	// Version is the version the server gives in the handshake ("": dev).
	Version string
	// Logger receives what the operator should know: each classified
	// document withheld or served, with its full rule (nil: nothing).
	Logger *slog.Logger
}

// Server is Moteur's knowledge bases as an MCP server.
type Server struct {
	cfg   Config
	mcp   *mcp.Server
	reg   *tools.Registry
	guard *guard
	// table gives aliases (bN, dN, cN) for every session of the server,
	// so that a cN from search_knowledge or ask is read by read_document
	// whichever session asks.
	table *cite.Table
	names []string
	log   *slog.Logger
}

// New checks cfg and builds the server and its tools.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil || len(cfg.Bases) == 0 {
		return nil, errors.New("mcp serve: a store and at least one knowledge base are required")
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := &Server{cfg: cfg, reg: tools.NewRegistry(tools.Config{MaxOutput: cfg.Budget}), table: cite.NewTable(),
		guard: newGuard(cfg.Store, cfg.Classifier, cfg.ProjectRoot, cfg.ServeClassified), log: cfg.Logger}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := kbtools.Register(s.reg, kbtools.Config{Store: s.guard, Bases: cfg.Bases, Budget: cfg.Budget}); err != nil {
		return nil, fmt.Errorf("mcp serve: %w", err)
	}
	if cfg.Quick != nil {
		q := *cfg.Quick
		q.Store, q.Bases = answerable{s.guard}, cfg.Bases
		p, err := rag.New(q)
		if err != nil {
			return nil, fmt.Errorf("mcp serve: %w", err)
		}
		if err := s.reg.Register(&askTool{p: p, bases: cfg.Bases}); err != nil {
			return nil, fmt.Errorf("mcp serve: %w", err)
		}
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Moteur knowledge bases", Version: cfg.Version},
		&mcp.ServerOptions{
			Instructions: instructions(cfg.Bases, cfg.ServeClassified),
			// Tools only, and they never change while the server runs:
			// no logging, prompts, resources or list_changed.
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		})
	for _, name := range s.reg.Names() {
		t, _ := s.reg.Lookup(name)
		if err := s.add(t); err != nil {
			return nil, fmt.Errorf("mcp serve: %w", err)
		}
		s.names = append(s.names, name)
	}
	return s, nil
}

// MCP is the go-sdk server, to connect to any transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Tools are the names of the tools served, sorted.
func (s *Server) Tools() []string { return append([]string(nil), s.names...) }

// Bases are the names of the knowledge bases served.
func (s *Server) Bases() []string { return append([]string(nil), s.cfg.Bases...) }

// Run serves one client over t (mcp.StdioTransport for moteur mcp serve)
// until it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, t)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

func instructions(bases []string, serveClassified bool) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Moteur serves the knowledge bases %s, read-only. ", strings.Join(bases, ", "))
	sb.WriteString("Find passages with search_knowledge, read around one with read_document(id=cN, context=2) or page through a document with read_document(id=dN), " +
		"list a base's documents with list_documents, or get a quick cited answer with ask. Cite passages as [cN]: each result lists its citations in structuredContent.citations. ")
	if serveClassified {
		sb.WriteString("This server also serves passages of classified documents: each result names them under served_classified.")
	} else {
		sb.WriteString("Passages of classified documents are withheld: each result names them under withheld, with the rule that classifies them.")
	}
	return sb.String()
}
