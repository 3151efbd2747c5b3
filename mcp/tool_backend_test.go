package mcp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/internal/npmtest"
	mcp "github.com/moteur/moteur/mcp"
	"github.com/moteur/moteur/tools"
)

// memBackend is a small stand-in for the Manager: real go-sdk client
// sessions, over in-memory transports (or a command's stdio), listing
// tools on connect, on Refresh and on tools/list_changed.
type memBackend struct {
	gen       atomic.Uint64
	refreshes atomic.Int32 // Refresh calls

	mu      sync.Mutex
	servers map[string]*memConn
	// fail makes CallTool and ReadResource of a server return this error.
	fail map[string]error
	// changed receives the server's name each time a list_changed was
	// taken in.
	changed chan string
	// afterCall, when set, runs once a call returned, before its result
	// goes back (a test's way to re-list synchronously, as a Manager does
	// on list_changed).
	afterCall func()
}

type memConn struct {
	info  mcp.ServerInfo
	cs    *mcpsdk.ClientSession
	tools []*mcpsdk.Tool
	calls atomic.Int32 // CallTool requests sent
}

func newMemBackend() *memBackend {
	return &memBackend{servers: map[string]*memConn{}, fail: map[string]error{}, changed: make(chan string, 64)}
}

// serve connects srv over in-memory transports under name.
func (b *memBackend) serve(t testing.TB, name string, srv *mcpsdk.Server) {
	t.Helper()
	st, ct := mcpsdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	b.connect(t, mcp.ServerInfo{Name: name, Transport: "stdio"}, ct)
}

func (b *memBackend) connect(t testing.TB, info mcp.ServerInfo, tr mcpsdk.Transport) {
	t.Helper()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "moteur-test", Version: "0"}, &mcpsdk.ClientOptions{
		ToolListChangedHandler: func(ctx context.Context, _ *mcpsdk.ToolListChangedRequest) {
			// Listing from the handler would wait on the connection the
			// handler runs on.
			go func() {
				_ = b.Refresh(context.Background(), info.Name)
				b.changed <- info.Name
			}()
		},
	})
	cs, err := client.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	b.mu.Lock()
	b.servers[info.Name] = &memConn{info: info, cs: cs}
	b.mu.Unlock()
	if err := b.Refresh(context.Background(), info.Name); err != nil {
		t.Fatal(err)
	}
}

func (b *memBackend) conn(name string) *memConn {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.servers[name]
}

func (b *memBackend) Servers() []mcp.ServerInfo {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []mcp.ServerInfo
	for _, c := range b.servers {
		out = append(out, c.info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (b *memBackend) ServerTools(server string) []*mcpsdk.Tool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c := b.servers[server]; c != nil {
		return c.tools
	}
	return nil
}

func (b *memBackend) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcpsdk.CallToolResult, error) {
	b.mu.Lock()
	c, err := b.servers[server], b.fail[server]
	b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fmt.Errorf("%w: %q", mcp.ErrUnknownServer, server)
	}
	c.calls.Add(1)
	res, err := c.cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: tool, Arguments: args})
	if b.afterCall != nil {
		b.afterCall()
	}
	return res, err
}

func (b *memBackend) ReadResource(ctx context.Context, server, uri string) (*mcpsdk.ReadResourceResult, error) {
	b.mu.Lock()
	c, err := b.servers[server], b.fail[server]
	b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fmt.Errorf("%w: %q", mcp.ErrUnknownServer, server)
	}
	return c.cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: uri})
}

func (b *memBackend) Refresh(ctx context.Context, server string) error {
	b.refreshes.Add(1)
	for _, info := range b.Servers() {
		if server != "" && info.Name != server {
			continue
		}
		c := b.conn(info.Name)
		var list []*mcpsdk.Tool
		for tool, err := range c.cs.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			list = append(list, tool)
		}
		b.mu.Lock()
		c.tools = list
		b.mu.Unlock()
	}
	b.gen.Add(1)
	return nil
}

