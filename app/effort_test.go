package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// useProvider makes the server at base the test's one provider, in the
// user's configuration file, with a no_thinking object and the extra
// lines given (reasoning_efforts).
func (e *testEnv) useProvider(t testing.TB, base, extra string) {
	t.Helper()
	delete(e.vars, "MOTEUR_BASE_URL")
	delete(e.vars, "MOTEUR_MODEL")
	writeFile(t, filepath.Join(e.vars["XDG_CONFIG_HOME"], "moteur", "config.yaml"), fmt.Sprintf(
		"providers:\n  - name: srv\n    base_url: %s\n    model: test-model\n    no_thinking: {chat_template_kwargs: {enable_thinking: false}}\n%s",
		base, extra))
}

// thinking is what a request body asks of the model's thinking: the
// reasoning_effort sent ("" when absent, sent false) and whether the
// no_thinking object went with it.
type thinking struct {
	effort     string
	sent       bool
	noThinking bool
}

func thinkingOf(t *testing.T, raw []byte) thinking {
	t.Helper()
	var w map[string]json.RawMessage
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatalf("request body: %v\n%s", err, raw)
	}
	var th thinking
	if v, ok := w["reasoning_effort"]; ok {
		th.sent = true
		if err := json.Unmarshal(v, &th.effort); err != nil {
			t.Fatalf("reasoning_effort %s: %v", v, err)
		}
	}
	_, th.noThinking = w["chat_template_kwargs"]
	return th
}

// notes collects what Options.Notify is told.
type notes struct {
	mu    sync.Mutex
	lines []string
}

func (n *notes) add(line string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, line)
}

func (n *notes) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.lines)
}

func boolRef(b bool) *bool { return &b }

// TestAgentReasoningEffortReachesTheModel: the agent's effective effort
// (reasoning_effort over thinking; both unset: off), or the option's over
// it, is what the loop's request asks, adjusted to the provider's
// reasoning_efforts with a note.
func TestAgentReasoningEffortReachesTheModel(t *testing.T) {
	for _, tc := range []struct {
		name      string
		effort    string
		thinking  *bool
		option    string
		efforts   string // the provider's reasoning_efforts line
		want      thinking
		wantNotes []string
	}{
		{name: "high", effort: "high", want: thinking{effort: "high", sent: true}},
		{name: "effort over thinking", effort: "low", thinking: boolRef(false), want: thinking{effort: "low", sent: true}},
		{name: "thinking true is auto", thinking: boolRef(true), want: thinking{}},
		{name: "auto", effort: "auto", want: thinking{}},
		{name: "both unset is off", want: thinking{noThinking: true}},
		{name: "off", effort: "off", thinking: boolRef(true), want: thinking{noThinking: true}},
		{name: "option over the agent", effort: "high", option: "minimal", want: thinking{effort: "minimal", sent: true}},
		{name: "option off", effort: "high", option: "off", want: thinking{noThinking: true}},
		{name: "adjusted down", effort: "xhigh", efforts: "    reasoning_efforts: [low, medium]\n",
			want: thinking{effort: "medium", sent: true}, wantNotes: []string{"srv n'a pas l'effort de réflexion xhigh : medium lui est demandé"}},
		{name: "max is the strongest", effort: "max", efforts: "    reasoning_efforts: [low, xhigh]\n",
			want: thinking{effort: "xhigh", sent: true}, wantNotes: []string{"srv n'a pas l'effort de réflexion max : xhigh"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Answer("fini"))
			e := newTestEnv(t)
			e.useProvider(t, srv.BaseURL(), tc.efforts)
			o := e.options("s-effort")
			a := smartAgent("ag-effort")
			a.Config.ReasoningEffort, a.Config.Thinking = tc.effort, tc.thinking
			o.Agent, o.ReasoningEffort = a, tc.option
			var n notes
			o.Notify = n.add
			s := e.open(t, o)
			if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "bonjour"}); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if got := thinkingOf(t, reqs[0].Body); got != tc.want {
				t.Errorf("request asks %+v, want %+v\n%s", got, tc.want, reqs[0].Body)
			}
			got := n.all()
			if len(got) != len(tc.wantNotes) {
				t.Fatalf("notes %q, want %d", got, len(tc.wantNotes))
			}
			for i, w := range tc.wantNotes {
				if !strings.Contains(got[i], w) {
					t.Errorf("note %q, want %q in it", got[i], w)
				}
			}
		})
	}
}

