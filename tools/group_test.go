package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
)

// fakeGroup is a Group whose tools the test swaps, bumping the generation.
type fakeGroup struct {
	gen atomic.Uint64

	mu       sync.Mutex
	tools    []tools.Tool
	calls    int // Tools calls
	rejected []string
}

func (g *fakeGroup) Generation() uint64 { return g.gen.Load() }

func (g *fakeGroup) Tools() []tools.Tool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls++
	return append([]tools.Tool(nil), g.tools...)
}

func (g *fakeGroup) set(ts ...tools.Tool) {
	g.mu.Lock()
	g.tools = ts
	g.mu.Unlock()
	g.gen.Add(1)
}

func (g *fakeGroup) Rejected(t tools.Tool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	name := "<nil>"
	if t != nil {
		name = t.Name()
	}
	g.rejected = append(g.rejected, name+": "+err.Error())
}

func (g *fakeGroup) rejections() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.rejected...)
}

// schemaCounter counts Schema calls: a compile.
type schemaCounter struct {
	fakeTool
	schemas atomic.Int32
}

func (s *schemaCounter) Schema() json.RawMessage {
	s.schemas.Add(1)
	return s.fakeTool.Schema()
}

func defNames(defs []llm.ToolDef) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Name
	}
	return out
}

func TestGroupChangesAreSeenAtTheNextLookup(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	mustRegister(t, r, echo("builtin", querySchema))
	g := &fakeGroup{}
	g.set(echo("mcp_a_one", querySchema))
	if err := r.AddGroup(g); err != nil {
		t.Fatal(err)
	}
	if got := defNames(r.Definitions()); !reflect.DeepEqual(got, []string{"builtin", "mcp_a_one"}) {
		t.Fatalf("definitions = %v", got)
	}
	g.set(echo("mcp_a_two", querySchema), echo("mcp_a_zero", querySchema))
	if got := defNames(r.Definitions()); !reflect.DeepEqual(got, []string{"builtin", "mcp_a_two", "mcp_a_zero"}) {
		t.Fatalf("after a change, definitions = %v", got)
	}
	if _, ok := r.Lookup("mcp_a_one"); ok {
		t.Error("a withdrawn tool is still found")
	}
	res := r.Execute(context.Background(), llm.ToolCall{Name: "mcp_a_two", Arguments: `{"query":"x"}`})
	if res.IsError || res.Content != `{"query":"x"}` {
		t.Errorf("call of a group tool = %+v", res)
	}
	if r.Len() != 3 || !reflect.DeepEqual(r.Names(), []string{"builtin", "mcp_a_two", "mcp_a_zero"}) {
		t.Errorf("Len %d, Names %v", r.Len(), r.Names())
	}
}

func TestGroupIsReadOncePerGeneration(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	g := &fakeGroup{}
	st := &schemaCounter{fakeTool: *echo("mcp_a_one", querySchema)}
	g.set(st)
	if err := r.AddGroup(g); err != nil {
		t.Fatal(err)
	}
	first, _ := json.Marshal(r.Definitions())
	for range 5 {
		r.Lookup("mcp_a_one")
		r.Definitions()
	}
	again, _ := json.Marshal(r.Definitions())
	if string(first) != string(again) {
		t.Errorf("definitions changed without a new generation:\n%s\n%s", first, again)
	}
	if g.calls != 1 {
		t.Errorf("Tools called %d times for one generation, want 1", g.calls)
	}
	// A new generation offering the same tool again: read again, not
	// compiled again.
	g.set(st, echo("mcp_a_two", querySchema))
	r.Definitions()
	if g.calls != 2 || st.schemas.Load() != 1 {
		t.Errorf("Tools calls %d (want 2), schema compiled %d times (want 1)", g.calls, st.schemas.Load())
	}
}

