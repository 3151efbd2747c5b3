package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
)

// noModel is a base URL nothing answers: the agents commands need none.
const noModel = "http://127.0.0.1:1/v1"

func decodeAgent(t *testing.T, res result) agentconfig.Agent {
	t.Helper()
	var a agentconfig.Agent
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &a) != nil {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	return a
}

type listedAgent struct {
	Kind, ID, Name, Source string
	Builtin                bool
	Tools                  []string
	Config                 agentconfig.CustomAgentConfig
}

func listAgents(t *testing.T, h *harness) []listedAgent {
	t.Helper()
	res := h.run(t, "agents", "list", "--json")
	var rep struct{ Agents []listedAgent }
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &rep) != nil {
		t.Fatalf("agents list: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	return rep.Agents
}

// TestAgentsCreateListShowEditRm: a custom agent goes through its whole
// life on the command line, listed beside the built-ins and sub-agents.
func TestAgentsCreateListShowEditRm(t *testing.T) {
	h := newHarness(t, noModel)
	a := decodeAgent(t, h.run(t, "agents", "create", "support", "--preset", "rag-qa", "--kb", "docs",
		"--prompt", "Answer as our support team.", "--temperature", "0.2", "--description", "Support desk", "--json"))
	if !strings.HasPrefix(a.ID, "ag-") || a.Builtin || a.Config.AgentMode != agentconfig.ModeSmartReasoning ||
		a.Config.AgentType != agentconfig.TypeRAGQA || a.Config.Temperature != 0.2 || a.Config.MaxIterations != 30 ||
		a.Config.KBSelectionMode != agentconfig.SelectSelected || strings.Join(a.Config.KnowledgeBases, ",") != "docs" ||
		a.Config.SystemPrompt != "Answer as our support team." || a.Config.MaxCompletionTokens != 4096 || a.Created.IsZero() {
		t.Fatalf("created %+v", a)
	}

	kinds := map[string][]string{}
	for _, l := range listAgents(t, h) {
		kinds[l.Kind] = append(kinds[l.Kind], l.Name)
		if l.Kind == "custom" && (l.ID != a.ID || l.Config.Temperature != 0.2) {
			t.Errorf("custom entry %+v", l)
		}
	}
	if len(kinds["builtin"]) != 3 || strings.Join(kinds["custom"], ",") != "support" ||
		!strings.Contains(strings.Join(kinds["sub-agent"], ","), "general-purpose") {
		t.Errorf("kinds %v", kinds)
	}
	res := h.run(t, "agents", "list")
	for _, want := range []string{"KIND", "builtin-quick-answer", "custom  ", a.ID, "sub-agent", "general-purpose", "smart-reasoning"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("agents list lacks %q:\n%s", want, res.stdout)
		}
	}

	if got := decodeAgent(t, h.run(t, "agents", "show", "SUPPORT", "--json")); got.ID != a.ID {
		t.Errorf("show by name ignoring case: %+v", got)
	}
	res = h.run(t, "agents", "show", a.ID)
	if res.code != 0 || !strings.Contains(res.stdout, "Kind         custom") || !strings.Contains(res.stdout, `"temperature": 0.2`) {
		t.Errorf("show:\n%s%s", res.stdout, res.stderr)
	}

	res = h.run(t, "agents", "edit", "support", "--set", "temperature=0.5", "--set", "knowledge_bases=docs,rh",
		"--set", "name=Support desk", "--set", "citation_enabled=false", "--set", "allowed_tools=")
	if res.code != 0 || !strings.Contains(res.stdout, "Updated agent Support desk") {
		t.Fatalf("edit: exit %d %s %s", res.code, res.stdout, res.stderr)
	}
	e := decodeAgent(t, h.run(t, "agents", "show", a.ID, "--json"))
	if e.Name != "Support desk" || e.Config.Temperature != 0.5 || strings.Join(e.Config.KnowledgeBases, ",") != "docs,rh" ||
		e.Config.Citations() || e.Config.AllowedTools == nil || len(e.Config.AllowedTools) != 0 || !e.Created.Equal(a.Created) {
		t.Errorf("after edit %+v", e)
	}
	// The mode's default budget follows the mode.
	q := decodeAgent(t, h.run(t, "agents", "edit", a.ID, "--set", "agent_mode=quick-answer", "--json"))
	if q.Config.AgentMode != agentconfig.ModeQuickAnswer || q.Config.MaxCompletionTokens != 2048 {
		t.Errorf("mode change: %+v", q.Config)
	}

	// Off a terminal, rm wants --yes: refused, and the agent is still there.
	res = h.run(t, "agents", "rm", "Support desk")
	if res.code != 2 || !strings.Contains(res.stderr, "--yes") {
		t.Errorf("rm without --yes: exit %d %s", res.code, res.stderr)
	}
	if res := h.run(t, "agents", "show", a.ID); res.code != 0 {
		t.Fatalf("the agent went away: %s", res.stderr)
	}
	res = h.run(t, "agents", "rm", "Support desk", "--yes")
	if res.code != 0 || !strings.Contains(res.stdout, "Removed agent Support desk") {
		t.Fatalf("rm: exit %d %s %s", res.code, res.stdout, res.stderr)
	}
	res = h.run(t, "agents", "show", a.ID)
	if res.code != 2 || !strings.Contains(res.stderr, a.ID) || !strings.Contains(res.stderr, "moteur agents list") {
		t.Errorf("show after rm: exit %d %s", res.code, res.stderr)
	}
	if res := h.run(t, "agents", "rm", a.ID, "--yes"); res.code != 2 {
		t.Errorf("rm twice: exit %d", res.code)
	}
}

