package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/llm"
	mcp "github.com/moteur/moteur/mcp"
	"github.com/moteur/moteur/tools"
)

// githubServer offers tools of every risk class, a tool whose name needs
// sanitising, one whose schema is broken, and one that never answers.
func githubServer(rec *serverCalls, slow *slowHooks) *mcpsdk.Server {
	srv := newServer("github")
	addTool(srv, rec, &mcpsdk.Tool{Name: "search_issues", Description: "Search issues.\nSecond line.",
		Annotations: &mcpsdk.ToolAnnotations{ReadOnlyHint: true}}, nil)
	addTool(srv, rec, &mcpsdk.Tool{Name: "create_issue", Description: "Create an issue."}, nil)
	addTool(srv, rec, &mcpsdk.Tool{Name: "delete_repo", Description: "Delete a repository.",
		Annotations: &mcpsdk.ToolAnnotations{DestructiveHint: boolp(true)}}, nil)
	addTool(srv, rec, &mcpsdk.Tool{Name: "list.repos", Description: "List repositories.",
		Annotations: &mcpsdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: boolp(false)}}, nil)
	addTool(srv, rec, &mcpsdk.Tool{Name: "broken", Description: "Broken schema.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"nonsense"}}}`)}, nil)
	srv.AddTool(&mcpsdk.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			if slow != nil {
				slow.started <- struct{}{}
			}
			<-ctx.Done()
			if slow != nil {
				slow.cancelled <- struct{}{}
			}
			return nil, ctx.Err()
		})
	return srv
}

// slowHooks tell a test that the slow tool's handler started and that
// the server saw its request cancelled.
type slowHooks struct{ started, cancelled chan struct{} }

func newSlowHooks() *slowHooks {
	return &slowHooks{started: make(chan struct{}, 1), cancelled: make(chan struct{}, 1)}
}

func (h *slowHooks) wait(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("the server never %s", what)
	}
}

func TestDirectToolsAreRegisteredWithNameRiskAndDescription(t *testing.T) {
	b := newMemBackend()
	b.serve(t, "github", githubServer(nil, nil))
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{})

	want := []string{"mcp_github_create_issue", "mcp_github_delete_repo", "mcp_github_list_repos",
		"mcp_github_search_issues", "mcp_github_slow", "read_file"}
	if got := s.reg.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("names = %v\nwant    %v", got, want)
	}
	risks := map[string]effect.Risk{
		"mcp_github_search_issues": effect.RiskRead,
		"mcp_github_list_repos":    effect.RiskRead,
		"mcp_github_create_issue":  effect.RiskWrite,
		"mcp_github_delete_repo":   effect.RiskDestructive,
	}
	for name, risk := range risks {
		tool, _ := s.reg.Lookup(name)
		if tool.Risk() != risk {
			t.Errorf("%s: risk %s, want %s", name, tool.Risk(), risk)
		}
		if tool.Concurrent() != (risk == effect.RiskRead) {
			t.Errorf("%s: concurrent %v", name, tool.Concurrent())
		}
	}
	tool, _ := s.reg.Lookup("mcp_github_search_issues")
	if d := tool.Description(); !strings.HasPrefix(d, "[MCP server github, tool search_issues] Search issues.") {
		t.Errorf("description = %q", d)
	}
	w := s.warn.all()
	if len(w) != 1 || !strings.Contains(w[0], `tool "broken"`) || !strings.Contains(w[0], "invalid schema") {
		t.Errorf("warnings = %q", w)
	}
	if s.set.Catalog() {
		t.Error("6 tools are under the threshold: no catalog")
	}
	if got := s.set.ToolNames("github"); len(got) != 5 {
		t.Errorf("ToolNames = %v", got)
	}
}

