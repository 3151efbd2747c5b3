package mcp_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	mcp "github.com/moteur/moteur/mcp"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/tools"
)

// Scripted agent turns through the real engine and a model server that
// speaks the OpenAI streaming protocol: what reached the MCP server, and
// what the model was sent next.

type eventSink struct {
	mu  sync.Mutex
	evs []event.Event
}

func (s *eventSink) Write(_ context.Context, e event.Event) error {
	s.mu.Lock()
	s.evs = append(s.evs, e)
	s.mu.Unlock()
	return nil
}

func (s *eventSink) results() []event.ToolResultPayload {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []event.ToolResultPayload
	for _, e := range s.evs {
		if e.Type != event.ToolResult {
			continue
		}
		var p event.ToolResultPayload
		switch v := e.Payload.(type) {
		case event.ToolResultPayload:
			p = v
		case *event.ToolResultPayload:
			p = *v
		default:
			raw, _ := json.Marshal(v)
			_ = json.Unmarshal(raw, &p)
		}
		out = append(out, p)
	}
	return out
}

// turn runs one turn of the engine with reg against the scripted model.
func turn(t *testing.T, reg *tools.Registry, srv *openaitest.Server) *eventSink {
	t.Helper()
	client, err := openai.New(openai.Config{BaseURL: srv.BaseURL(), Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	sink := &eventSink{}
	e, err := engine.New(engine.Deps{Provider: client, Tools: reg, Sinks: []event.Sink{sink},
		RetryDelays: []time.Duration{time.Millisecond}, StallTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ch := e.Subscribe()
	go func() {
		for range ch {
		}
	}()
	if err := e.Submit(context.Background(), "mcp-turn", "File a bug about the login page."); err != nil {
		t.Fatal(err)
	}
	srv.CheckPairing(t)
	return sink
}

// lastToolMessage is the tool result a request ends with.
func lastToolMessage(t *testing.T, req openaitest.Request, callID string) llm.Message {
	t.Helper()
	m := req.Messages[len(req.Messages)-1]
	if m.Role != llm.RoleTool || m.ToolCallID != callID {
		t.Fatalf("the request does not end with the result of %s: %+v", callID, m)
	}
	return m
}

func TestTurnThroughTheCatalog(t *testing.T) {
	rec := &serverCalls{}
	b := newMemBackend()
	b.serve(t, "github", githubServer(rec, nil))
	s := newSession(t, b, mcp.ToolSetConfig{CatalogThreshold: 2}, tools.Config{})

	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "discover_mcp_tools", `{"mode":"search","query":"create an issue"}`),
		openaitest.Calls("call_2", "discover_mcp_tools", `{"mode":"describe","tool_name":"mcp_github_create_issue"}`),
		openaitest.Calls("call_3", "call_mcp_tool", `{"tool_ref":"mcp_github_create_issue","arguments":{"text":"login page broken"}}`),
		openaitest.Answer("Filed."),
	)
	sink := turn(t, s.reg, srv)

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	first := reqs[0].Tools
	if !slices.Contains(first, "discover_mcp_tools") || !slices.Contains(first, "call_mcp_tool") || slices.Contains(first, "mcp_github_create_issue") {
		t.Errorf("over the threshold the model was offered %v", first)
	}
	found := lastToolMessage(t, reqs[1], "call_1")
	mustContain(t, "search result sent to the model", found.Content, `"tool_ref": "mcp_github_create_issue"`)
	described := lastToolMessage(t, reqs[2], "call_2")
	mustContain(t, "describe result sent to the model", described.Content, `"input_schema"`, `"required": [`)
	called := lastToolMessage(t, reqs[3], "call_3")
	if called.Content != "ok create_issue" {
		t.Errorf("the model was sent %q", called.Content)
	}
	if got := rec.all(); !reflect.DeepEqual(got, []string{`create_issue {"text":"login page broken"}`}) {
		t.Errorf("the MCP server received %q", got)
	}
	res := sink.results()
	if len(res) != 3 || res[2].Name != "call_mcp_tool" || res[2].Risk != "write" {
		t.Errorf("ToolResult events = %+v", res)
	}
}

func TestTurnCallsTheToolDirectlyUnderTheThreshold(t *testing.T) {
	rec := &serverCalls{}
	b := newMemBackend()
	srv := githubServer(rec, nil)
	b.serve(t, "github", srv)
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{})
	// The call makes the server offer one more tool; the manager re-lists
	// before the result is back, as it would on list_changed.
	b.afterCall = func() {
		addTool(srv, rec, &mcpsdk.Tool{Name: "close_issue"}, nil)
		_ = b.Refresh(context.Background(), "github")
	}

	model := openaitest.NewServer(t,
		openaitest.Calls("call_1", "mcp_github_create_issue", `{"text":"login page broken"}`,
			"call_2", "mcp_github_create_issue", `{"title":"no text"}`),
		openaitest.Answer("Filed."),
	)
	sink := turn(t, s.reg, model)

	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if slices.Contains(reqs[0].Tools, "discover_mcp_tools") || !slices.Contains(reqs[0].Tools, "mcp_github_create_issue") {
		t.Errorf("under the threshold the model was offered %v", reqs[0].Tools)
	}
	if slices.Contains(reqs[0].Tools, "mcp_github_close_issue") || !slices.Contains(reqs[1].Tools, "mcp_github_close_issue") {
		t.Errorf("the new tool was not offered at the next round: %v then %v", reqs[0].Tools, reqs[1].Tools)
	}
	// Each call answered by its result, in call order: the valid one ran,
	// the refused one reached nobody.
	msgs := reqs[1].Messages
	n := len(msgs)
	if msgs[n-2].ToolCallID != "call_1" || msgs[n-2].Content != "ok create_issue" {
		t.Errorf("first result = %+v", msgs[n-2])
	}
	if msgs[n-1].ToolCallID != "call_2" || !strings.Contains(msgs[n-1].Content, `invalid arguments for tool "mcp_github_create_issue"`) {
		t.Errorf("second result = %+v", msgs[n-1])
	}
	if got := rec.all(); !reflect.DeepEqual(got, []string{`create_issue {"text":"login page broken"}`}) {
		t.Errorf("the MCP server received %q", got)
	}
	if res := sink.results(); len(res) != 2 || !res[1].IsError || res[0].Risk != "write" {
		t.Errorf("ToolResult events = %+v", res)
	}
}
