package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// quickWebEnv is a test environment with the knowledge base rh, the model
// server srv (remote) and SearXNG at sx as the search provider, plus extra
// configuration.
func quickWebEnv(t *testing.T, srv *openaitest.Server, sx *searxng, extra string) *testEnv {
	t.Helper()
	e := newTestEnv(t)
	e.useWebConfig(t, srv.BaseURL(), false, fmt.Sprintf("%sweb:\n  search: {provider: searxng, base_url: %s}\n", extra, sx.URL))
	knowledgeEnv(t, e)
	return e
}

// askQuick opens a quick answer with o, asks question and returns the
// answer with the events shown.
func askQuick(t *testing.T, o Options, question string) (*Quick, []event.Event, []cite.Ref) {
	t.Helper()
	q, err := OpenQuick(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Close() })
	var evs []event.Event
	a, err := q.Ask(t.Context(), question, func(ev event.Event) { evs = append(evs, ev) })
	if err != nil {
		t.Fatal(err)
	}
	return q, evs, a.Citations
}

// TestQuickWebCitesPassagesAndWeb: with --web, the quick answer's model
// request carries the passages and the SearXNG results, and the answer's
// citations map c1 to the passage and w1 to the page's URL, in the answer
// and in the stored events.
func TestQuickWebCitesPassagesAndWeb(t *testing.T) {
	sx := newSearxng(t)
	srv := openaitest.NewServer(t, openaitest.Answer("Trente jours [c1] ; cinq semaines selon le service public [w1]."))
	e := quickWebEnv(t, srv, sx, "")
	o := e.options("s-quickweb")
	o.Web = true
	q, _, cits := askQuick(t, o, "combien de jours de congés ?")
	if n := sx.queries.Load(); n != 1 {
		t.Fatalf("SearXNG got %d queries, want 1", n)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want the generation", len(reqs))
	}
	user := reqs[0].Messages[len(reqs[0].Messages)-1].Content
	c1, w1 := strings.Index(user, `<source id="c1"`), strings.Index(user, `<source id="w1"`)
	if c1 < 0 || w1 < c1 || !strings.Contains(user, "trente jours de congés payés") || !strings.Contains(user, "Cinq semaines de congés payés par an.") ||
		!strings.Contains(user, "https://www.service-public.fr/conges") {
		t.Fatalf("the model request lacks the passage, then the web result:\n%s", user)
	}
	if !strings.Contains(reqs[0].Messages[0].Content, "[w1]") {
		t.Errorf("the system prompt does not say how to cite a web result:\n%s", reqs[0].Messages[0].Content)
	}
	var got []string
	for _, c := range cits {
		got = append(got, c.Alias+" "+c.Kind+" "+c.ID)
	}
	if len(cits) != 2 || cits[0].Alias != "c1" || cits[0].Kind != cite.Chunk || got[1] != "w1 web https://www.service-public.fr/conges" {
		t.Fatalf("citations %q, want c1 the passage and w1 the page", got)
	}
	stored, err := q.Store.Load(t.Context(), q.ID)
	if err != nil {
		t.Fatal(err)
	}
	var kr, am bool
	for _, ev := range stored {
		switch p := ev.Payload.(type) {
		case event.KnowledgeRetrievedPayload:
			kr = slices.ContainsFunc(p.References, func(r cite.Ref) bool { return r.Alias == "w1" && r.ID == "https://www.service-public.fr/conges" })
		case event.AssistantMessagePayload:
			am = slices.ContainsFunc(p.Citations, func(r cite.Ref) bool { return r.Alias == "w1" && r.Kind == cite.Web })
		}
	}
	if !kr || !am {
		t.Errorf("stored events: the retrieval records w1 %t, the answer cites w1 %t; want both", kr, am)
	}
}

