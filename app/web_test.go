package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/tools/files"
	"github.com/moteur/moteur/tools/web"
)

// searxng is a server that answers as SearXNG's JSON API does, counting
// the queries that reached it.
type searxng struct {
	*httptest.Server
	queries atomic.Int64
}

func newSearxng(t *testing.T) *searxng {
	t.Helper()
	s := &searxng{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.NotFound(w, r)
			return
		}
		s.queries.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"query":%q,"number_of_results":0,"results":[
{"url":"https://www.service-public.fr/conges","title":"Congés payés","content":"Cinq semaines de congés payés par an.","publishedDate":null,"engine":"duckduckgo","engines":["duckduckgo"],"positions":[1],"score":2.0,"category":"general"}
],"answers":[],"corrections":[],"infoboxes":[],"suggestions":[],"unresponsive_engines":[]}`, r.URL.Query().Get("q"))
	}))
	t.Cleanup(s.Close)
	return s
}

// useWebConfig writes the user's configuration: the model server at base
// (local or not), the markings, and the web section given.
func (e *testEnv) useWebConfig(t *testing.T, base string, local bool, extra string) {
	t.Helper()
	delete(e.vars, "MOTEUR_BASE_URL")
	delete(e.vars, "MOTEUR_MODEL")
	writeFile(t, filepath.Join(e.vars["XDG_CONFIG_HOME"], "moteur", "config.yaml"), fmt.Sprintf(
		"providers:\n  - name: srv\n    base_url: %s\n    model: test-model\n    local: %t\nclassify:\n  markings: [\"PROJET ALPHA\"]\n%s",
		base, local, extra))
}

// webNames are the web tools a session offers.
func webNames(s *Session) []string {
	var out []string
	for _, n := range s.tools.reg.Names() {
		if n == web.SearchName || n == web.FetchName {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// TestWebToolsSwitch: the web tools are offered as the options, the agent
// and the configuration say, never with --no-web nor in the airgapped
// profile, and web_fetch alone without a search provider.
func TestWebToolsSwitch(t *testing.T) {
	search := "web:\n  search: {provider: searxng, base_url: http://127.0.0.1:8888, local: true}\n"
	fetchOnly := "web:\n  allow_private_hosts: [\"127.0.0.1:8080\"]\n"
	both := []string{web.FetchName, web.SearchName}
	for _, tc := range []struct {
		name     string
		config   string
		web, no  bool
		agentWeb *bool // nil: no agent
		want     []string
		note     string
	}{
		{name: "no section", want: nil},
		{name: "section", config: search, want: both},
		{name: "section without search", config: fetchOnly, want: []string{web.FetchName}},
		{name: "--web without section", web: true, want: []string{web.FetchName}},
		{name: "--no-web", config: search, no: true, want: nil},
		{name: "agent off", config: search, agentWeb: boolRef(false), want: nil},
		{name: "agent on", config: search, agentWeb: boolRef(true), want: both},
		{name: "request over agent", config: search, agentWeb: boolRef(false), web: true, want: both},
		{name: "airgapped", config: "profile: airgapped\n" + search, web: true, want: nil, note: "airgapped"},
		{name: "brave without its key", config: "web:\n  search: {provider: brave, api_key_env: MOTEUR_TEST_BRAVE_KEY}\n",
			want: []string{web.FetchName}, note: "web_search"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEnv(t)
			e.useWebConfig(t, "http://127.0.0.1:1/v1", true, tc.config)
			o := e.options("s-web")
			o.Web, o.NoWeb = tc.web, tc.no
			if tc.agentWeb != nil {
				a := smartAgent("ag-web")
				a.Config.WebSearchEnabled = *tc.agentWeb
				o.Agent = a
			}
			s := e.open(t, o)
			if got := webNames(s); !slices.Equal(got, tc.want) {
				t.Errorf("web tools %q, want %q", got, tc.want)
			}
			if tc.note != "" && !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, tc.note) }) {
				t.Errorf("warnings %q, want one about %s", s.Warnings, tc.note)
			}
		})
	}
}

// toolResults are the tool messages of a model request, by call id.
func toolResults(t *testing.T, raw []byte) map[string]string {
	t.Helper()
	var body struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    string `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("request: %v", err)
	}
	out := map[string]string{}
	for _, m := range body.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

