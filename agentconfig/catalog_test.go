package agentconfig

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/moteur/moteur/i18n"
)

func TestEveryEmbeddedFileDecodesAndValidates(t *testing.T) {
	for _, dir := range []string{"builtin/presets", "builtin/agents"} {
		entries, err := fs.ReadDir(builtinFS, dir)
		if err != nil || len(entries) == 0 {
			t.Fatalf("%s: %v, %d files", dir, err, len(entries))
		}
	}
	c, err := decodeCatalog(builtinFS)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.presets) != 3 || len(c.agents) != 3 {
		t.Fatalf("%d presets, %d agents", len(c.presets), len(c.agents))
	}
	for _, a := range c.agents {
		cfg := a.Config.Clone()
		cfg.EnsureDefaults()
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: %v", a.ID, err)
		}
	}
	for _, p := range c.presets {
		var cfg CustomAgentConfig
		p.Apply(&cfg)
		cfg.EnsureDefaults()
		if err := cfg.Validate(); err != nil {
			t.Errorf("preset %s: %v", p.ID, err)
		}
	}
}

func TestPresetsFromSeed(t *testing.T) {
	ps, err := Presets(i18n.EN)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	if got := strings.Join(ids, ","); got != "custom,data-analysis,rag-qa" {
		t.Fatalf("presets %s", got)
	}
	rag, _ := PresetByID(TypeRAGQA, i18n.EN)
	if *rag.Temperature != 0.7 || rag.MaxIterations != 30 || strings.Join(rag.AllowedTools, ",") != "search_knowledge,read_document,list_documents" ||
		strings.Join(rag.KBFilter.AnyOf, ",") != "vector,keyword" || rag.SystemPromptID != "progressive_rag_agent" {
		t.Errorf("rag-qa %+v", rag)
	}
	data, _ := PresetByID(TypeDataAnalysis, i18n.FR)
	if *data.Temperature != 0.3 || data.MaxIterations != 30 || *data.WebSearchEnabled ||
		strings.Join(data.SupportedFileTypes, ",") != "csv,xlsx" || strings.Join(data.KBFilter.NoneOf, ",") != "faq" {
		t.Errorf("data-analysis %+v", data)
	}
	if data.Name != "Analyse de données" {
		t.Errorf("French name %q", data.Name)
	}
	custom, _ := PresetByID(TypeCustom, i18n.EN)
	cfg := CustomAgentConfig{AllowedTools: []string{"x"}}
	custom.Apply(&cfg)
	if cfg.AllowedTools == nil || len(cfg.AllowedTools) != 0 || cfg.AgentType != TypeCustom || !cfg.IsAgentMode() {
		t.Errorf("custom preset must give no built-in tool: %+v", cfg)
	}
	if _, err := PresetByID("nope", i18n.EN); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown preset: %v", err)
	}
}

func TestBuiltinsFromSeed(t *testing.T) {
	en, err := Builtins(i18n.EN)
	if err != nil {
		t.Fatal(err)
	}
	fr, _ := Builtins(i18n.FR)
	want := []string{"builtin-quick-answer", "builtin-smart-reasoning", "builtin-data-analyst"}
	if len(en) != len(want) {
		t.Fatalf("%d built-ins", len(en))
	}
	for i, a := range en {
		if a.ID != want[i] || !a.Builtin || a.Name == "" || a.Name == fr[i].Name || a.Description == fr[i].Description {
			t.Errorf("%d: %+v / %+v", i, a, fr[i])
		}
	}
	qa, sr, da := en[0].Config, en[1].Config, en[2].Config
	if qa.IsAgentMode() || qa.Temperature != 0.7 || !qa.WebSearchEnabled || qa.WebSearchMaxResults != 5 || qa.MaxCompletionTokens != 2048 {
		t.Errorf("quick answer %+v", qa)
	}
	if !sr.IsAgentMode() || sr.AgentType != TypeRAGQA || sr.MaxIterations != 50 || !sr.WebSearchEnabled || sr.MaxCompletionTokens != 4096 {
		t.Errorf("smart reasoning %+v", sr)
	}
	if da.AgentType != TypeDataAnalysis || da.Temperature != 0.3 || da.MaxIterations != 30 || da.WebSearchEnabled ||
		strings.Join(da.AllowedTools, ",") != "data_schema,data_analysis" {
		t.Errorf("data analyst %+v", da)
	}
	if !IsBuiltinID("builtin-data-analyst") || IsBuiltinID("mine") {
		t.Error("IsBuiltinID")
	}
}

func TestAccessorsReturnCopies(t *testing.T) {
	a, _ := BuiltinByID("builtin-data-analyst", i18n.EN)
	a.Config.AllowedTools[0] = "shell_exec"
	p, _ := PresetByID(TypeRAGQA, i18n.EN)
	*p.Temperature = 2
	p.AllowedTools[0] = "shell_exec"
	b, _ := BuiltinByID("builtin-data-analyst", i18n.EN)
	q, _ := PresetByID(TypeRAGQA, i18n.EN)
	if b.Config.AllowedTools[0] != "data_schema" || *q.Temperature != 0.7 || q.AllowedTools[0] != "search_knowledge" {
		t.Error("a caller's change reached the catalogue")
	}
}

func TestBadEmbeddedFileIsRefusedWithItsName(t *testing.T) {
	good := "id: x\nname: {fr: a, en: b}\ndescription: {fr: a, en: b}\n"
	cases := map[string]struct{ preset, agent, want string }{
		"unknown key":   {good + "temprature: 1\n", good, `builtin/presets/p.yaml: line 4: unknown key "temprature"`},
		"missing en":    {"id: x\nname: {fr: a}\ndescription: {fr: a, en: b}\n", good, "name: both fr and en"},
		"bad config":    {good, good + "config:\n  agent_mode: fast\n", `agent_mode: "fast" is not one of`},
		"unknown field": {good, good + "config:\n  agent_mod: quick-answer\n", `builtin/agents/a.yaml: line 5: unknown key "agent_mod"`},
		"no id":         {good, "name: {fr: a, en: b}\ndescription: {fr: a, en: b}\n", "a.yaml: id: required"},
	}
	for name, tc := range cases {
		fsys := fstest.MapFS{
			"builtin/presets/p.yaml": {Data: []byte(tc.preset)},
			"builtin/agents/a.yaml":  {Data: []byte(tc.agent)},
		}
		_, err := decodeCatalog(fsys)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	fsys := fstest.MapFS{
		"builtin/presets/p.yaml": {Data: []byte(good)},
		"builtin/agents/a.yaml":  {Data: []byte(good)},
		"builtin/agents/b.yaml":  {Data: []byte(good)},
	}
	if _, err := decodeCatalog(fsys); err == nil || !strings.Contains(err.Error(), `b.yaml: id "x" already used by builtin/agents/a.yaml`) {
		t.Errorf("duplicate id: %v", err)
	}
}
