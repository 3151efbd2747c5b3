package agents

import (
	"reflect"
	"testing"

	"github.com/moteur/moteur/hooks"
)

func TestToolsFor(t *testing.T) {
	c, _ := Load(Config{})
	parent := []string{"read_file", "shell_exec", "agent", "grep", "mcp_db_query"}
	gp, _ := c.Lookup(GeneralPurpose)
	if got, want := c.ToolsFor(gp, parent), []string{"read_file", "shell_exec", "grep", "mcp_db_query"}; !reflect.DeepEqual(got, want) {
		t.Errorf("general-purpose %v, want %v (every tool but agent)", got, want)
	}
	ex, _ := c.Lookup(Explore)
	if got, want := c.ToolsFor(ex, parent), []string{"read_file", "grep"}; !reflect.DeepEqual(got, want) {
		t.Errorf("explore %v, want %v", got, want)
	}
	wide := Agent{Name: "wide", Tools: []string{"read_file", "write_file", "web_fetch", "agent"}}
	if got, want := c.ToolsFor(wide, parent), []string{"read_file"}; !reflect.DeepEqual(got, want) {
		t.Errorf("an allowlist widened: %v, want %v", got, want)
	}
	denied := Agent{Name: "d", Denied: []string{"shell_exec"}}
	if got, want := c.ToolsFor(denied, parent), []string{"read_file", "grep", "mcp_db_query"}; !reflect.DeepEqual(got, want) {
		t.Errorf("disallowed %v, want %v", got, want)
	}
	if got := c.ToolsFor(Agent{Tools: []string{}}, parent); got == nil || len(got) != 0 {
		t.Errorf("empty allowlist %#v", got)
	}
}

func TestNesting(t *testing.T) {
	parent := []string{"read_file", "agent"}
	c, _ := Load(Config{MaxDepth: 2})
	gp, _ := c.Lookup(GeneralPurpose)
	if got := c.ToolsFor(gp, parent); !reflect.DeepEqual(got, parent) {
		t.Errorf("depth 1 of 2: %v, want the agent tool", got)
	}
	if got := c.ToolsAt(gp, parent, 2); !reflect.DeepEqual(got, []string{"read_file"}) {
		t.Errorf("depth 2 of 2: %v, want no agent tool", got)
	}
	task := Agent{Tools: []string{"read_file"}}
	if got := c.ToolsFor(task, parent); !reflect.DeepEqual(got, []string{"read_file"}) {
		t.Errorf("an allowlist without agent still gets it: %v", got)
	}
}

func TestClaudeTaskMapsToAgent(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "o.md", "---\nname: orchestrator\ndescription: d\ntools: Task, Read\n---\nP\n")
	c, errs := Load(Config{UserDir: dir, Tools: sessionTools, MaxDepth: 2})
	a, _ := c.Lookup("orchestrator")
	if len(errs) != 0 || !reflect.DeepEqual(a.Tools, []string{"agent", "read_file"}) {
		t.Errorf("%v %v", a.Tools, errs)
	}
}

func TestMapToolSeam(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "m.md", "---\nname: m\ndescription: d\ntools: mcp__db__query, Read\n---\nP\n")
	mapped := 0
	cfg := Config{UserDir: dir, Tools: append([]string{"mcp_db_query"}, sessionTools...), MapTool: func(n string) (string, bool) {
		mapped++
		if n == "mcp__db__query" {
			return "mcp_db_query", true
		}
		return "", false
	}}
	c, errs := Load(cfg)
	a, _ := c.Lookup("m")
	if mapped == 0 || len(errs) != 0 || !reflect.DeepEqual(a.Tools, []string{"mcp_db_query", "read_file"}) {
		t.Errorf("mapped %d, tools %v, %v", mapped, a.Tools, errs)
	}
}

// TestNamesAreMoteurs ties ToolName to the hooks table. (ExploreTools
// spells tools/files' and tools/kb's names; importing those packages here
// would tie this test binary to their whole dependency tree.)
func TestNamesAreMoteurs(t *testing.T) {
	if m, ok := hooks.MoteurToolName("Task"); !ok || m != ToolName {
		t.Errorf("Task maps to %q, want %q", m, ToolName)
	}
}

func TestExploreIsReadOnly(t *testing.T) {
	c, _ := Load(Config{})
	ex, _ := c.Lookup(Explore)
	got := c.ToolsFor(ex, sessionTools)
	if !reflect.DeepEqual(got, []string{"read_file", "list_files", "glob", "grep", "search_knowledge", "read_document", "list_documents"}) {
		t.Errorf("explore gets %v from a full parent", got)
	}
}