func TestDirectCallReachesTheServer(t *testing.T) {
	rec := &serverCalls{}
	b := newMemBackend()
	b.serve(t, "github", githubServer(rec, nil))
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{})

	// Refused by the tool's own schema: an error result, nothing sent.
	bad := s.reg.Execute(context.Background(), llm.ToolCall{Name: "mcp_github_create_issue", Arguments: `{"title":"x"}`})
	if !bad.IsError || !strings.Contains(bad.Content, "text") {
		t.Errorf("bad arguments gave %+v", bad)
	}
	good := s.reg.Execute(context.Background(), llm.ToolCall{Name: "mcp_github_create_issue", Arguments: `{"text":"hello"}`})
	if good.IsError || good.Content != "ok create_issue" {
		t.Errorf("good call gave %+v", good)
	}
	if got := rec.all(); !reflect.DeepEqual(got, []string{`create_issue {"text":"hello"}`}) {
		t.Errorf("the server received %q; want only the valid call", got)
	}
	if n := b.calls("github"); n != 1 {
		t.Errorf("%d calls sent, want 1", n)
	}
	// The sanitised name calls the tool by its own name.
	s.reg.Execute(context.Background(), llm.ToolCall{Name: "mcp_github_list_repos", Arguments: `{"text":"a"}`})
	if got := rec.all(); len(got) != 2 || got[1] != `list.repos {"text":"a"}` {
		t.Errorf("the server received %q", got)
	}
}

func TestBuiltinKeepsItsNameAgainstAnMCPTool(t *testing.T) {
	// MCP names all start with mcp_, so only a built-in of such a name
	// could meet one; it keeps the name even registered after the MCP
	// tools were offered, and the MCP tool is left out with a warning.
	b := newMemBackend()
	srv := newServer("x")
	addTool(srv, nil, &mcpsdk.Tool{Name: "t"}, nil)
	b.serve(t, "x", srv)
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{})
	if _, ok := s.reg.Lookup("mcp_x_t"); !ok {
		t.Fatal("the MCP tool is not offered")
	}
	if err := s.reg.Register(impostor{}); err != nil {
		t.Fatal(err)
	}
	if tool, _ := s.reg.Lookup("mcp_x_t"); tool.Description() != "the built-in" {
		t.Errorf("mcp_x_t is %q, not the built-in", tool.Description())
	}
	if w := s.warn.all(); len(w) != 1 || !strings.Contains(w[0], `MCP server "x": tool "t" left out`) || !strings.Contains(w[0], "duplicate") {
		t.Errorf("warnings = %q", w)
	}
}

type impostor struct{ builtin }

func (impostor) Name() string { return "mcp_x_t" }

func TestRegistryTimeoutAppliesToMCPCalls(t *testing.T) {
	slow := newSlowHooks()
	b := newMemBackend()
	b.serve(t, "github", githubServer(nil, slow))
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{Timeout: 200 * time.Millisecond})
	res := s.reg.Execute(context.Background(), llm.ToolCall{Name: "mcp_github_slow", Arguments: `{}`})
	if !res.IsError || !strings.Contains(res.Content, "timed out after 200ms") {
		t.Errorf("result = %+v", res)
	}
	slow.wait(t, slow.started, "received the call")
	slow.wait(t, slow.cancelled, "saw the call cancelled")
}

func TestListChangedIsSeenAtTheNextRound(t *testing.T) {
	b := newMemBackend()
	srv := newServer("notes")
	addTool(srv, nil, &mcpsdk.Tool{Name: "read_note"}, nil)
	b.serve(t, "notes", srv)
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{})
	before, _ := json.Marshal(s.reg.Definitions())
	if !strings.Contains(string(before), "mcp_notes_read_note") {
		t.Fatalf("definitions = %s", before)
	}
	addTool(srv, nil, &mcpsdk.Tool{Name: "write_note"}, nil)
	srv.RemoveTools("read_note")
	// Two notifications (add, remove), possibly coalesced into one.
	deadline := time.After(10 * time.Second)
	for {
		names := s.reg.Names()
		if reflect.DeepEqual(names, []string{"mcp_notes_write_note", "read_file"}) {
			break
		}
		select {
		case <-b.changed:
		case <-deadline:
			t.Fatalf("names after list_changed = %v", names)
		}
	}
	res := s.reg.Execute(context.Background(), llm.ToolCall{Name: "mcp_notes_read_note", Arguments: `{"text":"a"}`})
	if !res.IsError || !strings.Contains(res.Content, "mcp_notes_write_note") {
		t.Errorf("a withdrawn tool's call = %+v", res)
	}
}

