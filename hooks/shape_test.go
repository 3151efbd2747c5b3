package hooks

import (
	"encoding/json"
	"testing"
)

func TestShapes(t *testing.T) {
	root := "/proj"
	for _, c := range []struct {
		tool, args   string
		claude, ci   string
		updated, out string
	}{
		{"shell_exec", `{"command":"go test","timeout_sec":5,"work_dir":"sub"}`,
			"Bash", `{"command":"go test","timeout":5000}`,
			`{"command":"go test -short","timeout":1500,"description":"d"}`, `{"command":"go test -short","timeout_sec":2,"work_dir":"sub"}`},
		{"write_file", `{"path":"a/b.go","content":"x"}`,
			"Write", `{"file_path":"/proj/a/b.go","content":"x"}`,
			`{"file_path":"/elsewhere/b.go","content":"y"}`, `{"path":"/elsewhere/b.go","content":"y"}`},
		{"edit_file", `{"path":"a.go","edits":[{"old_string":"a","new_string":"b"}]}`,
			"Edit", `{"file_path":"/proj/a.go","old_string":"a","new_string":"b","replace_all":false}`,
			`{"file_path":"/proj/c.go","old_string":"a","new_string":"B","replace_all":true}`, `{"path":"c.go","edits":[{"old_string":"a","new_string":"B","replace_all":true}]}`},
		{"edit_file", `{"path":"a.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`,
			"MultiEdit", `{"file_path":"/proj/a.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`,
			`{"file_path":"/proj/a.go","edits":[{"old_string":"a","new_string":"z"}]}`, `{"path":"a.go","edits":[{"old_string":"a","new_string":"z"}]}`},
		{"read_file", `{"path":"r.md","offset":10,"limit":5,"max_bytes":100}`,
			"Read", `{"file_path":"/proj/r.md","offset":10,"limit":5}`,
			`{"file_path":"/proj/s.md","limit":1}`, `{"path":"s.md","offset":10,"limit":1,"max_bytes":100}`},
		{"grep", `{"pattern":"TODO","path":"src","glob":"*.go","max_results":3}`,
			"Grep", `{"pattern":"TODO","path":"/proj/src","glob":"*.go","head_limit":3}`,
			`{"pattern":"FIXME","path":"/proj/lib"}`, `{"pattern":"FIXME","path":"lib","glob":"*.go","max_results":3}`},
		{"glob", `{"pattern":"**/*.go"}`,
			"Glob", `{"pattern":"**/*.go"}`,
			`{"pattern":"*.md","path":"/proj/docs"}`, `{"pattern":"docs/*.md"}`},
		{"agent", `{"description":"d","prompt":"p","subagent_type":"explorer"}`,
			"Task", `{"description":"d","prompt":"p","subagent_type":"explorer"}`,
			`{"description":"d","prompt":"q","subagent_type":"explorer"}`, `{"description":"d","prompt":"q","subagent_type":"explorer"}`},
	} {
		name, in := toClaude(c.tool, json.RawMessage(c.args), root)
		if name != c.claude {
			t.Errorf("%s: name %s, want %s", c.tool, name, c.claude)
		}
		sameJSON(t, in, json.RawMessage(c.ci))
		out, err := fromClaude(c.tool, json.RawMessage(c.args), json.RawMessage(c.updated), root)
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		sameJSON(t, out, json.RawMessage(c.out))
	}
	if _, err := fromClaude("write_file", json.RawMessage(`{}`), json.RawMessage(`{"file_path":3}`), root); err == nil {
		t.Error("a numeric file_path accepted")
	}
}

func TestEditMatcherSeesMultiEdit(t *testing.T) {
	m, _ := compileMatcher("Edit")
	if m.toolView("edit_file") != viewClaude {
		t.Fatal("Edit does not match edit_file")
	}
	if m.toolView("write_file") != viewNone {
		t.Fatal("Edit matches write_file")
	}
	all, _ := compileMatcher("")
	if all.toolView("shell_exec") != viewClaude || all.toolView("mcp_fs_read") != viewMoteur {
		t.Fatal("wildcard views")
	}
	anchored, _ := compileMatcher("Bas")
	if anchored.toolView("shell_exec") != viewNone {
		t.Fatal("matcher not anchored")
	}
}

func TestCombine(t *testing.T) {
	o := combine([]verdict{
		{decision: "allow", reason: "ok"},
		{decision: "ask", reason: "check it", context: "c1", updated: json.RawMessage(`{"a":1}`)},
		{context: "c2", updated: json.RawMessage(`{"a":2}`)},
	})
	if o.Block || o.Decision != "ask" || o.Reason != "check it" || o.Context != "c1\n\nc2" || string(o.UpdatedInput) != `{"a":1}` {
		t.Fatalf("ask: %+v", o)
	}
	o = combine([]verdict{{decision: "allow"}, {decision: "deny", block: true, reason: "no"}, {decision: "ask", reason: "?"}, {updated: json.RawMessage(`{}`)}})
	if !o.Block || o.Decision != "deny" || o.Reason != "no" || o.UpdatedInput != nil {
		t.Fatalf("deny: %+v", o)
	}
}
