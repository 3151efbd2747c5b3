package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/tools"
)

// The answers below have the shape each provider's API gives (fields the
// tool does not read included), with URLs on the test site.

func searxngAnswerJSON(s *site) string {
	return `{"query":"loire tides","number_of_results":0,"results":[
{"url":"` + s.url("news.test", "/tides") + `","title":"Tides of the Loire","content":"The estuary of the Loire rises &amp; falls twice a day.","publishedDate":"2026-11-02T00:00:00","thumbnail":"","engine":"duckduckgo","template":"default.html","parsed_url":["http","news.test","/tides","","",""],"img_src":"","priority":"","engines":["duckduckgo","brave"],"positions":[1,2],"score":4.0,"category":"general"},
{"url":"` + s.url("wiki.test", "/loire") + `","title":"Loire - Wiki","content":"The Loire is the longest river in France.","publishedDate":null,"engine":"wikipedia","engines":["wikipedia"],"positions":[2],"score":1.5,"category":"general"}
],"answers":[],"corrections":[],"infoboxes":[],"suggestions":["loire tide tables"],"unresponsive_engines":[["google","timeout"]]}`
}

func braveAnswerJSON(s *site) string {
	return `{"type":"search","query":{"original":"loire tides","show_strict_warning":false,"is_navigational":false,"local_decision":"drop","is_news_breaking":false,"spellcheck_off":true,"country":"fr","bad_results":false,"should_fallback":false,"more_results_available":true},
"mixed":{"type":"mixed","main":[{"type":"web","index":0,"all":false}],"top":[],"side":[]},
"web":{"type":"search","results":[
{"title":"Tides of the <strong>Loire</strong>","url":"` + s.url("news.test", "/tides") + `","is_source_local":false,"is_source_both":false,"description":"The estuary of the <strong>Loire</strong> rises and falls.","page_age":"2026-11-02T08:00:00","profile":{"name":"River News","url":"` + s.url("news.test", "/") + `","long_name":"news.test","img":""},"language":"en","family_friendly":true,"type":"search_result","subtype":"generic","meta_url":{"scheme":"http","netloc":"news.test","hostname":"news.test","favicon":"","path":"› tides"},"age":"November 2, 2026"}
],"family_friendly":true}}`
}

func tavilyAnswerJSON(s *site) string {
	return `{"query":"loire tides","follow_up_questions":null,"answer":null,"images":[],"results":[
{"url":"` + s.url("news.test", "/tides") + `","title":"Tides of the Loire","content":"The estuary of the Loire rises and falls twice a day.","score":0.81,"raw_content":null},
{"url":"` + s.url("wiki.test", "/loire") + `","title":"Loire","content":"The Loire is the longest river in France.","score":0.52,"raw_content":null}
],"response_time":1.09,"request_id":"0b4c1e5e-7a44-4b1e-9d6a-5f3c2d1e0a9b"}`
}

// searchFixture is a fixture whose search provider is served by its site
// at /search (SearXNG, Tavily) or /res/v1/web/search (Brave).
func searchFixture(t *testing.T, sc SearchConfig, baseHost string) *fixture {
	t.Helper()
	return newFixture(t, func(c *Config, s *site) {
		if baseHost == "" {
			sc.BaseURL = s.URL
			c.AllowPrivateHosts = []string{s.Listener.Addr().String()}
		} else {
			sc.BaseURL = s.url(baseHost, "")
		}
		c.Search = &sc
	})
}

// waits replaces the searcher's pause by a record of the pauses asked.
func (f *fixture) waits(t *testing.T) *[]time.Duration {
	t.Helper()
	tool, _ := f.reg.Lookup(SearchName)
	var mu sync.Mutex
	got := &[]time.Duration{}
	tool.(*searchTool).s.search.wait = func(_ context.Context, d time.Duration) error {
		mu.Lock()
		*got = append(*got, d)
		mu.Unlock()
		return nil
	}
	return got
}

func TestSearchSearXNG(t *testing.T) {
	f := searchFixture(t, SearchConfig{Provider: ProviderSearXNG, Local: true}, "")
	var got http.Header
	var query map[string][]string
	f.site.handle("/search", func(w http.ResponseWriter, r *http.Request) {
		got, query = r.Header, r.URL.Query()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, searxngAnswerJSON(f.site))
	})
	f.site.page("/tides", "text/html", articleHTML())
	res := f.call(t, SearchName, `{"query":"loire tides","freshness":"pw"}`)
	if res.IsError {
		t.Fatal(res.Content)
	}
	if query["q"][0] != "loire tides" || query["format"][0] != "json" || query["time_range"][0] != "week" || got.Get("Accept") != "application/json" {
		t.Fatalf("request %v %v", query, got)
	}
	mustContain(t, res.Content, `Web search for "loire tides" (searxng): 2 result(s).`, "[w1] Tides of the Loire", f.site.url("news.test", "/tides"),
		"rises & falls twice a day", "[w2] Loire - Wiki", "Published: 2026-11-02")
	if len(res.References) != 2 || res.References[1].Alias != "w2" || res.References[1].ID != f.site.url("wiki.test", "/loire") {
		t.Fatalf("references %+v", res.References)
	}
	if s := f.gate.asked(); len(s) != 1 || s[0].Kind != SendSearch || s[0].Text != "loire tides" || !s[0].Local || s[0].Host != "127.0.0.1" {
		t.Fatalf("gate sends %+v", s)
	}
	page := f.call(t, FetchName, `{"items":[{"url":"w1"}]}`)
	mustContain(t, page.Content, `id="w1"`, "| Nantes | 08:40 |")
}