func (b *memBackend) Generation() uint64 { return b.gen.Load() }

// OffersResources implements mcp.ResourceOfferer.
func (b *memBackend) OffersResources(server string) bool {
	c := b.conn(server)
	if c == nil {
		return false
	}
	caps := c.cs.InitializeResult().Capabilities
	return caps != nil && caps.Resources != nil
}

func (b *memBackend) setFail(server string, err error) {
	b.mu.Lock()
	b.fail[server] = err
	b.mu.Unlock()
}

// calls counts the CallTool requests sent to a server.
func (b *memBackend) calls(server string) int { return int(b.conn(server).calls.Load()) }

// newServer returns a go-sdk server named name.
func newServer(name string) *mcpsdk.Server {
	return mcpsdk.NewServer(&mcpsdk.Implementation{Name: name, Version: "0"}, nil)
}

// serverCalls records what reached a test server's tools.
type serverCalls struct {
	mu   sync.Mutex
	args []string // "tool args", in arrival order
}

func (s *serverCalls) add(tool string, args json.RawMessage) {
	s.mu.Lock()
	s.args = append(s.args, tool+" "+string(args))
	s.mu.Unlock()
}

func (s *serverCalls) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.args...)
}

func boolp(b bool) *bool { return &b }

// addTool adds a raw tool whose handler records its call and answers with
// res (or text "ok tool").
func addTool(srv *mcpsdk.Server, rec *serverCalls, def *mcpsdk.Tool, res func(args json.RawMessage) *mcpsdk.CallToolResult) {
	if def.InputSchema == nil {
		def.InputSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	}
	srv.AddTool(def, func(_ context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		if rec != nil {
			rec.add(def.Name, req.Params.Arguments)
		}
		if res != nil {
			return res(req.Params.Arguments), nil
		}
		return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "ok " + def.Name}}}, nil
	})
}

// warnings collects a ToolSet's warnings.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) add(err error) {
	w.mu.Lock()
	w.list = append(w.list, err.Error())
	w.mu.Unlock()
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list...)
}

// session is a registry with one built-in and the backend's MCP tools.
type session struct {
	reg  *tools.Registry
	set  *mcp.ToolSet
	warn *warnings
	blob *memBlobs
}

// memBlobs is an effect.Blobs in memory.
type memBlobs struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (b *memBlobs) Put(_ context.Context, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	id := hex.EncodeToString(sum[:])
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string][]byte{}
	}
	b.m[id] = append([]byte(nil), data...)
	return id, nil
}

func (b *memBlobs) Get(_ context.Context, id string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.m[id]
	if !ok {
		return nil, fmt.Errorf("no blob %s", id)
	}
	return d, nil
}

func newSession(t testing.TB, b mcp.Backend, cfg mcp.ToolSetConfig, rcfg tools.Config) *session {
	t.Helper()
	w := &warnings{}
	cfg.Warn = w.add
	store := &memBlobs{}
	if cfg.Blobs == nil {
		cfg.Blobs = store
	}
	set, err := mcp.NewToolSet(b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(rcfg)
	if err := reg.Register(builtin{}); err != nil {
		t.Fatal(err)
	}
	if err := reg.AddGroup(set); err != nil {
		t.Fatal(err)
	}
	return &session{reg: reg, set: set, warn: w, blob: store}
}

// builtin stands for a built-in tool.
type builtin struct{}

func (builtin) Name() string            { return "read_file" }
func (builtin) Description() string     { return "the built-in" }
func (builtin) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (builtin) Risk() effect.Risk       { return effect.RiskRead }
func (builtin) Concurrent() bool        { return true }
func (builtin) Execute(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{Content: "built-in"}, nil
}

func mustContain(t testing.TB, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}

// npmBin is an npm test program (internal/npmtest).
func npmBin(t *testing.T, name string) string { t.Helper(); return npmtest.Bin(t, name) }
