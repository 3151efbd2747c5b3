package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/tools"
)

// snapshot is the session's MCP tools at one generation of the backend:
// what every tool is called, which are usable, and whether the model gets
// them directly or through the catalog. It is never changed once built.
type snapshot struct {
	gen     uint64
	servers []ServerInfo
	counts  map[string]int // usable tools per server
	tools   []*mcpTool     // usable tools, sorted by name
	byName  map[string]*mcpTool
	byKey   map[toolKey]*mcpTool
	catalog bool

	indexOnce sync.Once
	index     *searchIndex
}

// current returns the snapshot of the backend's present generation,
// building it when the generation moved.
func (s *ToolSet) current() *snapshot {
	gen := s.backend.Generation()
	s.mu.Lock()
	if s.snap != nil && s.snap.gen == gen {
		snap := s.snap
		s.mu.Unlock()
		return snap
	}
	snap := s.build(gen, s.snap)
	s.snap = snap
	s.latestSnap.Store(snap)
	s.mu.Unlock()
	s.flushWarnings()
	return snap
}

// latest is the last snapshot built, without building one: for what is
// read under another registry's lock (a description).
func (s *ToolSet) latest() *snapshot { return s.latestSnap.Load() }

// build lists every server's tools, names them, and decides between
// definitions and the catalog; in the catalog, it keeps the tools whose
// schema compiles (the inner registry compiles them, and says which it
// refused).
func (s *ToolSet) build(gen uint64, old *snapshot) *snapshot {
	reuse := map[string]*mcpTool{}
	if old != nil {
		for _, t := range old.tools {
			reuse[t.defSum] = t
		}
		for _, t := range s.innerGroup.all() {
			reuse[t.defSum] = t
		}
	}
	snap := &snapshot{gen: gen, servers: s.backend.Servers(), counts: map[string]int{},
		byName: map[string]*mcpTool{}, byKey: map[toolKey]*mcpTool{}}
	defs := map[toolKey]*mcpsdk.Tool{}
	var keys []toolKey
	for _, info := range snap.servers {
		for _, def := range s.backend.ServerTools(info.Name) {
			if def == nil || def.Name == "" {
				s.warnOnce(fmt.Errorf("MCP server %q: a tool without a name left out", info.Name))
				continue
			}
			k := toolKey{info.Name, def.Name}
			if _, dup := defs[k]; dup {
				s.warnOnce(fmt.Errorf("MCP server %q: tool %q listed twice; the first definition kept", info.Name, def.Name))
				continue
			}
			defs[k] = def
			keys = append(keys, k)
		}
	}
	names, dropped := assignNames(keys)
	for _, k := range dropped {
		s.warnOnce(fmt.Errorf("MCP server %q: tool %q left out: its name meets another tool's even with a hash", k.server, k.tool))
	}
	var candidates []*mcpTool
	for _, k := range keys {
		name, ok := names[k]
		if !ok {
			continue
		}
		sum := definitionSum(k, name, defs[k])
		t := reuse[sum]
		if t == nil {
			t = newMCPTool(s, k.server, name, defs[k], sum)
		}
		candidates = append(candidates, t)
	}
	snap.catalog = len(candidates) > 0 && (s.threshold < 0 || len(candidates) > s.threshold)
	if snap.catalog {
		// The catalog lists only what call_mcp_tool can run: the tools
		// whose schema the inner registry compiled.
		s.innerGroup.offer(candidates)
		for _, t := range candidates {
			if got, ok := s.inner.Lookup(t.name); ok && got == tools.Tool(t) {
				snap.tools = append(snap.tools, t)
			}
		}
	} else {
		// Offered directly: the session's registry compiles them and
		// reports the ones it refuses (Rejected). Compiling them here too
		// would double the cost of a session's start.
		snap.tools = candidates
	}
	slices.SortFunc(snap.tools, func(a, b *mcpTool) int { return strings.Compare(a.name, b.name) })
	for _, t := range snap.tools {
		snap.byName[t.name] = t
		snap.byKey[toolKey{t.server, t.def.Name}] = t
		snap.counts[t.server]++
	}
	return snap
}

// definitionSum identifies a tool's definition under its name: the same
// sum means the adapter (and what registries compiled for it) can stay.
func definitionSum(k toolKey, name string, def *mcpsdk.Tool) string {
	raw, err := json.Marshal(def)
	if err != nil {
		raw = []byte(err.Error())
	}
	h := sha256.New()
	for _, s := range []string{k.server, k.tool, name} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil))
}

// resolve finds the tool a tool_ref names: its Moteur name, or
// "server/tool" with the server's own tool name.
func (snap *snapshot) resolve(ref string) (*mcpTool, bool) {
	ref = strings.TrimSpace(ref)
	if t, ok := snap.byName[ref]; ok {
		return t, true
	}
	for i := 0; i < len(ref); i++ {
		if ref[i] == '/' {
			if t, ok := snap.byKey[toolKey{ref[:i], ref[i+1:]}]; ok {
				return t, true
			}
		}
	}
	return nil, false
}

func (snap *snapshot) server(name string) (ServerInfo, bool) {
	for _, info := range snap.servers {
		if info.Name == name {
			return info, true
		}
	}
	return ServerInfo{}, false
}

func (snap *snapshot) serverNames() []string {
	out := make([]string, len(snap.servers))
	for i, info := range snap.servers {
		out[i] = info.Name
	}
	return out
}

// snapshotGroup offers the inner registry the candidate tools of the
// latest snapshot, so that it compiles their schemas (once per tool) and
// validates call_mcp_tool's arguments against them.
type snapshotGroup struct {
	owner *ToolSet
	gen   atomic.Uint64

	mu    sync.Mutex
	tools []*mcpTool
}

func (g *snapshotGroup) offer(ts []*mcpTool) {
	g.mu.Lock()
	g.tools = ts
	g.mu.Unlock()
	g.gen.Add(1)
}

func (g *snapshotGroup) all() []*mcpTool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tools
}

func (g *snapshotGroup) Generation() uint64 { return g.gen.Load() }

func (g *snapshotGroup) Tools() []tools.Tool {
	ts := g.all()
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}

// Rejected: a tool whose input schema does not compile is left out, the
// others kept.
// The warning waits for the snapshot's build to end (ToolSet.current).
func (g *snapshotGroup) Rejected(t tools.Tool, err error) { g.owner.reject(t, err) }