func TestSearchBrave(t *testing.T) {
	f := searchFixture(t, SearchConfig{Provider: ProviderBrave, APIKey: "brave-key"}, "api.search.brave.test")
	var r0 *http.Request
	f.site.handle("/res/v1/web/search", func(w http.ResponseWriter, r *http.Request) {
		r0 = r
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, braveAnswerJSON(f.site))
	})
	res := f.call(t, SearchName, `{"query":"loire tides","count":3,"country":"fr","freshness":"2026-01-01to2026-06-30"}`)
	if res.IsError {
		t.Fatal(res.Content)
	}
	q := r0.URL.Query()
	if r0.Method != http.MethodGet || q.Get("q") != "loire tides" || q.Get("count") != "3" || q.Get("country") != "FR" ||
		q.Get("freshness") != "2026-01-01to2026-06-30" || r0.Header.Get("X-Subscription-Token") != "brave-key" {
		t.Fatalf("request %s %v %v", r0.Method, q, r0.Header)
	}
	mustContain(t, res.Content, "(brave): 1 result(s)", "[w1] Tides of the Loire\n", "The estuary of the Loire rises and falls.")
	mustNotContain(t, res.Content, "<strong>")
}

func TestSearchTavily(t *testing.T) {
	f := searchFixture(t, SearchConfig{Provider: ProviderTavily, APIKey: "tvly-key"}, "api.tavily.test")
	var r0 *http.Request
	var body map[string]any
	f.site.handle("/search", func(w http.ResponseWriter, r *http.Request) {
		r0 = r
		json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, tavilyAnswerJSON(f.site))
	})
	res := f.call(t, SearchName, `{"query":"loire tides","count":2,"country":"FR","freshness":"pm"}`)
	if res.IsError {
		t.Fatal(res.Content)
	}
	if r0.Method != http.MethodPost || r0.Header.Get("Authorization") != "Bearer tvly-key" || r0.Header.Get("Content-Type") != "application/json" ||
		body["query"] != "loire tides" || body["max_results"] != 2.0 || body["time_range"] != "month" || body["topic"] != "general" {
		t.Fatalf("request %s %v %v", r0.Method, r0.Header, body)
	}
	mustContain(t, res.Content, "(tavily): 2 result(s)", "country is not supported by tavily: ignored", "[w2] Loire")
	bad := f.call(t, SearchName, `{"query":"loire","freshness":"2026-01-01to2026-06-30"}`)
	mustContain(t, bad.Content, "a date range needs Brave")
}

func TestSearch429ThenSuccess(t *testing.T) {
	f := searchFixture(t, SearchConfig{Provider: ProviderSearXNG}, "")
	waits := f.waits(t)
	n := 0
	f.site.handle("/search", func(w http.ResponseWriter, _ *http.Request) {
		n++
		if n == 1 {
			w.Header().Set("Retry-After", "2")
			http.Error(w, "rate limited", http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, searxngAnswerJSON(f.site))
	})
	res := f.call(t, SearchName, `{"query":"loire tides"}`)
	if res.IsError || n != 2 || !slices.Equal(*waits, []time.Duration{2 * time.Second}) {
		t.Fatalf("requests %d, waits %v, result %s", n, *waits, res.Content)
	}
}

func TestSearchServerErrorsThenClearResult(t *testing.T) {
	f := searchFixture(t, SearchConfig{Provider: ProviderSearXNG}, "")
	waits := f.waits(t)
	f.site.handle("/search", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "upstream exploded", http.StatusBadGateway)
	})
	res := f.call(t, SearchName, `{"query":"loire tides"}`)
	mustContain(t, res.Content, "web search failed: searxng answered HTTP 502 Bad Gateway")
	if !res.IsError || f.site.count("/search") != 3 || !slices.Equal(*waits, []time.Duration{time.Second, 2 * time.Second}) {
		t.Fatalf("error %v, requests %d (want 3), waits %v", res.IsError, f.site.count("/search"), *waits)
	}
}

func TestSearchRetryAfterTooLongGivesUp(t *testing.T) {
	f := searchFixture(t, SearchConfig{Provider: ProviderSearXNG}, "")
	waits := f.waits(t)
	f.site.handle("/search", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "3600")
		http.Error(w, "", http.StatusTooManyRequests)
	})
	res := f.call(t, SearchName, `{"query":"loire tides"}`)
	mustContain(t, res.Content, "HTTP 429 Too Many Requests", "Retry-After: 3600")
	if f.site.count("/search") != 1 || len(*waits) != 0 {
		t.Fatalf("requests %d, waits %v", f.site.count("/search"), *waits)
	}
}

