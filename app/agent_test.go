package app

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// smartAgent is a smart-reasoning agent with the options a test checks.
func smartAgent(id string) *agentconfig.Agent {
	return &agentconfig.Agent{ID: id, Name: "Testeur", Config: agentconfig.CustomAgentConfig{
		AgentMode: agentconfig.ModeSmartReasoning, ModelID: "agent-model", Temperature: 0.2, MaxCompletionTokens: 999,
		SystemPrompt: "Réponds toujours en alexandrins."}}
}

// body decodes the options of a request as the server received them.
func body(t *testing.T, raw []byte) (model string, temperature *float64, maxTokens int) {
	t.Helper()
	var w struct {
		Model       string   `json:"model"`
		Temperature *float64 `json:"temperature"`
		MaxTokens   int      `json:"max_tokens"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatalf("request body: %v\n%s", err, raw)
	}
	return w.Model, w.Temperature, w.MaxTokens
}

// startedOf is the SessionStarted a stored session begins with.
func startedOf(t *testing.T, st session.Store, id string) event.SessionStartedPayload {
	t.Helper()
	evs, err := st.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if p, ok := ev.Payload.(event.SessionStartedPayload); ok {
			return p
		}
	}
	t.Fatalf("no SessionStarted in %d events", len(evs))
	return event.SessionStartedPayload{}
}

// TestAgentOptionsReachTheModel: the agent's model, temperature and max
// tokens are in the body the server receives, its prompt follows Moteur's,
// and its id is in SessionStarted and in the session's Info.
func TestAgentOptionsReachTheModel(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("fini"))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	o := e.options("s-agent")
	o.Agent = smartAgent("ag-test")
	s := e.open(t, o)
	if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "bonjour"}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	model, temp, max := body(t, reqs[0].Body)
	if model != "agent-model" || temp == nil || *temp != 0.2 || max != 999 {
		t.Errorf("body %s: want model agent-model, temperature 0.2, max_tokens 999", reqs[0].Body)
	}
	system := reqs[0].Messages[0].Content
	if !strings.HasSuffix(system, "Réponds toujours en alexandrins.") || !strings.HasPrefix(system, i18n.SystemPrompt(i18n.FR)[:40]) {
		t.Errorf("system prompt does not end with the agent's after Moteur's:\n%s", system)
	}
	if p := startedOf(t, s.Store, s.ID); p.Agent != "ag-test" || p.Model != "agent-model" {
		t.Errorf("SessionStarted agent %q model %q, want ag-test and agent-model", p.Agent, p.Model)
	}
	info, err := s.Store.Info(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if info.Agent != "ag-test" {
		t.Errorf("Info.Agent = %q, want ag-test", info.Agent)
	}
}

// TestNoAgentSendsNoOptions: without an agent the body has neither
// temperature nor max_tokens, and SessionStarted no agent.
func TestNoAgentSendsNoOptions(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("fini"))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	s := e.open(t, e.options("s-plain"))
	if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "bonjour"}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if model, temp, max := body(t, reqs[0].Body); model != "test-model" || temp != nil || max != 0 {
		t.Errorf("body %s: want the configured model and no option", reqs[0].Body)
	}
	if p := startedOf(t, s.Store, s.ID); p.Agent != "" {
		t.Errorf("SessionStarted agent %q, want none", p.Agent)
	}
}

// toolsOf runs one turn of a session opened with o and returns the tools
// of its SessionStarted and of the request the model got.
func toolsOf(t *testing.T, e *testEnv, o Options) (started, offered []string) {
	t.Helper()
	srv := openaitest.NewServer(t, openaitest.Answer("ok"))
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	s := e.open(t, o)
	if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "outils ?"}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	return startedOf(t, s.Store, s.ID).Tools, reqs[0].Tools
}

// TestAgentAllowedTools: [] leaves no built-in tool; a list, only those;
// the agent tool only when listed.
func TestAgentAllowedTools(t *testing.T) {
	for name, tc := range map[string]struct {
		allowed []string
		want    []string
	}{
		"none":      {allowed: []string{}, want: []string{}},
		"read only": {allowed: []string{"read_file", "grep"}, want: []string{"grep", "read_file"}},
	} {
		t.Run(name, func(t *testing.T) {
			e := newTestEnv(t)
			o := e.options("s-tools")
			a := smartAgent("ag-tools")
			a.Config.AllowedTools = tc.allowed
			o.Agent = a
			started, offered := toolsOf(t, e, o)
			if !slices.Equal(started, tc.want) {
				t.Errorf("SessionStarted.tools %v, want %v", started, tc.want)
			}
			if len(offered) != len(tc.want) {
				t.Errorf("the model was offered %v, want %v", offered, tc.want)
			}
		})
	}
	// Without an agent every built-in tool is there, the agent tool too
	// (the checks above would pass on an empty registry otherwise).
	e := newTestEnv(t)
	started, _ := toolsOf(t, e, e.options("s-all"))
	for _, want := range []string{"shell_exec", "write_file", "agent"} {
		if !slices.Contains(started, want) {
			t.Errorf("tools without an agent %v, want %s among them", started, want)
		}
	}
}

// TestAgentUnknownToolIsAWarning: a name Moteur does not have is said.
func TestAgentUnknownToolIsAWarning(t *testing.T) {
	e := newTestEnv(t)
	o := e.options("s-unknown")
	o.Lang = i18n.EN // the warning asserted in English
	a := smartAgent("ag-data")
	a.Config.AllowedTools = []string{"no_such_tool", "search_knowledge"}
	o.Agent = a
	s := e.open(t, o)
	joined := strings.Join(s.Warnings, "\n")
	if !strings.Contains(joined, "no_such_tool is not a tool of Moteur") || strings.Contains(joined, "search_knowledge") {
		t.Errorf("warnings %q, want one for no_such_tool only", s.Warnings)
	}
}

// TestAgentAccessLevel: the agent's access level is the mode; --mode may be
// stricter, not looser; the organisation's floor narrows a looser agent.
func TestAgentAccessLevel(t *testing.T) {
	e := newTestEnv(t)
	o := e.options("")
	o.Lang = i18n.EN // the refusal and the note asserted in English
	a := smartAgent("ag-ro")
	a.Config.AccessLevel = agentconfig.AccessReadOnly
	o.Agent = a
	s, err := LoadSettings(o)
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Permissions.Mode(); m != policy.ReadOnly {
		t.Errorf("mode %s, want read_only", m)
	}
	o.Mode = policy.AutoWrite
	var oe *OptionError
	if _, err := LoadSettings(o); !errors.As(err, &oe) || oe.Option != "mode" || !strings.Contains(err.Error(), "access_level read_only") {
		t.Errorf("%v, want an OptionError of the mode naming the agent's access level", err)
	}
	e.usePolicy(t, "min_mode: confirm\n")
	o.Mode = ""
	o.Agent = smartAgent("ag-aw") // auto_write by default
	s, err = LoadSettings(o)
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Permissions.Mode(); m != policy.Confirm {
		t.Errorf("an auto_write agent under min_mode confirm runs as %s, want confirm", m)
	}
	if !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.Contains(n, "access_level auto_write runs as confirm") }) {
		t.Errorf("notes %q: want the narrowing said", s.Notes)
	}
}

// TestAgentReadOnlyRefusesAWrite: under read_only the write is refused and
// the file is not made.
func TestAgentReadOnlyRefusesAWrite(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("c1", "write_file", `{"path":"x.txt","content":"non"}`),
		openaitest.Answer("refusé"))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	o := e.options("s-ro")
	a := smartAgent("ag-ro")
	a.Config.AccessLevel, a.Config.AllowedTools = agentconfig.AccessReadOnly, []string{"write_file"}
	o.Agent = a
	s := e.open(t, o)
	if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "écris"}); err != nil {
		t.Fatal(err)
	}
	if len(srv.Requests()) != 2 {
		t.Fatalf("%d requests: the model's call was not answered", len(srv.Requests()))
	}
	if _, err := os.Stat(filepath.Join(e.root, "x.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("x.txt: %v, want no file", err)
	}
	evs, err := s.Store.Load(t.Context(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	refused := false
	for _, ev := range evs {
		if p, ok := ev.Payload.(event.ToolResultPayload); ok && p.Name == "write_file" && p.IsError {
			refused = true
		}
	}
	if !refused {
		t.Error("no refused write_file in the session's events")
	}
}

// TestAgentBases: the bases are narrowed within the agent's selection.
func TestAgentBases(t *testing.T) {
	sel := &agentconfig.Agent{ID: "a", Config: agentconfig.CustomAgentConfig{KnowledgeBases: []string{"rh", "juridique"}}}
	sel.Config.EnsureDefaults()
	none := &agentconfig.Agent{ID: "n", Config: agentconfig.CustomAgentConfig{KBSelectionMode: agentconfig.SelectNone}}
	all := &agentconfig.Agent{ID: "t", Config: agentconfig.CustomAgentConfig{KBSelectionMode: agentconfig.SelectAll}}
	var oe *OptionError
	for name, tc := range map[string]struct {
		requested []string
		a         *agentconfig.Agent
		want      knowledgeSelection
		refused   bool
	}{
		"no agent":            {requested: []string{"x"}, want: knowledgeSelection{bases: []string{"x"}}},
		"selected":            {a: sel, want: knowledgeSelection{bases: []string{"rh", "juridique"}}},
		"selected, narrowed":  {requested: []string{"rh"}, a: sel, want: knowledgeSelection{bases: []string{"rh"}}},
		"selected, outside":   {requested: []string{"rh", "compta"}, a: sel, refused: true},
		"none":                {a: none, want: knowledgeSelection{}},
		"none, one requested": {requested: []string{"rh"}, a: none, refused: true},
		"all":                 {a: all, want: knowledgeSelection{all: true}},
		"all, narrowed":       {requested: []string{"rh"}, a: all, want: knowledgeSelection{bases: []string{"rh"}}},
	} {
		got, err := agentBases(tc.requested, tc.a, i18n.EN)
		switch {
		case tc.refused:
			if !errors.As(err, &oe) || oe.Option != "kb" {
				t.Errorf("%s: %v, want an OptionError of kb", name, err)
			}
		case err != nil || got.all != tc.want.all || !slices.Equal(got.bases, tc.want.bases):
			t.Errorf("%s: %+v, %v; want %+v", name, got, err, tc.want)
		}
	}
}

// TestAgentProviders: a provider's name or model puts it first; another
// model is asked of the first provider's server.
func TestAgentProviders(t *testing.T) {
	ps := []config.Provider{{Name: "cloud", Model: "large"}, {Name: "local", Model: "qwen", Local: true}}
	names := func(ps []config.Provider) string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name+"/"+p.Model)
		}
		return strings.Join(out, " ")
	}
	for model, want := range map[string]string{
		"":      "cloud/large local/qwen",
		"local": "local/qwen cloud/large",
		"qwen":  "local/qwen cloud/large",
		"small": "cloud/small local/qwen",
	} {
		if got := names(agentProviders(ps, model)); got != want {
			t.Errorf("model_id %q: %s, want %s", model, got, want)
		}
	}
	if names(ps) != "cloud/large local/qwen" {
		t.Errorf("the configuration's providers were changed: %s", names(ps))
	}
}

// TestAgentMaxIterations: max_iterations becomes the engine's (in
// SessionStarted); a negative one is the cap; the option may lower it.
func TestAgentMaxIterations(t *testing.T) {
	for _, tc := range []struct {
		agent, option, want int
	}{{agent: -1, want: agentconfig.MaxIterationsCap}, {agent: 0, want: agentconfig.DefaultMaxIterations},
		{agent: 20, option: 3, want: 3}, {agent: 5, option: 50, want: 5}} {
		srv := openaitest.NewServer(t, openaitest.Answer("ok"))
		e := newTestEnv(t)
		e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
		o := e.options("s-iter")
		a := smartAgent("ag-iter")
		a.Config.MaxIterations = tc.agent
		o.Agent, o.MaxIterations = a, tc.option
		s := e.open(t, o)
		if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "go"}); err != nil {
			t.Fatal(err)
		}
		if got := startedOf(t, s.Store, s.ID).MaxIterations; got != tc.want {
			t.Errorf("agent %d, option %d: max_iterations %d, want %d", tc.agent, tc.option, got, tc.want)
		}
	}
}

// TestResolveAgent: a stored agent by name; an unknown one is an
// OptionError listing the agents.
func TestResolveAgent(t *testing.T) {
	e := newTestEnv(t)
	st, err := agentstore.Open(t.Context(), agentstore.Config{Path: session.DefaultPath(e.home())})
	if err != nil {
		t.Fatal(err)
	}
	made, err := st.Create(t.Context(), agentconfig.Agent{Name: "juriste", Config: agentconfig.CustomAgentConfig{AgentMode: agentconfig.ModeQuickAnswer}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := ResolveAgent(t.Context(), e.options(""), "juriste")
	if err != nil || a.ID != made.ID {
		t.Fatalf("ResolveAgent(juriste) = %+v, %v; want %s", a, err, made.ID)
	}
	_, err = ResolveAgent(t.Context(), e.options(""), "inconnu")
	var oe *OptionError
	if !errors.As(err, &oe) || !errors.Is(err, agentstore.ErrNotFound) || !strings.Contains(err.Error(), "builtin-quick-answer") ||
		!strings.Contains(err.Error(), made.ID+" (juriste)") {
		t.Errorf("%v, want an OptionError listing the agents", err)
	}
}

// TestQuickAgent: a quick-answer agent's options reach the generation, its
// id SessionStarted; an agent with no base cannot answer.
func TestQuickAgent(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("Trente jours [c1]."))
	e := newTestEnv(t)
	e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
	knowledgeEnv(t, e)
	o := e.options("s-quick")
	o.NoModel = true
	o.Agent = &agentconfig.Agent{ID: "ag-q", Name: "rapide", Config: agentconfig.CustomAgentConfig{
		ModelID: "quick-model", Temperature: 0.1, MaxCompletionTokens: 300, KnowledgeBases: []string{"rh"}}}
	q, err := OpenQuick(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if !q.Settings.Quick() {
		t.Error("Settings.Quick() is false for a quick-answer agent")
	}
	if _, err := q.Ask(t.Context(), "combien de jours de congés ?", func(event.Event) {}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want the generation", len(reqs))
	}
	if model, temp, max := body(t, reqs[0].Body); model != "quick-model" || temp == nil || *temp != 0.1 || max != 300 {
		t.Errorf("body %s: want model quick-model, temperature 0.1, max_tokens 300", reqs[0].Body)
	}
	if p := startedOf(t, q.Store, q.ID); p.Agent != "ag-q" {
		t.Errorf("SessionStarted agent %q, want ag-q", p.Agent)
	}
	o.SessionID = "s-quick-none"
	o.Agent = &agentconfig.Agent{ID: "ag-n", Config: agentconfig.CustomAgentConfig{KBSelectionMode: agentconfig.SelectNone}}
	o.Lang = i18n.EN // the refusal asserted in English
	var oe *OptionError
	if _, err := OpenQuick(t.Context(), o); !errors.As(err, &oe) || !strings.Contains(err.Error(), "nothing to search") {
		t.Errorf("%v, want an OptionError: nothing to search", err)
	}
}