// TestWebFetchInSession: the model's web_fetch reads a page of an allowed
// private host through the session, and its whole text is a snapshot that
// read_file serves, in this turn and in the next one opened anew (as
// moteur serve opens a session for each turn).
func TestWebFetchInSession(t *testing.T) {
	var pages atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pages.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Congés</title></head><body><nav>menu</nav><main><h1>Congés payés</h1>`+
			`<p>Le salarié a droit à deux jours et demi ouvrables par mois de travail effectif.</p>`+
			strings.Repeat("<p>Ligne de remplissage pour une page longue.</p>", 400)+`<p>FIN-DU-TEXTE</p></main></body></html>`)
	}))
	t.Cleanup(site.Close)
	host := strings.TrimPrefix(site.URL, "http://")
	fetch := fmt.Sprintf(`{"items":[{"url":%q,"limit":500}]}`, site.URL+"/conges")
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_f", web.FetchName, fetch),
		openaitest.Answer("lu"),
	)
	e := newTestEnv(t)
	e.useWebConfig(t, srv.BaseURL(), false, fmt.Sprintf("web:\n  allow_private_hosts: [%q]\n", host))
	s := e.open(t, e.options("s-fetch"))
	if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "Combien de jours de congés ?"}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || pages.Load() != 1 {
		t.Fatalf("%d model requests and %d page requests, want 2 and 1", len(reqs), pages.Load())
	}
	srv.CheckPairing(t)
	got := toolResults(t, reqs[1].Body)["call_f"]
	if !strings.Contains(got, "deux jours et demi") || strings.Contains(got, "FIN-DU-TEXTE") {
		t.Fatalf("web_fetch result lacks the page's start or shows more than its limit:\n%s", got)
	}
	i := strings.Index(got, "web://")
	if i < 0 {
		t.Fatalf("web_fetch result names no snapshot:\n%s", got)
	}
	path := got[i:]
	path = path[:strings.IndexAny(path, "\" \n)")]
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// The next turn, opened anew, reads the end of the page from the
	// snapshot: the site is not asked again.
	read := fmt.Sprintf(`{"path":%q}`, path)
	srv2 := openaitest.NewServer(t, openaitest.Calls("call_r", "read_file", read), openaitest.Answer("fin"))
	e.useWebConfig(t, srv2.BaseURL(), false, fmt.Sprintf("web:\n  allow_private_hosts: [%q]\n", host))
	s2 := e.open(t, e.options("s-fetch"))
	if err := s2.Engine.SubmitInput(t.Context(), s2.ID, engine.Input{Text: "Et la fin de la page ?"}); err != nil {
		t.Fatal(err)
	}
	reqs = srv2.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if got := toolResults(t, reqs[1].Body)["call_r"]; !strings.Contains(got, "FIN-DU-TEXTE") {
		t.Errorf("read_file %s in the next turn:\n%.600s", path, got)
	}
	if pages.Load() != 1 {
		t.Errorf("the site got %d requests, want 1: the snapshot serves the next turn", pages.Load())
	}

	// Removing the session removes its snapshots.
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	snaps := Database{Home: e.home()}.Snapshots()
	t.Cleanup(func() { snaps.Close() })
	if _, err := snaps.Session("s-fetch").Get(t.Context(), path); err != nil {
		t.Fatalf("before the removal: %v", err)
	}
	if _, err := RemoveSession(t.Context(), e.openStore(t), Database{Home: e.home()}, "s-fetch"); err != nil {
		t.Fatal(err)
	}
	if _, err := snaps.Session("s-fetch").Get(t.Context(), path); !errors.Is(err, web.ErrNoSnapshot) {
		t.Errorf("after the removal: %v, want web.ErrNoSnapshot", err)
	}
}

// read_file pages a snapshot as the web tools say it does.
func TestWebSnapshotPageSize(t *testing.T) {
	if files.WebPageBytes != web.SnapshotPageBytes {
		t.Errorf("read_file pages snapshots by %d bytes, the web tools say %d", files.WebPageBytes, web.SnapshotPageBytes)
	}
}

// TestSensitiveSessionSendsNoQuery: once a marked file entered the
// session, web_search sends nothing to a provider not declared local; the
// same search before it reached the provider.
func TestSensitiveSessionSendsNoQuery(t *testing.T) {
	sx := newSearxng(t)
	q := `{"query":"congés payés"}`
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", web.SearchName, q),
		openaitest.Calls("call_2", "read_file", `{"path":"note.txt"}`),
		openaitest.Calls("call_3", web.SearchName, q),
		openaitest.Answer("fini"),
	)
	e := newTestEnv(t)
	writeFile(t, filepath.Join(e.root, "note.txt"), "Budget du PROJET ALPHA : 3 M€.\n")
	e.useWebConfig(t, srv.BaseURL(), true, fmt.Sprintf("web:\n  search: {provider: searxng, base_url: %s}\n", sx.URL))
	s := e.open(t, e.options("s-sensitive"))
	if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "Cherche"}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	srv.CheckPairing(t)
	first := toolResults(t, reqs[1].Body)["call_1"]
	if !strings.Contains(first, "Cinq semaines") {
		t.Fatalf("the first search did not reach the provider:\n%s", first)
	}
	last := toolResults(t, reqs[3].Body)["call_3"]
	if !strings.Contains(last, "sensitive session") || sx.queries.Load() != 1 {
		t.Errorf("after the marked file: provider got %d queries (want 1), result:\n%s", sx.queries.Load(), last)
	}
}

// TestRestrictedAsksBeforeEachFetch: in the restricted profile a fetch
// asks the user even in auto_write mode, and a refusal sends nothing.
func TestRestrictedAsksBeforeEachFetch(t *testing.T) {
	var pages atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pages.Add(1)
		fmt.Fprint(w, "bonjour")
	}))
	t.Cleanup(site.Close)
	host := strings.TrimPrefix(site.URL, "http://")
	fetch := fmt.Sprintf(`{"items":[{"url":%q}]}`, site.URL+"/")
	srv := openaitest.NewServer(t, openaitest.Calls("call_f", web.FetchName, fetch), openaitest.Answer("fini"))
	e := newTestEnv(t)
	e.useWebConfig(t, srv.BaseURL(), true, fmt.Sprintf("profile: restricted\nmode: auto_write\nweb:\n  allow_private_hosts: [%q]\n", host))
	o := e.options("s-restricted")
	o.ApprovalTimeout = 1 // nobody answers: refused at once
	s := e.open(t, o)
	if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "Lis la page"}); err != nil {
		t.Fatal(err)
	}
	evs, err := s.Store.LoadFrom(t.Context(), s.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var asked bool
	for _, ev := range evs {
		if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok && p.Tool == web.FetchName {
			asked = true
		}
	}
	if !asked {
		t.Error("no permission request naming the restricted profile for web_fetch")
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if got := toolResults(t, reqs[1].Body)["call_f"]; pages.Load() != 0 || got == "" {
		t.Errorf("the refused fetch: %d page requests (want 0), result %q", pages.Load(), got)
	}
}

// TestWebFetchRulesHold: a deny rule on a domain holds for a page the
// model names by its alias (w1, from a search) and for a redirect to that
// domain; an ask rule asks for the alias, judged as its URL; the same
// calls reach the page without a rule.
func TestWebFetchRulesHold(t *testing.T) {
	for _, rule := range []string{"", "deny: [\"web_fetch(domain:localhost)\"]", "ask: [\"web_fetch(domain:localhost)\"]"} {
		deny := strings.HasPrefix(rule, "deny")
		t.Run(rule, func(t *testing.T) {
			var denied atomic.Int64
			var site *httptest.Server
			site = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.Host {
				case strings.TrimPrefix(site.URL, "http://"):
					// 127.0.0.1: a redirect to the same server under the name
					// the rule covers.
					http.Redirect(w, r, "http://localhost:"+site.URL[strings.LastIndex(site.URL, ":")+1:]+"/cible", http.StatusFound)
				default:
					denied.Add(1)
					fmt.Fprint(w, "page interdite")
				}
			}))
			t.Cleanup(site.Close)
			port := site.URL[strings.LastIndex(site.URL, ":")+1:]
			local := "http://localhost:" + port + "/cible"
			sx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"query":"x","results":[{"url":%q,"title":"Cible","content":"extrait"}]}`, local)
			}))
			t.Cleanup(sx.Close)
			srv := openaitest.NewServer(t,
				openaitest.Calls("call_s", web.SearchName, `{"query":"cible"}`),
				openaitest.Calls("call_a", web.FetchName, `{"items":[{"url":"w1"}]}`, "call_r", web.FetchName,
					fmt.Sprintf(`{"items":[{"url":%q}]}`, site.URL+"/depart")),
				openaitest.Answer("fini"),
			)
			e := newTestEnv(t)
			extra := fmt.Sprintf("web:\n  search: {provider: searxng, base_url: %s}\n  allow_private_hosts: [%q, %q]\n",
				sx.URL, "127.0.0.1:"+port, "localhost:"+port)
			if rule != "" {
				extra += "permissions:\n  " + rule + "\n"
			}
			e.useWebConfig(t, srv.BaseURL(), false, extra)
			o := e.options("s-deny")
			o.ApprovalTimeout = 1 // nobody answers: an asked call is refused at once
			s := e.open(t, o)
			if err := s.Engine.SubmitInput(t.Context(), s.ID, engine.Input{Text: "Lis"}); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model requests, want 3", len(reqs))
			}
			srv.CheckPairing(t)
			res := toolResults(t, reqs[2].Body)
			if strings.HasPrefix(rule, "ask") {
				evs, err := s.Store.LoadFrom(t.Context(), s.ID, 0)
				if err != nil {
					t.Fatal(err)
				}
				asked := map[string]bool{}
				for _, ev := range evs {
					if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok {
						asked[p.CallID] = true
					}
				}
				// The alias stands for localhost: asked. The call that
				// named 127.0.0.1 is not, but its redirect to localhost
				// is refused, since nobody can be asked mid-fetch.
				if !asked["call_a"] || asked["call_r"] || !strings.Contains(res["call_r"], "needs the user's approval") {
					t.Errorf("asked %v, results %q: want call_a asked, call_r's redirect refused", asked, res)
				}
				if denied.Load() != 0 {
					t.Errorf("%d requests reached the page, want none", denied.Load())
				}
				return
			}
			if !deny {
				if denied.Load() != 2 || !strings.Contains(res["call_a"], "page interdite") || !strings.Contains(res["call_r"], "page interdite") {
					t.Errorf("rule %q: %d requests reached the page, results %q", rule, denied.Load(), res)
				}
				return
			}
			if denied.Load() != 0 {
				t.Errorf("the rule let %d requests reach the page: %q", denied.Load(), res)
			}
			if !strings.Contains(res["call_a"], "web_fetch(domain:localhost)") || !strings.Contains(res["call_r"], "web_fetch(domain:localhost)") {
				t.Errorf("the refusals do not name the rule: %q", res)
			}
		})
	}
}
