package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/llm"
	mcp "github.com/moteur/moteur/mcp"
	"github.com/moteur/moteur/tools"
)

// staticBackend serves fixed definitions, so that benchmarks measure the
// tools side alone.
type staticBackend struct {
	gen     atomic.Uint64
	servers []mcp.ServerInfo
	tools   map[string][]*mcpsdk.Tool
}

func (b *staticBackend) Servers() []mcp.ServerInfo             { return b.servers }
func (b *staticBackend) ServerTools(s string) []*mcpsdk.Tool   { return b.tools[s] }
func (b *staticBackend) Refresh(context.Context, string) error { b.gen.Add(1); return nil }
func (b *staticBackend) Generation() uint64                    { return b.gen.Load() }
func (b *staticBackend) CallTool(context.Context, string, string, json.RawMessage) (*mcpsdk.CallToolResult, error) {
	return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "ok"}}}, nil
}
func (b *staticBackend) ReadResource(context.Context, string, string) (*mcpsdk.ReadResourceResult, error) {
	return &mcpsdk.ReadResourceResult{}, nil
}

var benchVerbs = []string{"list", "get", "create", "update", "delete", "search", "close", "merge", "comment", "archive"}
var benchNouns = []string{"issue", "repository", "branch", "ticket", "page", "user", "project", "file", "label", "release",
	"build", "deployment", "alert", "invoice", "contact", "message", "channel", "document", "folder", "task"}

// catalogOf makes n tools over servers servers, with realistic schemas.
func catalogOf(servers, n int) *staticBackend { return catalogGen(servers, n, 0) }

// catalogGen is catalogOf with schemas of its own generation: schemas the
// process never compiled (the compiled ones are kept, see
// BenchmarkRegister200Again).
func catalogGen(servers, n, gen int) *staticBackend {
	b := &staticBackend{tools: map[string][]*mcpsdk.Tool{}}
	for s := range servers {
		b.servers = append(b.servers, mcp.ServerInfo{Name: fmt.Sprintf("srv%02d", s), Transport: "stdio"})
	}
	for i := range n {
		srv := b.servers[i%servers].Name
		verb, noun := benchVerbs[i%len(benchVerbs)], benchNouns[(i/len(benchVerbs))%len(benchNouns)]
		name := fmt.Sprintf("%s_%s_%d", verb, noun, i)
		b.tools[srv] = append(b.tools[srv], &mcpsdk.Tool{
			Name:        name,
			Description: fmt.Sprintf("%s a %s of the %s service; returns its id, title, status and owner.", verb, noun, srv),
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"id":{"type":"string","description":"The %s id (%d.%d)"},`+
				`"limit":{"type":"integer","minimum":1,"maximum":100},"filter":{"type":"object","properties":{"status":{"type":"string","enum":["open","closed"]}}}},"required":["id"]}`, noun, gen, i)),
			Annotations: &mcpsdk.ToolAnnotations{ReadOnlyHint: verb == "list" || verb == "get" || verb == "search"},
		})
	}
	return b
}

// Cold: a session's registry takes in 200 definitions the process never
// saw (names, schemas compiled twice — the set's own check and the
// registry's — and the sorted payload).
func BenchmarkRegister200Cold(b *testing.B) {
	b.ReportAllocs()
	gen := 0
	for b.Loop() {
		b.StopTimer()
		gen++
		back := catalogGen(5, 200, gen)
		b.StartTimer()
		register200(b, back)
	}
}

// Again: the same 200 definitions in a new session's registry, as a server
// that opens a session per turn does: the registry's compiled schemas are
// the process's.
func BenchmarkRegister200Again(b *testing.B) {
	back := catalogOf(5, 200)
	register200(b, back)
	b.ReportAllocs()
	for b.Loop() {
		register200(b, back)
	}
}

func register200(b *testing.B, back *staticBackend) {
	set, _ := mcp.NewToolSet(back, mcp.ToolSetConfig{CatalogThreshold: 1000})
	reg := tools.NewRegistry(tools.Config{})
	_ = reg.AddGroup(set)
	if len(reg.Definitions()) != 200 {
		b.Fatal("not 200 definitions")
	}
}

// Warm: the definitions of each round, nothing changed.
func BenchmarkDefinitions200Warm(b *testing.B) {
	back := catalogOf(5, 200)
	set, _ := mcp.NewToolSet(back, mcp.ToolSetConfig{CatalogThreshold: 1000})
	reg := tools.NewRegistry(tools.Config{})
	_ = reg.AddGroup(set)
	reg.Definitions()
	b.ReportAllocs()
	for b.Loop() {
		reg.Definitions()
	}
}

// A list_changed that changed nothing: re-listed, names assigned again,
// nothing compiled again.
func BenchmarkDefinitions200Relisted(b *testing.B) {
	back := catalogOf(5, 200)
	set, _ := mcp.NewToolSet(back, mcp.ToolSetConfig{CatalogThreshold: 1000})
	reg := tools.NewRegistry(tools.Config{})
	_ = reg.AddGroup(set)
	reg.Definitions()
	b.ReportAllocs()
	for b.Loop() {
		back.gen.Add(1)
		reg.Definitions()
	}
}

// The lookup every call makes (risk, concurrency, execution).
func BenchmarkLookup200(b *testing.B) {
	back := catalogOf(5, 200)
	set, _ := mcp.NewToolSet(back, mcp.ToolSetConfig{CatalogThreshold: 1000})
	reg := tools.NewRegistry(tools.Config{})
	_ = reg.AddGroup(set)
	name := reg.Names()[100]
	b.ReportAllocs()
	for b.Loop() {
		reg.Lookup(name)
	}
}

// discover_mcp_tools search over 1,000 tools, through the registry, JSON
// rendering included (the index is built once per catalog generation).
func BenchmarkSearch1000(b *testing.B) {
	back := catalogOf(10, 1000)
	set, _ := mcp.NewToolSet(back, mcp.ToolSetConfig{})
	reg := tools.NewRegistry(tools.Config{})
	_ = reg.AddGroup(set)
	call := llm.ToolCall{Name: "discover_mcp_tools", Arguments: `{"mode":"search","query":"close the open tickets"}`}
	if r := reg.Execute(context.Background(), call); r.IsError {
		b.Fatal(r.Content)
	}
	b.ReportAllocs()
	for b.Loop() {
		reg.Execute(context.Background(), call)
	}
}

// The same catalog's first search: listing, naming, compiling the 1,000
// schemas and indexing.
func BenchmarkSearch1000Cold(b *testing.B) {
	back := catalogOf(10, 1000)
	call := llm.ToolCall{Name: "discover_mcp_tools", Arguments: `{"mode":"search","query":"close the open tickets"}`}
	b.ReportAllocs()
	for b.Loop() {
		set, _ := mcp.NewToolSet(back, mcp.ToolSetConfig{})
		reg := tools.NewRegistry(tools.Config{})
		_ = reg.AddGroup(set)
		reg.Execute(context.Background(), call)
	}
}
