package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/llm"
	mcp "github.com/moteur/moteur/mcp"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/tools"
)

// catalogSession has github (6 tools, one broken) and jira (3) behind the
// catalog tools.
func catalogSession(t *testing.T, rec *serverCalls) (*session, *memBackend) {
	t.Helper()
	b := newMemBackend()
	b.serve(t, "github", githubServer(rec, nil))
	jira := newServer("jira")
	addTool(jira, rec, &mcpsdk.Tool{Name: "get_ticket", Description: "Read one ticket by key.",
		Annotations: &mcpsdk.ToolAnnotations{ReadOnlyHint: true}}, nil)
	addTool(jira, rec, &mcpsdk.Tool{Name: "transition", Description: "Move a ticket to another status."}, nil)
	addTool(jira, rec, &mcpsdk.Tool{Name: "add_comment", Description: "Comment on a ticket."}, nil)
	b.serve(t, "jira", jira)
	s := newSession(t, b, mcp.ToolSetConfig{CatalogThreshold: 3}, tools.Config{})
	return s, b
}

func discover(t *testing.T, s *session, args string) map[string]any {
	t.Helper()
	r := s.reg.Execute(context.Background(), llm.ToolCall{Name: "discover_mcp_tools", Arguments: args})
	if r.IsError {
		t.Fatalf("discover %s: %s", args, r.Content)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(r.Content), &out); err != nil {
		t.Fatalf("discover %s: not JSON: %v\n%s", args, err, r.Content)
	}
	return out
}

func refs(out map[string]any) []string {
	var got []string
	list, _ := out["tools"].([]any)
	for _, it := range list {
		got = append(got, it.(map[string]any)["tool_ref"].(string))
	}
	return got
}

func TestCatalogListServers(t *testing.T) {
	s, _ := catalogSession(t, nil)
	if got := s.reg.Names(); !reflect.DeepEqual(got, []string{"call_mcp_tool", "discover_mcp_tools", "read_file"}) {
		t.Fatalf("names = %v", got)
	}
	out := discover(t, s, `{"mode":"list_servers"}`)
	want := `[{"server_id":"github","tools":5,"transport":"stdio"},{"server_id":"jira","tools":3,"transport":"stdio"}]`
	if got, _ := json.Marshal(out["servers"]); string(got) != want {
		t.Errorf("servers = %s", got)
	}
	if out["total_tools"] != float64(8) {
		t.Errorf("total = %v", out["total_tools"])
	}
	tool, _ := s.reg.Lookup("discover_mcp_tools")
	mustContain(t, "description", tool.Description(), "Servers: github (5 tools), jira (3 tools).")
}

func TestCatalogListToolsPages(t *testing.T) {
	s, _ := catalogSession(t, nil)
	var all []string
	args := `{"mode":"list_tools","server_id":"github","limit":2}`
	for page := 0; ; page++ {
		out := discover(t, s, args)
		got := refs(out)
		all = append(all, got...)
		next, ok := out["next_cursor"].(string)
		if !ok {
			break
		}
		if page > 5 {
			t.Fatal("pages never end")
		}
		args = fmt.Sprintf(`{"mode":"list_tools","server_id":"github","limit":2,"cursor":%q}`, next)
	}
	want := []string{"mcp_github_create_issue", "mcp_github_delete_repo", "mcp_github_list_repos", "mcp_github_search_issues", "mcp_github_slow"}
	if !reflect.DeepEqual(all, want) {
		t.Errorf("pages gave %v", all)
	}
	out := discover(t, s, `{"mode":"list_tools","server_id":"github","limit":1}`)
	first := out["tools"].([]any)[0].(map[string]any)
	if first["description"] != "Create an issue." || first["name"] != "create_issue" || first["risk"] != "write" {
		t.Errorf("line = %v", first)
	}
	// A cursor of another listing is refused, not misread.
	r := s.reg.Execute(context.Background(), llm.ToolCall{Name: "discover_mcp_tools",
		Arguments: fmt.Sprintf(`{"mode":"list_tools","server_id":"jira","cursor":%q}`, out["next_cursor"])})
	if !r.IsError || !strings.Contains(r.Content, "not a next_cursor of this listing") {
		t.Errorf("foreign cursor: %+v", r)
	}
	for _, bad := range []string{`{"mode":"list_tools"}`, `{"mode":"list_tools","server_id":"gitlab"}`, `{"mode":"list_tools","server_id":"github","limit":51}`, `{"mode":"fly"}`} {
		if r := s.reg.Execute(context.Background(), llm.ToolCall{Name: "discover_mcp_tools", Arguments: bad}); !r.IsError {
			t.Errorf("%s: %+v", bad, r)
		}
	}
}