// TestQuickWebNoWeb: with --no-web the search provider gets no query,
// while the same quick answer with --web sends it one.
func TestQuickWebNoWeb(t *testing.T) {
	sx := newSearxng(t)
	srv := openaitest.NewServer(t, openaitest.Answer("Trente jours [c1]."), openaitest.Answer("Trente jours [c1]."))
	e := quickWebEnv(t, srv, sx, "")
	o := e.options("s-noweb")
	o.NoWeb = true
	askQuick(t, o, "combien de jours de congés ?")
	if n := sx.queries.Load(); n != 0 {
		t.Fatalf("with --no-web SearXNG got %d queries, want 0", n)
	}
	if len(srv.Requests()) != 1 || strings.Contains(srv.Requests()[0].Messages[1].Content, `id="w1"`) {
		t.Fatalf("with --no-web the model read web results: %d requests", len(srv.Requests()))
	}
	o = e.options("s-web")
	o.Web = true
	askQuick(t, o, "combien de jours de congés ?")
	if n := sx.queries.Load(); n != 1 {
		t.Fatalf("with --web SearXNG got %d queries, want 1", n)
	}
}

// TestQuickWebSensitiveSendsNoQuery: a quick answer whose session holds
// classified content sends no query to a provider not declared local: the
// passages answer alone, with a warning naming the rule; the same question
// in a session that is not sensitive searched.
func TestQuickWebSensitiveSendsNoQuery(t *testing.T) {
	sx := newSearxng(t)
	// The stored session's question is followed up: its rewrite, then the
	// answer; then the answer of the other session.
	srv := openaitest.NewServer(t, openaitest.Answer("combien de jours de congés ?"),
		openaitest.Answer("Trente jours [c1]."), openaitest.Answer("Trente jours [c1]."))
	// A local model: the sensitive session may still use it.
	e := newTestEnv(t)
	e.useWebConfig(t, srv.BaseURL(), true, fmt.Sprintf("web:\n  search: {provider: searxng, base_url: %s}\n", sx.URL))
	knowledgeEnv(t, e)
	evs := events("s-classified", 3)
	evs = append(evs, event.Event{Seq: 4, SessionID: "s-classified", Time: evs[2].Time, Type: event.SessionClassified,
		Payload: event.SessionClassifiedPayload{Marking: "PROJET ALPHA", Source: "test"}})
	e.store(t, evs)
	o := e.options("s-classified")
	o.Web, o.Lang = true, i18n.EN
	_, shown, _ := askQuick(t, o, "combien de jours de congés ?")
	if n := sx.queries.Load(); n != 0 {
		t.Fatalf("the sensitive session sent %d queries, want 0", n)
	}
	var warned bool
	for _, ev := range shown {
		if p, ok := ev.Payload.(event.WarningPayload); ok && p.Kind == "web" && strings.Contains(p.Message, "sensitive session") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no web warning naming the sensitive session among %d events", len(shown))
	}
	o = e.options("s-open")
	o.Web = true
	askQuick(t, o, "combien de jours de congés ?")
	if n := sx.queries.Load(); n != 1 {
		t.Fatalf("the session that is not sensitive sent %d queries, want 1", n)
	}
}

// TestQuickWebNotes: a provider that cannot be built, or the airgapped
// profile, leaves the quick answer to the knowledge bases with a warning.
func TestQuickWebNotes(t *testing.T) {
	for name, tc := range map[string]struct{ config, want string }{
		"brave without its key": {"web:\n  search: {provider: brave, api_key_env: MOTEUR_TEST_BRAVE_KEY}\n", "api key"},
		"airgapped":             {"profile: airgapped\nweb:\n  search: {provider: searxng, base_url: http://127.0.0.1:8888, local: true}\n", "airgapped"},
		"no provider":           {"web:\n  allow_private_hosts: [\"127.0.0.1:8080\"]\n", "web.search"},
	} {
		t.Run(name, func(t *testing.T) {
			e := newTestEnv(t)
			e.useWebConfig(t, "http://127.0.0.1:1/v1", true, tc.config)
			knowledgeEnv(t, e)
			o := e.options("s-notes")
			o.Web, o.Lang = true, i18n.EN
			q, err := OpenQuick(t.Context(), o)
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			if !slices.ContainsFunc(q.Warnings, func(w string) bool { return strings.Contains(strings.ToLower(w), tc.want) }) {
				t.Errorf("warnings %q, want one about %s", q.Warnings, tc.want)
			}
		})
	}
}
