package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/tools"
)

// DefaultCatalogThreshold is the number of MCP tools past which a session
// gets the catalog tools (discover_mcp_tools, call_mcp_tool) instead of one
// definition per tool: forty definitions already cost thousands of tokens
// in every request, and models choose worse among many.
const DefaultCatalogThreshold = 40

// DefaultMaxAttachment bounds an image or audio clip kept from a result.
const DefaultMaxAttachment = 20 << 20

// Backend is what the MCP tools need of a session's servers. *Manager
// implements it; tests use a fake over in-memory servers.
type Backend interface {
	// Servers lists the connected servers, sorted by name.
	Servers() []ServerInfo
	// ServerTools returns a server's current tool definitions (nil when
	// it is unknown or down).
	ServerTools(server string) []*mcpsdk.Tool
	// CallTool calls a tool; progress and cancellation are its own.
	CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcpsdk.CallToolResult, error)
	// ReadResource reads one resource of a server.
	ReadResource(ctx context.Context, server, uri string) (*mcpsdk.ReadResourceResult, error)
	// Refresh lists a server's tools again ("" for every server).
	Refresh(ctx context.Context, server string) error
	// Generation grows whenever a server's tool list may have changed.
	Generation() uint64
}

// ResourceOfferer is implemented by a Backend that knows which servers
// offer resources (the resources capability): read_mcp_resource is then
// offered from the start, not only once a result linked to a resource.
type ResourceOfferer interface {
	OffersResources(server string) bool
}

// ToolSetConfig configures a session's MCP tools. Zero values are the
// defaults.
type ToolSetConfig struct {
	// CatalogThreshold: when the servers offer more tools than this, the
	// model gets discover_mcp_tools and call_mcp_tool instead of every
	// definition (0: DefaultCatalogThreshold; negative: always the
	// catalog tools).
	CatalogThreshold int
	// Blobs keeps the images and audio clips results carry (nil: they are
	// described to the model but not kept).
	Blobs effect.Blobs
	// MaxAttachment bounds one kept attachment, in bytes (0:
	// DefaultMaxAttachment); a larger one is described, not kept.
	MaxAttachment int64
	// Warn receives what the set leaves out and why: a tool whose input
	// schema is invalid, one whose name a built-in holds. Each is said
	// once, never under the set's lock. nil: discarded.
	Warn func(error)
}

// ToolSet is a session's MCP tools as a tools.Group: add it to the
// session's registry (Registry.AddGroup) and the model sees, at every
// round, the servers' current tools. It is safe for concurrent use.
type ToolSet struct {
	backend   Backend
	threshold int
	conv      converter
	warn      func(error)

	discover *discoverTool
	call     *callTool
	resource *resourceTool

	local atomic.Uint64 // the set's own changes (a resource link seen)
	links atomic.Bool   // a result linked to a resource

	mu         sync.Mutex // held while a snapshot is built
	snap       *snapshot
	latestSnap atomic.Pointer[snapshot]

	warnMu   sync.Mutex
	warned   map[string]bool
	pending  []error  // warnings not yet given to warn
	rejected sync.Map // *mcpTool → true: a registry refused it

	inner      *tools.Registry // validates and runs calls of call_mcp_tool
	innerGroup *snapshotGroup
}

// NewToolSet returns the MCP tools of the servers b reaches.
func NewToolSet(b Backend, cfg ToolSetConfig) (*ToolSet, error) {
	if b == nil {
		return nil, errors.New("mcp: NewToolSet: nil backend")
	}
	s := &ToolSet{backend: b, threshold: cfg.CatalogThreshold, warn: cfg.Warn, warned: map[string]bool{}}
	if s.threshold == 0 {
		s.threshold = DefaultCatalogThreshold
	}
	max := cfg.MaxAttachment
	if max <= 0 {
		max = DefaultMaxAttachment
	}
	s.conv = converter{blobs: cfg.Blobs, maxAttachment: max, sawLink: s.sawLink}
	s.discover = &discoverTool{set: s}
	s.call = &callTool{set: s}
	s.resource = &resourceTool{set: s}
	s.innerGroup = &snapshotGroup{owner: s}
	// The outer registry bounds each call (time, output); the inner one
	// only validates and runs, so its own limits are out of the way.
	s.inner = tools.NewRegistry(tools.Config{MaxOutput: 1 << 30, Timeout: 1 << 62, Legacy: map[string]string{}})
	if err := s.inner.AddGroup(s.innerGroup); err != nil {
		return nil, err
	}
	return s, nil
}

// Generation implements tools.Group.
func (s *ToolSet) Generation() uint64 { return s.backend.Generation() + s.local.Load() }

// Tools implements tools.Group: every tool's adapter when the servers offer
// at most the threshold, the catalog tools past it, and read_mcp_resource
// when some server has resources to read.
func (s *ToolSet) Tools() []tools.Tool {
	snap := s.current()
	var out []tools.Tool
	if snap.catalog {
		out = append(out, s.discover, s.call)
	} else {
		for _, t := range snap.tools {
			out = append(out, t)
		}
	}
	if s.offersResources(snap) {
		out = append(out, s.resource)
	}
	return out
}

// Rejected implements tools.GroupWarner: a name the session's registry
// refused (a built-in holds it).
func (s *ToolSet) Rejected(t tools.Tool, err error) {
	s.reject(t, err)
	s.flushWarnings()
}

// reject records a refused tool and queues the warning.
func (s *ToolSet) reject(t tools.Tool, err error) {
	if mt, ok := t.(*mcpTool); ok {
		s.rejected.Store(mt, true)
		err = fmt.Errorf("MCP server %q: tool %q left out: %w", mt.server, mt.def.Name, err)
	}
	s.warnOnce(err)
}

// ToolNames returns the names of a server's usable tools, sorted, whichever
// way they are offered (directly or through the catalog).
func (s *ToolSet) ToolNames(server string) []string {
	var out []string
	for _, t := range s.current().tools {
		if _, bad := s.rejected.Load(t); t.server == server && !bad {
			out = append(out, t.name)
		}
	}
	return out
}

// Catalog reports whether the model gets the catalog tools.
func (s *ToolSet) Catalog() bool { return s.current().catalog }

// warnOnce queues a warning not given before; flushWarnings gives them to
// Warn, outside the set's lock, so that Warn may use the set.
func (s *ToolSet) warnOnce(err error) {
	msg := err.Error()
	s.warnMu.Lock()
	if !s.warned[msg] {
		s.warned[msg] = true
		s.pending = append(s.pending, err)
	}
	s.warnMu.Unlock()
}

func (s *ToolSet) flushWarnings() {
	s.warnMu.Lock()
	pending := s.pending
	s.pending = nil
	s.warnMu.Unlock()
	if s.warn == nil {
		return
	}
	for _, err := range pending {
		s.warn(err)
	}
}

// sawLink: a result linked to a resource, which the model may want to
// read; the first one offers read_mcp_resource (a new generation).
func (s *ToolSet) sawLink() {
	if !s.links.Swap(true) {
		s.local.Add(1)
	}
}

func (s *ToolSet) offersResources(snap *snapshot) bool {
	if s.links.Load() {
		return true
	}
	if ro, ok := s.backend.(ResourceOfferer); ok {
		for _, info := range snap.servers {
			if ro.OffersResources(info.Name) {
				return true
			}
		}
	}
	return false
}

var _ Backend = (*Manager)(nil)
