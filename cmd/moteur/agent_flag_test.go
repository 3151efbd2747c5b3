package main

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
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// storeAgent stores a custom agent in the harness's database, as moteur
// agents create does, and returns it.
func storeAgent(t *testing.T, h *harness, name string, cfg agentconfig.CustomAgentConfig) agentconfig.Agent {
	t.Helper()
	st, err := agentstore.Open(t.Context(), agentstore.Config{Path: session.DefaultPath(h.home())})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := st.Create(t.Context(), agentconfig.Agent{Name: name, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// requestOptions are the options of a request body.
type requestOptions struct {
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature"`
	MaxTokens   int      `json:"max_tokens"`
}

func optionsOf(t *testing.T, body []byte) requestOptions {
	t.Helper()
	var o requestOptions
	if err := json.Unmarshal(body, &o); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	return o
}

// startedIn is the first SessionStarted of a stored session.
func startedIn(t *testing.T, evs []event.Event) event.SessionStartedPayload {
	t.Helper()
	for _, ev := range evs {
		if p, ok := ev.Payload.(event.SessionStartedPayload); ok {
			return p
		}
	}
	t.Fatalf("no SessionStarted among %v", types(evs))
	return event.SessionStartedPayload{}
}

func smartConfig() agentconfig.CustomAgentConfig {
	return agentconfig.CustomAgentConfig{AgentMode: agentconfig.ModeSmartReasoning, ModelID: "agent-model",
		Temperature: 0.3, MaxCompletionTokens: 555}
}

// TestAgentFlagRunSendsTheAgentsOptions: moteur run --agent NAME sends the
// stored agent's model, temperature and max tokens, and records its id.
func TestAgentFlagRunSendsTheAgentsOptions(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("voilà"))
	h := newHarness(t, srv.BaseURL())
	a := storeAgent(t, h, "précis", smartConfig())

	res := h.run(t, "run", "--agent", "précis", "--new-session", "s-agent", "bonjour")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if o := optionsOf(t, reqs[0].Body); o.Model != "agent-model" || o.Temperature == nil || *o.Temperature != 0.3 || o.MaxTokens != 555 {
		t.Errorf("body %s: want model agent-model, temperature 0.3, max_tokens 555", reqs[0].Body)
	}
	if p := startedIn(t, h.load(t, "s-agent")); p.Agent != a.ID {
		t.Errorf("SessionStarted.Agent = %q, want %s", p.Agent, a.ID)
	}
	info, err := h.store(t).Info(t.Context(), "s-agent")
	if err != nil || info.Agent != a.ID {
		t.Errorf("Info.Agent = %q (%v), want %s", info.Agent, err, a.ID)
	}
}

// TestAgentFlagUnknownListsTheAgents: an unknown agent is a usage error
// that lists the built-in and stored agents; nothing is sent or stored.
func TestAgentFlagUnknownListsTheAgents(t *testing.T) {
	srv := openaitest.NewServer(t) // any request fails the test
	h := newHarness(t, srv.BaseURL())
	a := storeAgent(t, h, "juriste", smartConfig())
	for _, cmd := range [][]string{{"run", "--agent", "inconnu", "--new-session", "s-x", "bonjour"}, {"ask", "--agent", "inconnu", "question"}} {
		res := h.run(t, cmd...)
		if res.code != exitUsage || !strings.Contains(res.stderr, `"inconnu"`) ||
			!strings.Contains(res.stderr, "builtin-smart-reasoning") || !strings.Contains(res.stderr, a.ID+" (juriste)") {
			t.Errorf("%s: exit %d, stderr %q; want a usage error listing the agents", cmd[0], res.code, res.stderr)
		}
	}
	if _, err := h.store(t).Info(t.Context(), "s-x"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("session s-x: %v, want none stored", err)
	}
}

// TestAgentFlagQuickAgentOnRunGivesAQuickAnswer: run with a quick-answer
// agent answers from the knowledge bases with the quick answer, says so
// once, and sends the agent's options.
func TestAgentFlagQuickAgentOnRunGivesAQuickAnswer(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("Trente jours par an [c1]."))
	h := newKBHarness(t)
	h.env["MOTEUR_LANG"] = "en" // the English texts below
	withBase(t, h, "docs")
	withModel(h, srv)
	a := storeAgent(t, h, "rapide", agentconfig.CustomAgentConfig{AgentMode: agentconfig.ModeQuickAnswer,
		Temperature: 0.1, MaxCompletionTokens: 300, KnowledgeBases: []string{"docs"}})

	res := h.run(t, "run", "--agent", "rapide", "--new-session", "s-quick", congesQuestion)
	if res.code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if n := strings.Count(res.stderr, "quick-answer agent"); n != 1 {
		t.Errorf("stderr %q: want the quick answer said once", res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want one generation", len(reqs))
	}
	r := reqs[0]
	if r.Messages[0].Content != i18n.QuickAnswerPrompt(i18n.EN, true) || len(r.Tools) != 0 {
		t.Errorf("system %q, tools %v: want the quick answer's prompt and no tool", r.Messages[0].Content, r.Tools)
	}
	if o := optionsOf(t, r.Body); o.Temperature == nil || *o.Temperature != 0.1 || o.MaxTokens != 300 {
		t.Errorf("body %s: want temperature 0.1 and max_tokens 300", r.Body)
	}
	if !strings.HasPrefix(res.stdout, "Trente jours par an [c1].\n") || !congesSources.MatchString(res.stdout) {
		t.Errorf("stdout:\n%s\nwant the answer and its sources", res.stdout)
	}
	if p := startedIn(t, h.load(t, "s-quick")); p.Provider != "quick-answer" || p.Agent != a.ID {
		t.Errorf("SessionStarted %+v, want the quick answer's, with agent %s", p, a.ID)
	}
}

// TestAgentFlagQuickAgentInChat: chat with a quick-answer agent answers
// each line with the quick answer.
func TestAgentFlagQuickAgentInChat(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("Trente jours [c1]."))
	h := newKBHarness(t)
	h.env["MOTEUR_LANG"] = "en" // the English texts below
	withBase(t, h, "docs")
	withModel(h, srv)
	storeAgent(t, h, "rapide", agentconfig.CustomAgentConfig{AgentMode: agentconfig.ModeQuickAnswer})
	h.stdin = strings.NewReader(congesQuestion + "\n")

	res := h.run(t, "chat", "--agent", "rapide")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if len(srv.Requests()) != 1 || !strings.Contains(res.stdout, "Trente jours [c1].") ||
		!strings.Contains(res.stderr, "quick-answer agent") {
		t.Errorf("%d requests, stdout %q, stderr %q: want one quick answer", len(srv.Requests()), res.stdout, res.stderr)
	}
}

// TestAgentFlagAskSendsTheAgentsOptions: ask --agent too.
func TestAgentFlagAskSendsTheAgentsOptions(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("Trente jours [c1]."))
	h := newKBHarness(t)
	withBase(t, h, "docs")
	withModel(h, srv)
	storeAgent(t, h, "rapide", agentconfig.CustomAgentConfig{ModelID: "quick-model", Temperature: 0.4, MaxCompletionTokens: 321})

	if res := h.run(t, "ask", "--agent", "rapide", congesQuestion); res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if o := optionsOf(t, reqs[0].Body); o.Model != "quick-model" || o.Temperature == nil || *o.Temperature != 0.4 || o.MaxTokens != 321 {
		t.Errorf("body %s: want quick-model, temperature 0.4, max_tokens 321", reqs[0].Body)
	}
}