func TestAgentsCreateDefaultsAndZeroTemperature(t *testing.T) {
	h := newHarness(t, noModel)
	d := decodeAgent(t, h.run(t, "agents", "create", "plain", "--json"))
	if d.Config.Temperature != agentconfig.DefaultTemperature || d.Config.AgentMode != agentconfig.ModeQuickAnswer ||
		d.Config.MaxCompletionTokens != 2048 || d.Config.AccessLevel != agentconfig.AccessAutoWrite {
		t.Errorf("defaults %+v", d.Config)
	}
	z := decodeAgent(t, h.run(t, "agents", "create", "cold", "--temperature", "0", "--mode", "smart-reasoning",
		"--model", "fast", "--max-tokens", "1000", "--access-level", "confirm", "--json"))
	if z.Config.Temperature != 0 || z.Config.ModelID != "fast" || z.Config.MaxCompletionTokens != 1000 || z.Config.AccessLevel != "confirm" {
		t.Errorf("explicit %+v", z.Config)
	}
	// Listing bases on an agent that used them all selects them.
	if d.Config.KBSelectionMode != agentconfig.SelectAll {
		t.Fatalf("kb_selection_mode %q", d.Config.KBSelectionMode)
	}
	sel := decodeAgent(t, h.run(t, "agents", "edit", "plain", "--set", "knowledge_bases=docs", "--set", "mcp_services=gh", "--json"))
	if sel.Config.KBSelectionMode != agentconfig.SelectSelected || sel.Config.MCPSelectionMode != agentconfig.SelectSelected ||
		sel.Config.SkillsSelectionMode != agentconfig.SelectNone {
		t.Errorf("selection after listing: %+v", sel.Config)
	}
	explicit := decodeAgent(t, h.run(t, "agents", "edit", "plain", "--set", "knowledge_bases=docs,rh", "--set", "kb_selection_mode=none", "--json"))
	if explicit.Config.KBSelectionMode != agentconfig.SelectNone {
		t.Errorf("an explicit mode was overridden: %q", explicit.Config.KBSelectionMode)
	}
	prompt := filepath.Join(t.TempDir(), "prompt.md")
	os.WriteFile(prompt, []byte("Be brief.\n"), 0o600)
	p := decodeAgent(t, h.run(t, "agents", "create", "brief", "--prompt-file", prompt, "--json"))
	if p.Config.SystemPrompt != "Be brief.\n" {
		t.Errorf("prompt file: %q", p.Config.SystemPrompt)
	}
}

