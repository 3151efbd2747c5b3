package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
)

// fakeTool is a configurable Tool for the registry tests.
type fakeTool struct {
	name   string
	desc   string
	schema string
	exec   func(ctx context.Context, args json.RawMessage) (tools.Result, error)
	calls  atomic.Int32
}

func (f *fakeTool) Name() string            { return f.name }
func (f *fakeTool) Description() string     { return f.desc }
func (f *fakeTool) Schema() json.RawMessage { return json.RawMessage(f.schema) }
func (f *fakeTool) Risk() effect.Risk       { return effect.RiskRead }
func (f *fakeTool) Concurrent() bool        { return true }
func (f *fakeTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	f.calls.Add(1)
	if f.exec != nil {
		return f.exec(ctx, args)
	}
	// Echo: the test sees exactly what the pipeline handed over.
	return tools.Result{Content: string(args)}, nil
}

// slowTool overrides the registry's deadline.
type slowTool struct {
	fakeTool
	timeout time.Duration
}

func (s *slowTool) Timeout() time.Duration { return s.timeout }

const querySchema = `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`

func echo(name, schema string) *fakeTool {
	return &fakeTool{name: name, desc: "echoes " + name, schema: schema}
}

func mustRegister(t testing.TB, r *tools.Registry, ts ...tools.Tool) {
	t.Helper()
	for _, tool := range ts {
		if err := r.Register(tool); err != nil {
			t.Fatalf("Register(%s): %v", tool.Name(), err)
		}
	}
}

func exec(r *tools.Registry, name, args string) tools.Result {
	return r.Execute(context.Background(), llm.ToolCall{ID: "call_1", Name: name, Arguments: args})
}

func wantAnalyze(t *testing.T, res tools.Result) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("IsError = false, want an error result; content %q", res.Content)
	}
	if !strings.HasSuffix(res.Content, "\n"+i18n.AnalyzeErrorSuffix) {
		t.Fatalf("content does not end with the analyze suffix:\n%s", res.Content)
	}
}

func TestRegisterDuplicateFirstWins(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	first := &fakeTool{name: "search", desc: "built-in", schema: querySchema}
	second := &fakeTool{name: "search", desc: "from an MCP server", schema: querySchema}
	mustRegister(t, r, first)

	err := r.Register(second)
	if !errors.Is(err, tools.ErrDuplicateTool) {
		t.Fatalf("second Register = %v, want ErrDuplicateTool", err)
	}
	if !strings.Contains(err.Error(), `"search"`) {
		t.Errorf("error %q does not name the tool", err)
	}
	if got, _ := r.Lookup("search"); got != first {
		t.Fatalf("Lookup returned %v, want the first tool", got)
	}
	if r.Len() != 1 {
		t.Errorf("Len = %d, want 1", r.Len())
	}
	exec(r, "search", `{"query":"x"}`)
	if first.calls.Load() != 1 || second.calls.Load() != 0 {
		t.Errorf("calls first=%d second=%d, want 1 and 0", first.calls.Load(), second.calls.Load())
	}
	if d := r.Definitions(); len(d) != 1 || d[0].Description != "built-in" {
		t.Errorf("Definitions = %+v, want the first tool only", d)
	}
}