// TestAgentFlagReadOnlyRefusesAWrite: an agent with access_level read_only
// runs in read_only: its write is refused and the file is not made.
func TestAgentFlagReadOnlyRefusesAWrite(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("c1", "write_file", `{"path":"notes.txt","content":"non"}`),
		openaitest.Answer("je ne peux pas écrire"))
	h := newHarness(t, srv.BaseURL())
	cfg := smartConfig()
	cfg.AccessLevel, cfg.AllowedTools = agentconfig.AccessReadOnly, []string{"read_file", "write_file"}
	storeAgent(t, h, "lecteur", cfg)

	res := h.run(t, "run", "--agent", "lecteur", "--new-session", "s-ro", "écris notes.txt")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "notes.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("notes.txt: %v, want no file", err)
	}
	evs := h.load(t, "s-ro")
	if p := startedIn(t, evs); p.Mode != "read_only" {
		t.Errorf("SessionStarted.Mode = %q, want read_only", p.Mode)
	}
	refused := false
	for _, ev := range evs {
		if p, ok := ev.Payload.(event.ToolResultPayload); ok && p.Name == "write_file" && p.IsError {
			refused = true
		}
	}
	if !refused {
		t.Errorf("no refused write_file among %v", types(evs))
	}
}

// TestAgentFlagNoAllowedToolsOffersNone: allowed_tools [] leaves no
// built-in tool in SessionStarted.tools nor in the request; without the
// agent the same run has them.
func TestAgentFlagNoAllowedToolsOffersNone(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("sans outil"), openaitest.Answer("avec outils"))
	h := newHarness(t, srv.BaseURL())
	cfg := smartConfig()
	cfg.AllowedTools = []string{}
	storeAgent(t, h, "nu", cfg)

	if res := h.run(t, "run", "--agent", "nu", "--new-session", "s-none", "bonjour"); res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if res := h.run(t, "run", "--new-session", "s-all", "bonjour"); res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if tools := startedIn(t, h.load(t, "s-none")).Tools; len(tools) != 0 {
		t.Errorf("SessionStarted.tools %v with allowed_tools [], want none", tools)
	}
	if tools := startedIn(t, h.load(t, "s-all")).Tools; !slices.Contains(tools, "write_file") {
		t.Errorf("SessionStarted.tools %v without an agent, want the built-ins", tools)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[0].Tools) != 0 || len(reqs[1].Tools) == 0 {
		t.Errorf("tools offered: %v then %v; want none with the agent, some without", reqs[0].Tools, reqs[1].Tools)
	}
}

// TestAgentFlagMaxIterations: the agent's max_iterations holds unless
// --max-iterations is given.
func TestAgentFlagMaxIterations(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("un"), openaitest.Answer("deux"))
	h := newHarness(t, srv.BaseURL())
	cfg := smartConfig()
	cfg.MaxIterations = 7
	storeAgent(t, h, "sept", cfg)
	if res := h.run(t, "run", "--agent", "sept", "--new-session", "s-7", "a"); res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if res := h.run(t, "run", "--agent", "sept", "--max-iterations", "3", "--new-session", "s-3", "b"); res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if n := startedIn(t, h.load(t, "s-7")).MaxIterations; n != 7 {
		t.Errorf("max_iterations %d, want the agent's 7", n)
	}
	if n := startedIn(t, h.load(t, "s-3")).MaxIterations; n != 3 {
		t.Errorf("max_iterations %d with --max-iterations 3, want 3", n)
	}
}