// TestAgentsCreateRefuses: each bad command line exits 2 with a message
// naming what is wrong, and stores nothing.
func TestAgentsCreateRefuses(t *testing.T) {
	h := newHarness(t, noModel)
	if res := h.run(t, "agents", "create", "taken"); res.code != 0 {
		t.Fatalf("first create: %s", res.stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"name":"x","config":{"temprature":1}}`), 0o600)
	badYAML := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(badYAML, []byte("name: y\nconfig:\n  agent_mode: smart-reasoning\n  bogus: 1\n"), 0o600)
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"temperature":     {[]string{"hot", "--temperature", "3"}, "temperature"},
		"access level":    {[]string{"x1", "--access-level", "root"}, "access_level"},
		"mode":            {[]string{"x2", "--mode", "fast"}, "agent_mode"},
		"taken":           {[]string{"TAKEN"}, "already exists"},
		"built-in id":     {[]string{"builtin-quick-answer"}, "built-in"},
		"unknown preset":  {[]string{"x3", "--preset", "wiki"}, "moteur agents presets"},
		"no name":         {nil, "NAME"},
		"json file key":   {[]string{"x4", "--file", bad}, "temprature"},
		"yaml file key":   {[]string{"x5", "--file", badYAML}, "bogus"},
		"file extension":  {[]string{"x6", "--file", "agent.txt"}, ".yaml"},
		"both prompts":    {[]string{"x7", "--prompt", "a", "--prompt-file", "b"}, "prompt"},
		"missing prompt":  {[]string{"x8", "--prompt-file", filepath.Join(t.TempDir(), "none")}, "--prompt-file"},
		"negative tokens": {[]string{"x9", "--max-tokens", "-5"}, "max_completion_tokens"},
	} {
		res := h.run(t, append([]string{"agents", "create"}, c.args...)...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %s", name, res.code, res.stderr)
		}
	}
	var custom []string
	for _, l := range listAgents(t, h) {
		if l.Kind == "custom" {
			custom = append(custom, l.Name)
		}
	}
	if strings.Join(custom, ",") != "taken" {
		t.Errorf("stored: %v", custom)
	}
}

// TestAgentsCreateFromFile: what show --json prints, create --file reads
// back, in JSON and in YAML.
func TestAgentsCreateFromFile(t *testing.T) {
	h := newHarness(t, noModel)
	res := h.run(t, "agents", "show", "builtin-data-analyst", "--json")
	src := decodeAgent(t, res)
	file := filepath.Join(t.TempDir(), "analyst.json")
	os.WriteFile(file, []byte(res.stdout), 0o600)
	cp := decodeAgent(t, h.run(t, "agents", "create", "my-analyst", "--file", file, "--temperature", "0.1", "--json"))
	if cp.Builtin || cp.ID == src.ID || cp.Name != "my-analyst" || cp.Config.AgentMode != src.Config.AgentMode ||
		strings.Join(cp.Config.AllowedTools, ",") != strings.Join(src.Config.AllowedTools, ",") || cp.Config.Temperature != 0.1 ||
		cp.Description != src.Description {
		t.Errorf("copy %+v\nof %+v", cp, src)
	}
	yml := filepath.Join(t.TempDir(), "a.yaml")
	os.WriteFile(yml, []byte("name: From YAML\ndescription: d\nconfig:\n  agent_mode: smart-reasoning\n  knowledge_bases: [docs]\n  max_iterations: -1\n"), 0o600)
	y := decodeAgent(t, h.run(t, "agents", "create", "--file", yml, "--json"))
	if y.Name != "From YAML" || !y.Config.IsAgentMode() || y.Config.MaxIterations != agentconfig.UnlimitedIterations ||
		y.Config.Temperature != agentconfig.DefaultTemperature || y.Config.KBSelectionMode != agentconfig.SelectSelected {
		t.Errorf("from YAML %+v", y)
	}
	// edit --file replaces what the file has and keeps the rest.
	patch := filepath.Join(t.TempDir(), "patch.yaml")
	os.WriteFile(patch, []byte("description: changed\n"), 0o600)
	e := decodeAgent(t, h.run(t, "agents", "edit", "from yaml", "--file", patch, "--json"))
	if e.Description != "changed" || e.Name != "From YAML" || strings.Join(e.Config.KnowledgeBases, ",") != "docs" {
		t.Errorf("edit --file %+v", e)
	}
}

func TestAgentsEditRefuses(t *testing.T) {
	h := newHarness(t, noModel)
	if res := h.run(t, "agents", "create", "one"); res.code != 0 {
		t.Fatal(res.stderr)
	}
	if res := h.run(t, "agents", "create", "two"); res.code != 0 {
		t.Fatal(res.stderr)
	}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"built-in":      {[]string{"builtin-smart-reasoning", "--set", "temperature=1"}, "cannot be changed"},
		"unknown key":   {[]string{"one", "--set", "temprature=1"}, "keys: access_level"},
		"no equals":     {[]string{"one", "--set", "temperature"}, "key=value"},
		"not a number":  {[]string{"one", "--set", "temperature=warm"}, "not a number"},
		"not a bool":    {[]string{"one", "--set", "web_search_enabled=perhaps"}, "true or false"},
		"invalid value": {[]string{"one", "--set", "reasoning_effort=huge"}, "reasoning_effort"},
		"name taken":    {[]string{"one", "--set", "name=Two"}, "already exists"},
		"nothing":       {[]string{"one"}, "nothing to change"},
		"unknown agent": {[]string{"three", "--set", "temperature=1"}, "three"},
	} {
		res := h.run(t, append([]string{"agents", "edit"}, c.args...)...)
		if res.code != 2 || !strings.Contains(res.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %s", name, res.code, res.stderr)
		}
	}
	one := decodeAgent(t, h.run(t, "agents", "show", "one", "--json"))
	if one.Name != "one" || one.Config.Temperature != agentconfig.DefaultTemperature || one.Config.ReasoningEffort != "" {
		t.Errorf("refused edits changed it: %+v", one)
	}
	if res := h.run(t, "agents", "rm", "builtin-quick-answer", "--yes"); res.code != 2 || !strings.Contains(res.stderr, "cannot be removed") {
		t.Errorf("rm a built-in: exit %d %s", res.code, res.stderr)
	}
}

// TestAgentsRmConfirmsOnTerminal: on a terminal rm asks; no keeps the
// agent, yes removes it.
func TestAgentsRmConfirmsOnTerminal(t *testing.T) {
	h := newHarness(t, noModel)
	if res := h.run(t, "agents", "create", "temp"); res.code != 0 {
		t.Fatal(res.stderr)
	}
	h.tty = true
	h.stdin = strings.NewReader("n\n")
	res := h.run(t, "agents", "rm", "temp")
	if res.code != 1 || !strings.Contains(res.stderr, "Remove agent temp") || !strings.Contains(res.stderr, "not removed") {
		t.Errorf("answered no: exit %d %s", res.code, res.stderr)
	}
	if res := h.run(t, "agents", "show", "temp"); res.code != 0 {
		t.Fatal("removed after no")
	}
	h.stdin = strings.NewReader("y\n")
	if res := h.run(t, "agents", "rm", "temp"); res.code != 0 {
		t.Fatalf("answered yes: exit %d %s", res.code, res.stderr)
	}
	if res := h.run(t, "agents", "show", "temp"); res.code != 2 {
		t.Error("still there after yes")
	}
}

// TestAgentsListWithoutDatabase: listing, showing a built-in and the
// presets need no database and create none.
func TestAgentsListWithoutDatabase(t *testing.T) {
	h := newHarness(t, noModel)
	var builtins int
	for _, l := range listAgents(t, h) {
		if l.Kind == "builtin" {
			builtins++
		}
	}
	if builtins != 3 {
		t.Errorf("%d built-ins", builtins)
	}
	en := decodeAgent(t, h.run(t, "--lang", "en", "agents", "show", "builtin-quick-answer", "--json"))
	fr := decodeAgent(t, h.run(t, "--lang", "fr", "agents", "show", "builtin-quick-answer", "--json"))
	if en.Name == fr.Name || !en.Builtin {
		t.Errorf("names %q / %q", en.Name, fr.Name)
	}
	if got := decodeAgent(t, h.run(t, "--lang", "en", "agents", "show", strings.ToLower(en.Name), "--json")); got.ID != "builtin-quick-answer" {
		t.Errorf("show a built-in by name: %+v", got)
	}
	if res := h.run(t, "agents", "show", "nobody"); res.code != 2 || !strings.Contains(res.stderr, "nobody") {
		t.Errorf("unknown: exit %d %s", res.code, res.stderr)
	}
	if _, err := os.Stat(session.DefaultPath(h.home())); !os.IsNotExist(err) {
		t.Errorf("a read-only command created the database: %v", err)
	}
}

func TestAgentsPresets(t *testing.T) {
	h := newHarness(t, noModel)
	res := h.run(t, "--lang", "en", "agents", "presets", "--json")
	var rep struct{ Presets []agentconfig.Preset }
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &rep) != nil || len(rep.Presets) != 3 {
		t.Fatalf("presets: exit %d %s %s", res.code, res.stdout, res.stderr)
	}
	res = h.run(t, "agents", "presets")
	if res.code != 0 || !strings.Contains(res.stdout, "rag-qa") || !strings.Contains(res.stdout, "data-analysis") ||
		!strings.Contains(res.stdout, "none") { // custom: no built-in tool
		t.Errorf("presets:\n%s", res.stdout)
	}
}

// TestAgentsBadRow: a stored agent this Moteur cannot read makes list
// fail with a message naming it and saying how to remove it, and rm by
// its id removes it.
func TestAgentsBadRow(t *testing.T) {
	h := newHarness(t, noModel)
	if res := h.run(t, "agents", "create", "good"); res.code != 0 {
		t.Fatal(res.stderr)
	}
	db, err := sql.Open("sqlite", "file:"+session.DefaultPath(h.home()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO agents VALUES ('ag-broken', 'broken', '', '{not json', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	res := h.run(t, "agents", "list")
	if res.code != 1 || !strings.Contains(res.stderr, "ag-broken") || !strings.Contains(res.stderr, "moteur agents rm ID --yes") {
		t.Fatalf("list: exit %d %s", res.code, res.stderr)
	}
	if res := h.run(t, "agents", "rm", "ag-broken", "--yes"); res.code != 0 {
		t.Fatalf("rm: exit %d %s", res.code, res.stderr)
	}
	var custom []string
	for _, l := range listAgents(t, h) {
		if l.Kind == "custom" {
			custom = append(custom, l.Name)
		}
	}
	if strings.Join(custom, ",") != "good" {
		t.Errorf("custom agents %v", custom)
	}
}

// FuzzApplySet: --set never panics, and a key it accepts is one it lists.
func FuzzApplySet(f *testing.F) {
	for _, s := range []string{"temperature=0.5", "allowed_tools=", "allowed_tools=null", "thinking=null", "citation_enabled=yes",
		"knowledge_bases=a,b", "max_iterations=-1", "name=x", "=", "x", "temperature=NaN", "history_turns=99999999999999999999"} {
		f.Add(s)
	}
	keys := settableKeys()
	f.Fuzz(func(t *testing.T, kv string) {
		var a agentconfig.Agent
		key, err := applySet(i18n.EN, &a, kv)
		if err == nil && !slices.Contains(keys, key) {
			t.Fatalf("accepted key %q", key)
		}
	})
}