// TestReasoningEffortWithoutAgent: without an agent nothing is asked, as
// before agents; the option alone asks its level.
func TestReasoningEffortWithoutAgent(t *testing.T) {
	for option, want := range map[string]thinking{"": {}, "medium": {effort: "medium", sent: true}, "off": {noThinking: true}} {
		srv := openaitest.NewServer(t, openaitest.Answer("fini"))
		e := newTestEnv(t)
		e.useProvider(t, srv.BaseURL(), "")
		o := e.options("s-plain")
		o.ReasoningEffort = option
		s := e.open(t, o)
		if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "bonjour"}); err != nil {
			t.Fatal(err)
		}
		if got := thinkingOf(t, srv.Requests()[0].Body); got != want {
			t.Errorf("option %q: request asks %+v, want %+v", option, got, want)
		}
	}
}

// TestReasoningEffortOptionChecked: an unknown level is an OptionError
// naming the option and the levels, before any session exists.
func TestReasoningEffortOptionChecked(t *testing.T) {
	e := newTestEnv(t)
	o := e.options("s-bad")
	o.ReasoningEffort = "turbo"
	_, err := Open(t.Context(), o)
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "reasoning_effort" || !strings.Contains(err.Error(), "off, auto, minimal, low, medium, high, xhigh, max") {
		t.Fatalf("%v, want an OptionError of reasoning_effort listing the levels", err)
	}
	if _, err := e.openStore(t).Info(t.Context(), "s-bad"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Info of the refused session: %v, want ErrNotFound", err)
	}
}

// TestClosingSynthesisThinksNot: at the iteration limit the closing
// synthesis turns thinking off and asks no effort, while the round before
// it asked the agent's.
func TestClosingSynthesisThinksNot(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("c1", "read_file", `{"path":"a.txt"}`),
		openaitest.Answer("synthèse"))
	e := newTestEnv(t)
	writeFile(t, filepath.Join(e.root, "a.txt"), "contenu\n")
	e.useProvider(t, srv.BaseURL(), "")
	o := e.options("s-synth")
	a := smartAgent("ag-synth")
	a.Config.ReasoningEffort, a.Config.MaxIterations, a.Config.AllowedTools = "high", 1, []string{"read_file"}
	o.Agent = a
	s := e.open(t, o)
	if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "lis a.txt"}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the round and the synthesis", len(reqs))
	}
	if got := thinkingOf(t, reqs[0].Body); got != (thinking{effort: "high", sent: true}) {
		t.Errorf("round: %+v, want high", got)
	}
	if reqs[1].ToolChoice != "none" {
		t.Fatalf("request 2 is not the closing synthesis: %s", reqs[1].Body)
	}
	if got := thinkingOf(t, reqs[1].Body); got != (thinking{noThinking: true}) {
		t.Errorf("synthesis: %+v, want thinking off and no effort", got)
	}
}

// TestEffortRefusedIsSaid: a server that refuses reasoning_effort gets the
// request again without it, and the user is told once.
func TestEffortRefusedIsSaid(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Status(400, "invalid_request_error", "unknown field: reasoning_effort"),
		openaitest.Answer("un"),
		openaitest.Answer("deux"))
	e := newTestEnv(t)
	e.useProvider(t, srv.BaseURL(), "")
	o := e.options("s-refused")
	a := smartAgent("ag-refused")
	a.Config.ReasoningEffort = "low"
	o.Agent = a
	var n notes
	o.Notify = n.add
	s := e.open(t, o)
	for _, q := range []string{"un", "deux"} {
		if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: q}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if got := thinkingOf(t, r.Body); got.sent != (i == 0) {
			t.Errorf("request %d: %+v", i+1, got)
		}
	}
	if got := n.all(); len(got) != 1 || !strings.Contains(got[0], "srv refuse reasoning_effort") {
		t.Errorf("notes %q, want the refusal said once", got)
	}
}