func TestRegisterRejects(t *testing.T) {
	var typedNil *fakeTool
	cases := []struct {
		name string
		tool tools.Tool
		want []string
	}{
		{"nil", nil, []string{"nil tool"}},
		{"typed nil", typedNil, []string{"nil tool"}},
		{"empty name", &fakeTool{name: " ", schema: querySchema}, []string{"empty name"}},
		{"bad type keyword", &fakeTool{name: "t1", schema: `{"type":"objec"}`}, []string{`"t1"`, "invalid schema"}},
		{"bad property type", &fakeTool{name: "t2", schema: `{"type":"object","properties":{"a":{"type":12}}}`}, []string{`"t2"`, "invalid schema", "/properties/a/type"}},
		{"not JSON", &fakeTool{name: "t3", schema: `{"type":`}, []string{`"t3"`, "not valid JSON"}},
		{"boolean schema", &fakeTool{name: "t4", schema: `true`}, []string{`"t4"`, "must be a JSON object"}},
		{"not an object type", &fakeTool{name: "t5", schema: `{"type":"string"}`}, []string{`"t5"`, `"type" must be "object"`}},
		{"external ref", &fakeTool{name: "t6", schema: `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`}, []string{`"t6"`, "refused"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := tools.NewRegistry(tools.Config{})
			err := r.Register(c.tool)
			if err == nil {
				t.Fatal("Register succeeded, want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if r.Len() != 0 {
				t.Errorf("Len = %d after a refused registration", r.Len())
			}
		})
	}
}

func TestRegisterEmptySchemaIsAnEmptyObject(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	mustRegister(t, r, echo("noargs", ""))
	if got := string(r.Definitions()[0].Parameters); got != `{"type":"object","properties":{}}` {
		t.Errorf("Parameters = %s", got)
	}
	if res := exec(r, "noargs", ""); res.IsError || res.Content != "{}" {
		t.Errorf("Execute = %+v", res)
	}
}

func TestDefinitionsSortedAndByteIdentical(t *testing.T) {
	spaced := "{\n  \"type\": \"object\",\n  \"properties\": { \"query\": { \"type\": \"string\" } }\n}"
	build := func(order ...string) *tools.Registry {
		r := tools.NewRegistry(tools.Config{})
		for _, n := range order {
			mustRegister(t, r, echo(n, spaced))
		}
		return r
	}
	r1 := build("charlie", "alpha", "bravo")
	r2 := build("bravo", "charlie", "alpha")

	d1 := r1.Definitions()
	var names []string
	for _, d := range d1 {
		names = append(names, d.Name)
	}
	if got := strings.Join(names, ","); got != "alpha,bravo,charlie" {
		t.Fatalf("names = %s, want alpha,bravo,charlie", got)
	}
	if got := string(d1[0].Parameters); got != `{"type":"object","properties":{"query":{"type":"string"}}}` {
		t.Errorf("Parameters not compacted in source order: %s", got)
	}

	b1, _ := json.Marshal(d1)
	b1again, _ := json.Marshal(r1.Definitions())
	b2, _ := json.Marshal(r2.Definitions())
	if string(b1) != string(b1again) {
		t.Errorf("payload changed between calls:\n%s\n%s", b1, b1again)
	}
	if string(b1) != string(b2) {
		t.Errorf("payload depends on registration order:\n%s\n%s", b1, b2)
	}

	// The cache must follow registrations.
	mustRegister(t, r1, echo("aardvark", spaced))
	if d := r1.Definitions(); len(d) != 4 || d[0].Name != "aardvark" {
		t.Errorf("Definitions after a new registration = %v", d)
	}
	if got := strings.Join(r1.Names(), ","); got != "aardvark,alpha,bravo,charlie" {
		t.Errorf("Names = %s", got)
	}
}

const castSchema = `{"type":"object","properties":{
	"flag":{"type":"boolean"},
	"n":{"type":"integer"},
	"x":{"type":"number"},
	"s":{"type":"string"},
	"either":{"type":["string","integer"]},
	"opt":{"type":["integer","null"]},
	"nested":{"type":"object","properties":{"k":{"type":"integer"}}},
	"list":{"type":"array","items":{"type":"integer"}},
	"ref":{"$ref":"#/$defs/count"}
},"$defs":{"count":{"type":"integer"}}}`

func TestCastStringsToSchemaTypes(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	mustRegister(t, r, echo("cast", castSchema))

	res := exec(r, "cast", `{"flag":"true","n":"3","x":"2.5","s":"7","either":"8","opt":"9",`+
		`"nested":{"k":"4"},"list":["1","2"],"ref":"5","html":"<b>"}`)
	if res.IsError {
		t.Fatalf("error result: %s", res.Content)
	}
	// Keys come out sorted because the object was re-encoded; a string that
	// the schema allows ("s", "either") stays a string; "<" is not escaped.
	want := `{"either":"8","flag":true,"html":"<b>","list":[1,2],"n":3,"nested":{"k":4},"opt":9,"ref":5,"s":"7","x":2.5}`
	if res.Content != want {
		t.Errorf("tool received\n%s\nwant\n%s", res.Content, want)
	}

	res = exec(r, "cast", `{"flag":"FALSE","n":"3.0","x":"-1e3"}`)
	if want := `{"flag":false,"n":3,"x":-1e3}`; res.Content != want {
		t.Errorf("tool received %s, want %s", res.Content, want)
	}

	// An integral number where only an integer is allowed is written as one,
	// so that a Go int field can take it; a "number" keeps its literal.
	res = exec(r, "cast", `{"n":2.0,"x":2.0}`)
	if want := `{"n":2,"x":2.0}`; res.Content != want {
		t.Errorf("tool received %s, want %s", res.Content, want)
	}

	// Arguments needing no cast reach the tool byte for byte.
	if res := exec(r, "cast", ` {"n": 3, "flag": true} `); res.Content != `{"n": 3, "flag": true}` {
		t.Errorf("unchanged arguments were rewritten: %s", res.Content)
	}
}

func TestCastLeavesUnparsableValuesToValidation(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	tool := echo("cast", castSchema)
	mustRegister(t, r, tool)
	for _, args := range []string{
		`{"n":"three"}`,
		`{"n":"2.5"}`,
		`{"n":"null"}`,
		`{"x":"NaN"}`,
		`{"x":"0x10"}`,
		`{"x":"+1"}`,
		`{"flag":"yes"}`,
		`{"flag":"1"}`,
		`{"list":["1","two"]}`,
	} {
		res := exec(r, "cast", args)
		wantAnalyze(t, res)
		if !strings.Contains(res.Content, "got string") {
			t.Errorf("%s: message does not say what was wrong:\n%s", args, res.Content)
		}
	}
	if n := tool.calls.Load(); n != 0 {
		t.Errorf("tool called %d times with invalid arguments", n)
	}
}

func TestValidationErrorIsReadable(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	tool := echo("count", `{"type":"object","properties":{"count":{"type":"integer","minimum":1},"mode":{"enum":["a","b"]},"query":{"type":"string"}},"required":["query"]}`)
	mustRegister(t, r, tool)

	res := exec(r, "count", `{"count":0,"mode":"c"}`)
	wantAnalyze(t, res)
	for _, w := range []string{`invalid arguments for tool "count"`, "missing property 'query'", "at '/count'", "minimum", "at '/mode'", "'a', 'b'"} {
		if !strings.Contains(res.Content, w) {
			t.Errorf("message lacks %q:\n%s", w, res.Content)
		}
	}
	// The library's envelope names a schema URL the model cannot use.
	for _, noise := range []string{"jsonschema validation failed", "mem:///"} {
		if strings.Contains(res.Content, noise) {
			t.Errorf("message contains %q:\n%s", noise, res.Content)
		}
	}
	if tool.calls.Load() != 0 {
		t.Error("tool called despite invalid arguments")
	}
}

func TestTruncateBoundary(t *testing.T) {
	marker := func(n int) string { return fmt.Sprintf("\n\n[… %d characters omitted …]\n\n", n) }
	for _, unit := range []string{"a", "é", "日", "😀"} {
		t.Run(unit, func(t *testing.T) {
			const max = 10
			exact := strings.Repeat(unit, max)
			if got, cut := tools.Truncate(exact, max); got != exact || cut {
				t.Errorf("%d runes at max %d: got %q, %v", max, max, got, cut)
			}
			// Distinct runes so that head and tail positions are checkable.
			in := []rune(strings.Repeat(unit, max+1))
			for i := range in {
				in[i] += rune(i)
			}
			got, cut := tools.Truncate(string(in), max)
			want := string(in[:7]) + marker(1) + string(in[len(in)-3:])
			if !cut || got != want {
				t.Errorf("max+1 runes: got %q, %v; want %q", got, cut, want)
			}
		})
	}

	long := []rune(strings.Repeat("é日a😀", 2500)) // 10000 runes
	for _, max := range []int{1, 2, 3, 7, 100, 5001, 9999} {
		got, cut := tools.Truncate(string(long), max)
		head := max * 7 / 10
		want := string(long[:head]) + marker(len(long)-max) + string(long[len(long)-(max-head):])
		if !cut || got != want {
			t.Errorf("max %d: head/tail boundary wrong", max)
		}
	}
	if got, cut := tools.Truncate(string(long), 0); cut || got != string(long) {
		t.Error("max 0 must mean no limit")
	}
}

func TestExecuteTruncatesEveryResult(t *testing.T) {
	r := tools.NewRegistry(tools.Config{MaxOutput: 20})
	big := strings.Repeat("x", 100)
	mustRegister(t, r,
		&fakeTool{name: "ok", schema: `{}`, exec: func(context.Context, json.RawMessage) (tools.Result, error) {
			return tools.Result{Content: big}, nil
		}},
		&fakeTool{name: "fails", schema: `{}`, exec: func(context.Context, json.RawMessage) (tools.Result, error) {
			return tools.Result{}, errors.New(big)
		}},
	)
	for _, name := range []string{"ok", "fails"} {
		res := exec(r, name, "{}")
		want, _ := tools.Truncate(big, 20)
		if !res.Truncated || res.Content != want {
			t.Errorf("%s: Truncated=%v content %q, want %q", name, res.Truncated, res.Content, want)
		}
	}
	if res := exec(r, "ok", "{}"); res.IsError {
		t.Error("truncation turned a success into an error")
	}
}

func TestRepairArguments(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	mustRegister(t, r, echo("search", querySchema))
	for _, args := range []string{
		`{"query": "x",}`,
		`{'query': 'x'}`,
		`{"query": "x"`,
		`{query: "x"}`,
		"```json\n{\"query\": \"x\"}\n```",
	} {
		res := exec(r, "search", args)
		if res.IsError || res.Content != `{"query":"x"}` {
			t.Errorf("%q: got %+v, want the repaired object", args, res)
		}
	}
}

func TestUnusableArguments(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	tool := echo("search", querySchema)
	mustRegister(t, r, tool)
	cases := map[string]string{
		`]]]`:                 "not valid JSON",
		`{"a":1} {"b":2}`:     "not valid JSON",
		`just some words`:     "must be a JSON object, got string",
		`[{"query":"x"}]`:     "must be a JSON object, got array",
		`"{\"query\":\"x\"}"`: "must be a JSON object, got string",
		`42`:                  "must be a JSON object, got number",
		`{'query': 5,}`:       "at '/query'", // repaired, then still validated
		``:                    "missing property 'query'",
		"  \n\t":              "missing property 'query'",
	}
	for args, want := range cases {
		res := exec(r, "search", args)
		wantAnalyze(t, res)
		if !strings.Contains(res.Content, want) {
			t.Errorf("%q: content lacks %q:\n%s", args, want, res.Content)
		}
	}
	if tool.calls.Load() != 0 {
		t.Errorf("tool called %d times", tool.calls.Load())
	}
}

func TestRepairIsBounded(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	mustRegister(t, r, echo("search", querySchema))
	// Both would keep the repairer busy for seconds (its cost is quadratic
	// on such input); they must be refused up front instead.
	for args, want := range map[string]string{
		strings.Repeat("[{", 2000):                          "nested more than",
		`{"query": "` + strings.Repeat("x", 40<<10) + `",}`: "too large to repair",
	} {
		res := exec(r, "search", args)
		wantAnalyze(t, res)
		if !strings.Contains(res.Content, want) {
			t.Errorf("content lacks %q:\n%.300s", want, res.Content)
		}
	}
	// Brackets inside strings are not nesting.
	deep := `{"query": "` + strings.Repeat("[", 500) + `",}`
	if res := exec(r, "search", deep); res.IsError {
		t.Errorf("brackets inside a string blocked the repair: %.300s", res.Content)
	}
}

func TestEmptyArgumentsAreAnEmptyObject(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	mustRegister(t, r, echo("noargs", `{"type":"object"}`))
	for _, args := range []string{"", "   ", "\n"} {
		if res := exec(r, "noargs", args); res.IsError || res.Content != "{}" {
			t.Errorf("%q: got %+v, want {}", args, res)
		}
	}
}

func TestUnknownToolNamesTheTools(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	mustRegister(t, r, echo("charlie", ""), echo("alpha", ""), echo("bravo", ""))
	res := exec(r, "foo", "{}")
	want := `unknown tool "foo"; available tools: alpha, bravo, charlie` + "\n" + i18n.AnalyzeErrorSuffix
	if !res.IsError || res.Content != want {
		t.Errorf("got %q, want %q", res.Content, want)
	}
}

func TestLegacyNames(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	search := echo("search_knowledge", querySchema)
	read := echo("read_document", "")
	mustRegister(t, r, search, read)

	res := exec(r, "knowledge_search", `{"query":"x"}`)
	if res.IsError || search.calls.Load() != 1 {
		t.Fatalf("legacy call: %+v, successor calls %d", res, search.calls.Load())
	}
	for old, succ := range map[string]tools.Tool{"grep_chunks": search, "list_knowledge_chunks": read, "get_document_info": read, "wiki_read_source_doc": read} {
		if got, ok := r.Lookup(old); !ok || got != succ {
			t.Errorf("Lookup(%s) = %v, %v; want %s", old, got, ok, succ.Name())
		}
	}
	if got := strings.Join(r.Names(), ","); got != "read_document,search_knowledge" {
		t.Errorf("legacy names leak into Names: %s", got)
	}

	// A configured map replaces the default one.
	custom := tools.NewRegistry(tools.Config{Legacy: map[string]string{"find": "search_knowledge"}})
	mustRegister(t, custom, echo("search_knowledge", querySchema))
	if _, ok := custom.Lookup("find"); !ok {
		t.Error("custom legacy name not resolved")
	}
	if _, ok := custom.Lookup("knowledge_search"); ok {
		t.Error("default legacy name resolved although Config.Legacy replaced it")
	}

	// A cycle in a configured map ends as an unknown tool.
	loop := tools.NewRegistry(tools.Config{Legacy: map[string]string{"a": "b", "b": "a"}})
	if res := exec(loop, "a", "{}"); !res.IsError {
		t.Error("legacy cycle did not end as an error")
	}
}

// retrievalTool is a fakeTool whose results describe sources that change
// between turns.
type retrievalTool struct{ *fakeTool }

func (retrievalTool) Retrieval() bool { return true }

// TestLegacyNamesFindRetrievalTools: the engine asks the tool a call names
// whether it is a retrieval tool, and a call may name it by a legacy name:
// Lookup must give the successor, optional interfaces and all, for every
// default legacy name.
func TestLegacyNamesFindRetrievalTools(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	mustRegister(t, r, retrievalTool{echo("search_knowledge", querySchema)}, retrievalTool{echo("read_document", "")},
		echo("write_file", ""))
	for old, succ := range tools.DefaultLegacy() {
		got, ok := r.Lookup(old)
		if !ok {
			t.Errorf("Lookup(%s): not found, want %s", old, succ)
			continue
		}
		if rt, ok := got.(tools.Retrieval); !ok || !rt.Retrieval() {
			t.Errorf("Lookup(%s) = %s, which does not report Retrieval", old, got.Name())
		}
	}
	if got, _ := r.Lookup("write_file"); got != nil {
		if _, ok := got.(tools.Retrieval); ok {
			t.Error("write_file reports Retrieval")
		}
	}
}

func blockUntilDone(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
	<-ctx.Done()
	return tools.Result{}, ctx.Err()
}

func TestTimeout(t *testing.T) {
	r := tools.NewRegistry(tools.Config{Timeout: 5 * time.Millisecond})
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free()
	// Not synchronisation: a safety net so that a registry waiting for the
	// stubborn tool fails the test in seconds instead of hanging it.
	safety := time.AfterFunc(10*time.Second, free)
	defer safety.Stop()
	mustRegister(t, r,
		&fakeTool{name: "blocks", schema: `{}`, exec: blockUntilDone},
		// Ignores its context: the registry must not wait for it.
		&fakeTool{name: "stubborn", schema: `{}`, exec: func(context.Context, json.RawMessage) (tools.Result, error) {
			<-release
			return tools.Result{Content: "late"}, nil
		}},
	)
	for _, name := range []string{"blocks", "stubborn"} {
		res := exec(r, name, "{}")
		if want := "tool " + name + " timed out after 5ms"; !res.IsError || res.Content != want {
			t.Errorf("%s: got %+v, want %q", name, res, want)
		}
	}
}

func TestTimeoutOverride(t *testing.T) {
	r := tools.NewRegistry(tools.Config{Timeout: time.Hour})
	mustRegister(t, r, &slowTool{fakeTool: fakeTool{name: "quick", schema: `{}`, exec: blockUntilDone}, timeout: 2 * time.Millisecond})
	// The caller's own deadline only keeps a broken override from hanging
	// the test for an hour.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res := r.Execute(ctx, llm.ToolCall{Name: "quick", Arguments: "{}"})
	if !res.IsError || !strings.Contains(res.Content, "timed out after 2ms") {
		t.Errorf("got %+v, want the tool's own deadline", res)
	}
}

func TestCallerCancellationIsNotATimeout(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	mustRegister(t, r, &fakeTool{name: "blocks", schema: `{}`, exec: blockUntilDone})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := r.Execute(ctx, llm.ToolCall{Name: "blocks", Arguments: "{}"})
	if !res.IsError || !strings.Contains(res.Content, "canceled") || strings.Contains(res.Content, "timed out") {
		t.Errorf("got %+v", res)
	}
}

func TestPanicRecovered(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	mustRegister(t, r, &fakeTool{name: "boom", schema: `{}`, exec: func(context.Context, json.RawMessage) (tools.Result, error) {
		var m map[string]int
		m["x"] = 1 // nil map write
		return tools.Result{}, nil
	}})
	res := exec(r, "boom", "{}")
	if !res.IsError || !strings.Contains(res.Content, "panicked") || !strings.Contains(res.Content, "nil map") {
		t.Errorf("got %+v", res)
	}
}

func TestToolErrors(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	mustRegister(t, r,
		&fakeTool{name: "err", schema: `{}`, exec: func(context.Context, json.RawMessage) (tools.Result, error) {
			return tools.Result{}, fmt.Errorf("reading index: %w", errors.New("disk full"))
		}},
		&fakeTool{name: "silent", schema: `{}`, exec: func(context.Context, json.RawMessage) (tools.Result, error) {
			return tools.Result{IsError: true}, nil
		}},
		&fakeTool{name: "plain", schema: `{}`, exec: func(context.Context, json.RawMessage) (tools.Result, error) {
			return tools.Result{Content: "no such document", IsError: true, Display: "doc"}, nil
		}},
	)
	if res := exec(r, "err", "{}"); !res.IsError || res.Content != "reading index: disk full" {
		t.Errorf("err: got %+v", res)
	}
	if res := exec(r, "silent", "{}"); !res.IsError || !strings.Contains(res.Content, `"silent"`) {
		t.Errorf("silent: got %+v", res)
	}
	if res := exec(r, "plain", "{}"); !reflect.DeepEqual(res, tools.Result{Content: "no such document", IsError: true, Display: "doc"}) {
		t.Errorf("plain: got %+v", res)
	}
}

func TestConcurrentExecute(t *testing.T) {
	r := tools.NewRegistry(tools.Config{MaxOutput: 50})
	mustRegister(t, r, echo("cast", castSchema), echo("search", querySchema))
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			switch i % 5 {
			case 0:
				if res := exec(r, "cast", fmt.Sprintf(`{"n":"%d","flag":"true"}`, i)); res.IsError {
					t.Errorf("cast: %s", res.Content)
				}
			case 1:
				if res := exec(r, "search", `{'query': 'x',}`); res.IsError {
					t.Errorf("search: %s", res.Content)
				}
			case 2:
				if d := r.Definitions(); len(d) < 2 {
					t.Errorf("Definitions: %d", len(d))
				}
			case 3:
				if res := exec(r, "missing", `{}`); !res.IsError {
					t.Error("unknown tool succeeded")
				}
				r.Names()
				r.Lookup("grep_chunks")
			case 4:
				// Late registrations must not race the calls in flight.
				if err := r.Register(echo(fmt.Sprintf("late_%d", i), querySchema)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

func FuzzExecuteArgs(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"q":"x","n":3,"flag":true}`, `{"n":"3","flag":"true"}`, `{'q': 'x',}`,
		`{"q": "x"`, `[1,2]`, `"str"`, `null`, `]]]`, "```json\n{}\n```", `{"n":"1e400"}`,
		`{"list":["1",{"a":"2"}]}`, `{"q":"\ud800"}`, "{\"q\":\"\xff\"}", `{"a":{"b":{"c":[[[[]]]]}}}`,
	} {
		f.Add(s)
	}
	r := tools.NewRegistry(tools.Config{MaxOutput: 200})
	mustRegister(f, r, echo("echo", `{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"},`+
		`"flag":{"type":"boolean"},"list":{"type":"array","items":{"type":"number"}}}}`))
	f.Fuzz(func(t *testing.T, args string) {
		res := r.Execute(context.Background(), llm.ToolCall{Name: "echo", Arguments: args})
		if res.Content == "" {
			t.Fatalf("empty content for %q", args)
		}
		if res.IsError {
			return
		}
		// A success means the tool got a JSON object. Valid, not Unmarshal:
		// 1e700 is valid JSON that no float64 holds.
		if !res.Truncated && (!json.Valid([]byte(res.Content)) || res.Content[0] != '{') {
			t.Fatalf("tool received %q (from %q)", res.Content, args)
		}
	})
}