func TestGroupNeverShadowsARegisteredTool(t *testing.T) {
	for _, groupFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("group added first %v", groupFirst), func(t *testing.T) {
			r := tools.NewRegistry(tools.Config{})
			builtin := echo("read_file", querySchema)
			builtin.desc = "the built-in"
			impostor := echo("read_file", querySchema)
			impostor.desc = "an MCP server's"
			g := &fakeGroup{}
			g.set(impostor, echo("mcp_x_y", querySchema))
			if groupFirst {
				if err := r.AddGroup(g); err != nil {
					t.Fatal(err)
				}
				r.Definitions() // the group holds the name for now
			}
			mustRegister(t, r, builtin)
			if !groupFirst {
				if err := r.AddGroup(g); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := r.Lookup("read_file")
			if !ok || got.Description() != "the built-in" {
				t.Fatalf("read_file is %v", got)
			}
			if _, ok := r.Lookup("mcp_x_y"); !ok {
				t.Error("the group's other tool was dropped")
			}
			rej := g.rejections()
			if len(rej) != 1 || !strings.Contains(rej[0], "duplicate tool name") {
				t.Errorf("rejections = %q", rej)
			}
			// Still refused, and not reported again, at the next generation.
			g.set(impostor, echo("mcp_x_y", querySchema))
			if got, _ := r.Lookup("read_file"); got.Description() != "the built-in" {
				t.Error("the group took the name at its next generation")
			}
			if len(g.rejections()) != 1 {
				t.Errorf("rejection reported again: %q", g.rejections())
			}
			if err := r.Register(echo("read_file", querySchema)); !errors.Is(err, tools.ErrDuplicateTool) {
				t.Errorf("second Register = %v", err)
			}
		})
	}
}

func TestFirstGroupWinsAName(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	a, b := &fakeGroup{}, &fakeGroup{}
	one := echo("shared", querySchema)
	one.desc = "first"
	two := echo("shared", querySchema)
	two.desc = "second"
	a.set(one)
	b.set(two)
	_ = r.AddGroup(a)
	_ = r.AddGroup(b)
	if got, _ := r.Lookup("shared"); got.Description() != "first" {
		t.Errorf("shared is %q", got.Description())
	}
	if len(a.rejections()) != 0 || len(b.rejections()) != 1 {
		t.Errorf("rejections a=%q b=%q", a.rejections(), b.rejections())
	}
	// The first group withdraws it: the second gets it.
	a.set()
	if got, _ := r.Lookup("shared"); got == nil || got.Description() != "second" {
		t.Errorf("after withdrawal shared is %v", got)
	}
}

func TestGroupToolWithInvalidSchemaIsSkippedOnce(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	g := &fakeGroup{}
	bad := echo("mcp_a_bad", `{"type":"object","properties":{"x":{"type":"nonsense"}}}`)
	good := echo("mcp_a_good", querySchema)
	g.set(bad, good, nil)
	_ = r.AddGroup(g)
	if got := r.Names(); !reflect.DeepEqual(got, []string{"mcp_a_good"}) {
		t.Fatalf("names = %v", got)
	}
	rej := g.rejections()
	if len(rej) != 2 || !strings.Contains(rej[0], "mcp_a_bad") || !strings.Contains(rej[0], "invalid schema") || !strings.Contains(rej[1], "nil tool") {
		t.Fatalf("rejections = %q", rej)
	}
	g.set(bad, good)
	r.Names()
	if got := g.rejections(); len(got) != 2 {
		t.Errorf("the same broken tool was reported again: %q", got)
	}
}

func TestAddGroupNil(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	var g *fakeGroup
	if err := r.AddGroup(g); !errors.Is(err, tools.ErrNilGroup) {
		t.Errorf("AddGroup(typed nil) = %v", err)
	}
	if err := r.AddGroup(nil); !errors.Is(err, tools.ErrNilGroup) {
		t.Errorf("AddGroup(nil) = %v", err)
	}
}

// Run with -race: calls go on while the group's tools change under them.
func TestGroupChangesDuringConcurrentCalls(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	g := &fakeGroup{}
	g.set(echo("mcp_a_0", querySchema))
	_ = r.AddGroup(g)
	var wg sync.WaitGroup
	var ok atomic.Int32
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				name := fmt.Sprintf("mcp_a_%d", (i+w)%3)
				res := r.Execute(context.Background(), llm.ToolCall{Name: name, Arguments: `{"query":"q"}`})
				if !res.IsError {
					ok.Add(1)
				}
				r.Definitions()
			}
		}()
	}
	for i := range 100 {
		g.set(echo(fmt.Sprintf("mcp_a_%d", i%3), querySchema), echo("mcp_a_0", querySchema))
	}
	wg.Wait()
	if ok.Load() == 0 {
		t.Error("no call succeeded")
	}
	g.set(echo("mcp_a_2", querySchema))
	if got := r.Names(); !reflect.DeepEqual(got, []string{"mcp_a_2"}) {
		t.Errorf("final names = %v", got)
	}
}