// knowledgeEnv makes a base rh in e's data directory, with one document.
func knowledgeEnv(t *testing.T, e *testEnv) {
	t.Helper()
	docs := t.TempDir()
	writeFile(t, filepath.Join(docs, "conges.md"), "# Congés\n\nChaque salarié a trente jours de congés payés par an.\n")
	o := e.options("")
	o.NoModel = true
	st, err := LoadSettings(o)
	if err != nil {
		t.Fatal(err)
	}
	store, err := st.OpenKnowledge(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.Create(t.Context(), "rh", kb.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Ingest(t.Context(), "rh", []string{docs}, kb.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestAgentCitationPrompt: with citation_enabled false the knowledge
// section asks for no citation; unset or true, it does.
func TestAgentCitationPrompt(t *testing.T) {
	for name, tc := range map[string]struct {
		enabled *bool
		cite    bool
	}{"unset": {nil, true}, "true": {boolRef(true), true}, "false": {boolRef(false), false}} {
		t.Run(name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Answer("fini"))
			e := newTestEnv(t)
			e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
			knowledgeEnv(t, e)
			o := e.options("s-cite")
			a := smartAgent("ag-cite")
			a.Config.KnowledgeBases, a.Config.CitationEnabled = []string{"rh"}, tc.enabled
			o.Agent = a
			s := e.open(t, o)
			if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "congés ?"}); err != nil {
				t.Fatal(err)
			}
			system := srv.Requests()[0].Messages[0].Content
			if !strings.Contains(system, "Bases de connaissances disponibles : rh") || !strings.Contains(system, "read_document") {
				t.Fatalf("no knowledge section in the prompt:\n%s", system)
			}
			if got := strings.Contains(system, "[c3]") || strings.Contains(system, "cite chaque"); got != tc.cite {
				t.Errorf("citation protocol in the prompt: %v, want %v:\n%s", got, tc.cite, system)
			}
		})
	}
}

// TestQuickAgentEffortAndCitations: a quick-answer agent's effort reaches
// the generation; with citation_enabled false its answer and its
// AssistantMessage carry no citation, though the text cites [c1]; true,
// they do.
func TestQuickAgentEffortAndCitations(t *testing.T) {
	for name, enabled := range map[string]bool{"cited": true, "not cited": false} {
		t.Run(name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Answer("Trente jours [c1]."))
			e := newTestEnv(t)
			e.vars["MOTEUR_BASE_URL"] = srv.BaseURL()
			knowledgeEnv(t, e)
			o := e.options("s-quick-cite")
			o.Agent = &agentconfig.Agent{ID: "ag-q", Name: "rapide", Config: agentconfig.CustomAgentConfig{
				KnowledgeBases: []string{"rh"}, ReasoningEffort: "medium", CitationEnabled: boolRef(enabled)}}
			q, err := OpenQuick(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			var cited []int
			a, err := q.Ask(t.Context(), "combien de jours de congés ?", func(ev event.Event) {
				if p, ok := ev.Payload.(event.AssistantMessagePayload); ok {
					cited = append(cited, len(p.Citations))
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want the generation", len(reqs))
			}
			if got := thinkingOf(t, reqs[0].Body); got != (thinking{effort: "medium", sent: true}) {
				t.Errorf("generation asks %+v, want medium", got)
			}
			if asks := strings.Contains(string(reqs[0].Body), "[c2]"); asks != enabled {
				t.Errorf("the generation's prompt asks for citations: %v, want %v", asks, enabled)
			}
			if len(cited) != 1 {
				t.Fatalf("%d AssistantMessage, want 1", len(cited))
			}
			if has := cited[0] > 0 || len(a.Citations) > 0; has != enabled {
				t.Errorf("citations in the event %d, in the answer %d; want some: %v", cited[0], len(a.Citations), enabled)
			}
			evs, err := q.Store.Load(t.Context(), q.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				if p, ok := ev.Payload.(event.AssistantMessagePayload); ok && (len(p.Citations) > 0) != enabled {
					t.Errorf("stored AssistantMessage citations %v, want some: %v", p.Citations, enabled)
				}
			}
		})
	}
}