func TestCatalogDescribe(t *testing.T) {
	s, _ := catalogSession(t, nil)
	for _, args := range []string{
		`{"mode":"describe","server_id":"github","tool_name":"delete_repo"}`,
		`{"mode":"describe","tool_name":"mcp_github_delete_repo"}`,
		`{"mode":"describe","tool_name":"github/delete_repo"}`,
	} {
		out := discover(t, s, args)
		if out["tool_ref"] != "mcp_github_delete_repo" || out["risk"] != "destructive" || out["description"] != "Delete a repository." {
			t.Errorf("%s: %v", args, out)
		}
		schema, _ := json.Marshal(out["input_schema"])
		if !strings.Contains(string(schema), `"required":["text"]`) {
			t.Errorf("schema = %s", schema)
		}
		if ann, _ := out["annotations"].(map[string]any); ann["destructiveHint"] != true {
			t.Errorf("annotations = %v", out["annotations"])
		}
	}
	r := s.reg.Execute(context.Background(), llm.ToolCall{Name: "discover_mcp_tools", Arguments: `{"mode":"describe","tool_name":"delete_repos"}`})
	if !r.IsError || !strings.Contains(r.Content, "did you mean mcp_github_delete_repo") {
		t.Errorf("unknown tool: %+v", r)
	}
}

func TestCatalogSearch(t *testing.T) {
	s, _ := catalogSession(t, nil)
	out := discover(t, s, `{"mode":"search","query":"delete a repository"}`)
	if got := refs(out); len(got) == 0 || got[0] != "mcp_github_delete_repo" {
		t.Errorf("search delete = %v", got)
	}
	out = discover(t, s, `{"mode":"search","query":"ticket"}`)
	got := refs(out)
	if len(got) != 3 || !strings.HasPrefix(got[0], "mcp_jira_") {
		t.Errorf("search ticket = %v", got)
	}
	out = discover(t, s, `{"mode":"search","query":"ticket","limit":2}`)
	if len(refs(out)) != 2 || out["next_cursor"] == nil {
		t.Errorf("search page = %v", out)
	}
	out = discover(t, s, fmt.Sprintf(`{"mode":"search","query":"ticket","limit":2,"cursor":%q}`, out["next_cursor"]))
	if r := refs(out); len(r) != 1 || r[0] != got[2] {
		t.Errorf("second search page = %v (first search %v)", r, got)
	}
	out = discover(t, s, `{"mode":"search","query":"issues","server_id":"jira"}`)
	if len(refs(out)) != 0 || out["hint"] == nil {
		t.Errorf("search restricted to jira = %v", out)
	}
}

func TestCatalogRefresh(t *testing.T) {
	s, b := catalogSession(t, nil)
	before := b.refreshes.Load()
	out := discover(t, s, `{"mode":"list_servers","refresh":true}`)
	if b.refreshes.Load() != before+1 || out["total_tools"] != float64(8) {
		t.Errorf("refresh: %d calls, out %v", b.refreshes.Load()-before, out)
	}
}

func callMCP(s *session, ref, args string) tools.Result {
	return s.reg.Execute(context.Background(), llm.ToolCall{Name: "call_mcp_tool",
		Arguments: fmt.Sprintf(`{"tool_ref":%q,"arguments":%s}`, ref, args)})
}