func BenchmarkExecute(b *testing.B) {
	r := tools.NewRegistry(tools.Config{})
	mustRegister(b, r, &fakeTool{name: "search", schema: `{"type":"object","properties":{"query":{"type":"string"},` +
		`"limit":{"type":"integer","minimum":1},"exact":{"type":"boolean"}},"required":["query"]}`,
		exec: func(context.Context, json.RawMessage) (tools.Result, error) {
			return tools.Result{Content: "3 results"}, nil
		}})
	call := llm.ToolCall{ID: "c1", Name: "search", Arguments: `{"query":"moteur","limit":"5","exact":"true"}`}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Execute(ctx, call); res.IsError {
			b.Fatal(res.Content)
		}
	}
}

func BenchmarkDefinitions(b *testing.B) {
	r := tools.NewRegistry(tools.Config{})
	for i := range 50 {
		mustRegister(b, r, echo(fmt.Sprintf("tool_%02d", 49-i), querySchema))
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(r.Definitions()) != 50 {
			b.Fatal("wrong count")
		}
	}
}

type bigTool struct{ fakeTool }

func (*bigTool) MaxOutput() int { return 100 }

func TestToolsMayHaveTheirOwnOutputLimit(t *testing.T) {
	r := tools.NewRegistry(tools.Config{MaxOutput: 10})
	long := strings.Repeat("x", 80)
	mustRegister(t, r, &bigTool{fakeTool{name: "big", schema: `{}`, exec: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: long}, nil
	}}})
	if res := exec(r, "big", "{}"); res.Content != long || res.Truncated {
		t.Errorf("a tool's own limit (100) must apply instead of the registry's (10): %+v", res)
	}
}

// A failed call keeps the classification of what it drew on: its message
// may still tell something of a classified file.
func TestErrorKeepsClassified(t *testing.T) {
	r := tools.NewRegistry(tools.Config{})
	ft := &fakeTool{name: "edit_file", schema: `{"type":"object"}`,
		exec: func(context.Context, json.RawMessage) (tools.Result, error) {
			return tools.Result{Classified: "path:secret/**"}, errors.New("old_string occurs 3 times (lines 4, 9, 12)")
		}}
	if err := r.Register(ft); err != nil {
		t.Fatal(err)
	}
	res := r.Execute(context.Background(), llm.ToolCall{ID: "c", Name: "edit_file", Arguments: `{}`})
	if !res.IsError || res.Classified != "path:secret/**" || !strings.Contains(res.Content, "occurs 3 times") {
		t.Fatalf("result %+v", res)
	}
}