func TestThresholdSwitchesToTheCatalog(t *testing.T) {
	b := newMemBackend()
	srv := newServer("big")
	for i := range 5 {
		addTool(srv, nil, &mcpsdk.Tool{Name: fmt.Sprintf("tool%d", i)}, nil)
	}
	b.serve(t, "big", srv)
	s := newSession(t, b, mcp.ToolSetConfig{CatalogThreshold: 4}, tools.Config{})
	if got := s.reg.Names(); !reflect.DeepEqual(got, []string{"call_mcp_tool", "discover_mcp_tools", "read_file"}) {
		t.Errorf("over the threshold, names = %v", got)
	}
	srv.RemoveTools("tool4")
	deadline := time.After(10 * time.Second)
	for len(s.reg.Names()) != 5 {
		select {
		case <-b.changed:
		case <-deadline:
			t.Fatalf("at the threshold, names = %v", s.reg.Names())
		}
	}
	if got := s.reg.Names(); got[0] != "mcp_big_tool0" {
		t.Errorf("at the threshold, names = %v", got)
	}
}

func TestManagerErrorsBecomeClearResults(t *testing.T) {
	b := newMemBackend()
	srv := newServer("remote")
	addTool(srv, nil, &mcpsdk.Tool{Name: "t"}, nil)
	b.serve(t, "remote", srv)
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{})
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("process exited: %w", mcp.ErrServerDown), `The MCP server "remote" is down`},
		{fmt.Errorf("401: %w", mcp.ErrLoginRequired), "moteur mcp login remote"},
		{errors.New("boom"), `The call of the MCP tool "t" on server "remote" failed: boom`},
	} {
		b.setFail("remote", c.err)
		res := s.reg.Execute(context.Background(), llm.ToolCall{Name: "mcp_remote_t", Arguments: `{"text":"a"}`})
		if !res.IsError || !strings.Contains(res.Content, c.want) {
			t.Errorf("%v: result %+v", c.err, res)
		}
	}
}

func TestCancelledTurnCancelsTheCall(t *testing.T) {
	slow := newSlowHooks()
	b := newMemBackend()
	b.serve(t, "github", githubServer(nil, slow))
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tools.Result)
	go func() { done <- s.reg.Execute(ctx, llm.ToolCall{Name: "mcp_github_slow", Arguments: `{}`}) }()
	// Cancelled once the request reached the server's handler: before, it
	// would prove nothing about the request.
	slow.wait(t, slow.started, "received the call")
	cancel()
	res := <-done
	if !res.IsError || !strings.Contains(res.Content, "canceled") {
		t.Errorf("result = %+v", res)
	}
	slow.wait(t, slow.cancelled, "saw the call cancelled")
}

// Run with -race: calls, listings and definitions while the servers' tool
// lists change under them.
func TestConcurrentCallsWhileToolsChange(t *testing.T) {
	rec := &serverCalls{}
	s, b := catalogSession(t, rec)
	done := make(chan struct{})
	errs := make(chan string, 64)
	for w := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 30 {
				var r tools.Result
				switch (w + i) % 3 {
				case 0:
					r = callMCP(s, "mcp_jira_get_ticket", `{"text":"K-1"}`)
				case 1:
					r = s.reg.Execute(context.Background(), llm.ToolCall{Name: "discover_mcp_tools", Arguments: `{"mode":"search","query":"ticket"}`})
				default:
					s.reg.Definitions()
				}
				if r.IsError {
					errs <- r.Content
				}
			}
		}()
	}
	for range 20 {
		if err := b.Refresh(context.Background(), ""); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Errorf("a call failed while the lists changed: %s", e)
	}
	if n := len(rec.all()); n != 40 {
		t.Errorf("%d calls reached jira, want 40", n)
	}
}

func TestWarnMayUseTheToolSet(t *testing.T) {
	b := newMemBackend()
	b.serve(t, "github", githubServer(nil, nil))
	var set *mcp.ToolSet
	var got []string
	set, err := mcp.NewToolSet(b, mcp.ToolSetConfig{CatalogThreshold: -1, Warn: func(err error) {
		got = append(got, err.Error())
		set.ToolNames("github") // would deadlock if called under the set's lock
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !set.Catalog() || len(got) != 1 || !strings.Contains(got[0], `tool "broken" left out`) {
		t.Errorf("catalog %v, warnings %q", set.Catalog(), got)
	}
}