func TestCallMCPToolValidatesAgainstTheToolsSchema(t *testing.T) {
	rec := &serverCalls{}
	s, b := catalogSession(t, rec)
	bad := callMCP(s, "mcp_jira_transition", `{"status":"done"}`)
	if !bad.IsError || !strings.Contains(bad.Content, `invalid arguments for tool "mcp_jira_transition"`) || !strings.Contains(bad.Content, "text") {
		t.Errorf("bad arguments: %+v", bad)
	}
	unknown := callMCP(s, "mcp_jira_transitions", `{"text":"x"}`)
	if !unknown.IsError || !strings.Contains(unknown.Content, "did you mean mcp_jira_transition") {
		t.Errorf("unknown ref: %+v", unknown)
	}
	good := callMCP(s, "jira/transition", `{"text":"done"}`)
	if good.IsError || good.Content != "ok transition" {
		t.Errorf("good call: %+v", good)
	}
	if got := rec.all(); !reflect.DeepEqual(got, []string{`transition {"text":"done"}`}) {
		t.Errorf("the server received %q; want only the valid call", got)
	}
	if b.calls("jira") != 1 {
		t.Errorf("%d calls sent", b.calls("jira"))
	}
	// Quoted scalars are cast as for a direct call.
	num := newServer("calc")
	addTool(num, rec, &mcpsdk.Tool{Name: "add", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`)}, nil)
	b.serve(t, "calc", num)
	if r := callMCP(s, "mcp_calc_add", `{"a":"2"}`); r.IsError {
		t.Errorf("cast: %+v", r)
	}
	if got := rec.all(); got[len(got)-1] != `add {"a":2}` {
		t.Errorf("the server received %q", got[len(got)-1])
	}
}

func TestCallMCPToolTakesTheTargetsRiskNameAndSummary(t *testing.T) {
	s, _ := catalogSession(t, nil)
	tool, _ := s.reg.Lookup("call_mcp_tool")
	for ref, want := range map[string]effect.Risk{
		"mcp_github_search_issues": effect.RiskRead,
		"mcp_jira_transition":      effect.RiskWrite,
		"github/delete_repo":       effect.RiskDestructive,
		"mcp_github_nothing":       effect.RiskDestructive,
	} {
		args := json.RawMessage(fmt.Sprintf(`{"tool_ref":%q,"arguments":{"text":"x"}}`, ref))
		if got := tool.(tools.RiskAssessor).RiskOf(args); got != want {
			t.Errorf("%s: risk %s, want %s", ref, got, want)
		}
	}
	args := json.RawMessage(`{"tool_ref":"github/delete_repo","arguments":{"text":"moteur"}}`)
	if got := tool.(tools.Summarizer).Summary(args); got != `MCP server "github", tool "delete_repo", arguments {"text":"moteur"}` {
		t.Errorf("summary = %q", got)
	}
	name, target, ok := tool.(tools.Proxy).ProxyFor(args)
	if !ok || name != "mcp_github_delete_repo" || string(target) != `{"text":"moteur"}` {
		t.Errorf("proxy = %q %s %v", name, target, ok)
	}
	name, _, _ = tool.(tools.Proxy).ProxyFor(json.RawMessage(`{"tool_ref":"gitlab/x y","arguments":{}}`))
	if name != "mcp_gitlab_x_y" {
		t.Errorf("an unknown ref is judged as %q", name)
	}
}

// What the engine would do with tools.Proxy (see the report): the policy
// judges call_mcp_tool as the tool it runs.
func TestPolicyJudgesCallMCPToolAsItsTarget(t *testing.T) {
	s, _ := catalogSession(t, nil)
	tool, _ := s.reg.Lookup("call_mcp_tool")
	judge := func(p *policy.Permissions, ref string) policy.Verdict {
		args := json.RawMessage(fmt.Sprintf(`{"tool_ref":%q,"arguments":{"text":"x"}}`, ref))
		name, target, _ := tool.(tools.Proxy).ProxyFor(args)
		return p.Check(policy.Request{Session: "s", Tool: name, Risk: tool.(tools.RiskAssessor).RiskOf(args), Args: target})
	}
	org, err := policy.NewPermissions(policy.PermissionsConfig{DeniedTools: []string{"mcp_*"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"mcp_github_search_issues", "jira/get_ticket", "nowhere/nothing"} {
		if v := judge(org, ref); v.Decision != policy.Deny || v.Rule != policy.RuleDeniedTool {
			t.Errorf("denied_tools mcp_*: %s gave %v", ref, v)
		}
	}
	rules, err := policy.NewPermissions(policy.PermissionsConfig{Mode: policy.AutoWrite,
		Rules: policy.Rules{Ask: []string{"mcp_github_*"}, Allow: []string{"mcp_jira_transition"}}})
	if err != nil {
		t.Fatal(err)
	}
	if v := judge(rules, "mcp_github_search_issues"); v.Decision != policy.Ask {
		t.Errorf("ask mcp_github_*: %v", v)
	}
	if v := judge(rules, "mcp_jira_transition"); v.Decision != policy.Allow {
		t.Errorf("allow mcp_jira_transition: %v", v)
	}
	if v := judge(rules, "mcp_jira_add_comment"); v.Decision != policy.Allow {
		t.Errorf("a write in auto_write: %v", v)
	}
	if v := judge(rules, "nowhere/nothing"); v.Decision != policy.Ask {
		t.Errorf("an unknown ref counts as destructive: %v", v)
	}
	// Read only: the risk of the target decides.
	ro, _ := policy.NewPermissions(policy.PermissionsConfig{Mode: policy.ReadOnly})
	if v := judge(ro, "mcp_jira_get_ticket"); v.Decision != policy.Allow {
		t.Errorf("read_only, a read: %v", v)
	}
	if v := judge(ro, "mcp_jira_transition"); v.Decision != policy.Deny {
		t.Errorf("read_only, a write: %v", v)
	}
}