func TestSearchProviderDown(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	addr := down.Listener.Addr().String()
	down.Close()
	reg := tools.NewRegistry(tools.Config{})
	if err := Register(reg, Config{Gate: &fakeGate{}, AllowPrivateHosts: []string{addr},
		Search: &SearchConfig{Provider: ProviderSearXNG, BaseURL: "http://" + addr}}); err != nil {
		t.Fatal(err)
	}
	tool, _ := reg.Lookup(SearchName)
	tool.(*searchTool).s.search.wait = func(context.Context, time.Duration) error { return nil }
	res, _ := tool.Execute(context.Background(), json.RawMessage(`{"query":"loire"}`))
	if !res.IsError || !strings.Contains(res.Content, "web search failed: searxng at 127.0.0.1 is unreachable") {
		t.Fatalf("got %+v", res)
	}
}

func TestSearchClassifiedQueryRefusedUnlessLocal(t *testing.T) {
	refuse := func(s Send) error {
		if strings.Contains(s.Text, "PROJET ALPHA") && !s.Local {
			return fmt.Errorf("%w: the query carries the marking PROJET ALPHA (classify.markings) and %s is not local", errBlocked, s.Host)
		}
		return nil
	}
	for _, local := range []bool{false, true} {
		f := searchFixture(t, SearchConfig{Provider: ProviderSearXNG, Local: local}, "")
		f.gate.refuse = refuse
		f.site.handle("/search", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, searxngAnswerJSON(f.site)) })
		res := f.call(t, SearchName, `{"query":"budget PROJET ALPHA"}`)
		if len(f.gate.asked()) != 1 {
			t.Fatalf("local %v: gate asked %d times", local, len(f.gate.asked()))
		}
		if local {
			if res.IsError || f.site.count("/search") != 1 {
				t.Fatalf("local provider: %s", res.Content)
			}
			continue
		}
		mustContain(t, res.Content, "web search not sent", "marking PROJET ALPHA")
		if !res.IsError || f.site.count("/search") != 0 {
			t.Fatalf("refused query reached the provider (%d requests)", f.site.count("/search"))
		}
	}
}

func TestSearchContentFetchesTopThree(t *testing.T) {
	f := searchFixture(t, SearchConfig{Provider: ProviderSearXNG}, "")
	var results []string
	for i := range 4 {
		path := fmt.Sprintf("/p%d", i)
		f.site.page(path, "text/plain", strings.Repeat(fmt.Sprintf("page %d text. ", i), 1000))
		results = append(results, fmt.Sprintf(`{"url":%q,"title":"Page %d","content":"snippet %d"}`, f.site.url("pages.test", path), i, i))
	}
	f.site.handle("/search", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"query":"pages","results":[`+strings.Join(results, ",")+`]}`)
	})
	res := f.call(t, SearchName, `{"query":"pages","content":true}`)
	if res.IsError {
		t.Fatal(res.Content)
	}
	if c := strings.Count(res.Content, `chars="5000"`); c != 3 {
		t.Fatalf("%d pages with 5000 characters, want 3:\n%s", c, res.Content[:min(len(res.Content), 2000)])
	}
	mustContain(t, res.Content, `<content id="w1"`, `<content id="w3"`, "page 2 text.")
	mustNotContain(t, res.Content, `<content id="w4"`, "page 3 text.")
	if f.site.count("/p3") != 0 || f.site.count("/p0") != 1 {
		t.Fatalf("p0 %d, p3 %d", f.site.count("/p0"), f.site.count("/p3"))
	}
}

func TestSearchArguments(t *testing.T) {
	f := searchFixture(t, SearchConfig{Provider: ProviderBrave, APIKey: "k"}, "api.test")
	for args, want := range map[string]string{
		`{"query":"x","count":21}`:           "maximum",
		`{"query":"x","freshness":"recent"}`: "freshness",
		`{"query":"x","country":"France"}`:   "country",
		`{"query":"  "}`:                     "query is empty",
	} {
		res := f.call(t, SearchName, args)
		if !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("%s: %+v, want an error about %s", args, res, want)
		}
	}
	if f.site.count("/res/v1/web/search") != 0 || len(f.gate.asked()) != 0 {
		t.Fatal("an invalid search was sent")
	}
}

func TestRegister(t *testing.T) {
	reg := tools.NewRegistry(tools.Config{})
	if err := Register(reg, Config{Gate: &fakeGate{}}); err != nil {
		t.Fatal(err)
	}
	if got := reg.Names(); !slices.Equal(got, []string{FetchName}) {
		t.Fatalf("without search: %v", got)
	}
	if err := Register(tools.NewRegistry(tools.Config{}), Config{}); err == nil {
		t.Fatal("no gate accepted")
	}
	for _, sc := range []SearchConfig{{Provider: "google"}, {Provider: ProviderSearXNG}, {Provider: ProviderBrave}, {Provider: ProviderTavily}} {
		if err := Register(tools.NewRegistry(tools.Config{}), Config{Gate: &fakeGate{}, Search: &sc}); err == nil {
			t.Errorf("%+v accepted", sc)
		}
	}
}
