package web

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/tools"
)

type searchTool struct{ s *scope }

func (*searchTool) Name() string { return SearchName }

func (t *searchTool) Description() string {
	c := t.s.search.cfg
	return "Search the web (" + t.s.search.p.name() + ") and return titles, snippets and URLs, each with a short id wN: cite a result as [wN] and read it with web_fetch(items=[{url:\"wN\"}]). " +
		"Use it for recent or public facts the knowledge bases do not hold; prefer search_knowledge for the organisation's documents. " +
		"country (two letters, or ALL) applies to Brave only; freshness is pd, pw, pm or py (past day, week, month, year), Brave also takes a range YYYY-MM-DDtoYYYY-MM-DD. " +
		fmt.Sprintf("content=true also reads the first %d results (%d characters each).", c.ContentPages, c.ContentChars)
}

func (t *searchTool) Schema() json.RawMessage {
	c := t.s.search.cfg
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{
"query":{"type":"string","minLength":1,"description":"What to search for."},
"count":{"type":"integer","minimum":1,"maximum":%d,"description":"Number of results (default %d)."},
"country":{"type":"string","description":"Two-letter country code or ALL (Brave only)."},
"freshness":{"type":"string","description":"pd, pw, pm, py, or (Brave) YYYY-MM-DDtoYYYY-MM-DD."},
"content":{"type":"boolean","description":"Also read the first %d results."}
},"required":["query"],"additionalProperties":false}`, c.MaxResults, min(DefaultCount, c.MaxResults), c.ContentPages))
}

func (*searchTool) Risk() effect.Risk { return effect.RiskRead }
func (*searchTool) Concurrent() bool  { return true }

// Retrieval implements tools.Retrieval: the web changes between turns.
func (*searchTool) Retrieval() bool { return true }

// Timeout implements tools.TimeoutOverrider: the provider's answer, the
// content pages and the tool margin.
func (t *searchTool) Timeout() time.Duration {
	c := t.s.search.cfg
	return c.Timeout + c.ContentTimeout + t.s.cfg.ToolMargin
}

type searchArgs struct {
	Query     string `json:"query"`
	Count     int    `json:"count"`
	Country   string `json:"country"`
	Freshness string `json:"freshness"`
	Content   bool   `json:"content"`
}

var (
	countryPattern   = regexp.MustCompile(`^(?i:[a-z]{2}|all)$`)
	freshnessPattern = regexp.MustCompile(`^(pd|pw|pm|py|\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2})$`)
)

// parseSearchArgs reads and checks the arguments; notes are what the
// provider ignores.
func (s *searcher) parseArgs(raw json.RawMessage) (q query, content bool, notes []string, err error) {
	var a searchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return query{}, false, nil, fmt.Errorf("invalid arguments: %w", err)
	}
	q = query{Text: strings.TrimSpace(a.Query), Count: a.Count, Country: strings.TrimSpace(a.Country), Freshness: strings.TrimSpace(a.Freshness)}
	if q.Text == "" {
		return query{}, false, nil, fmt.Errorf("query is empty")
	}
	if q.Count <= 0 {
		q.Count = min(DefaultCount, s.cfg.MaxResults)
	}
	if q.Count > s.cfg.MaxResults {
		return query{}, false, nil, fmt.Errorf("count %d: at most %d", q.Count, s.cfg.MaxResults)
	}
	if q.Country != "" && !countryPattern.MatchString(q.Country) {
		return query{}, false, nil, fmt.Errorf("country %q: a two-letter code (FR, DE) or ALL", q.Country)
	}
	if q.Freshness != "" && !freshnessPattern.MatchString(q.Freshness) {
		return query{}, false, nil, fmt.Errorf("freshness %q: pd, pw, pm, py or YYYY-MM-DDtoYYYY-MM-DD", q.Freshness)
	}
	if q.Country != "" && !s.p.supports("country") {
		notes = append(notes, "country is not supported by "+s.p.name()+": ignored")
		q.Country = ""
	}
	if len(q.Freshness) > 2 && !s.p.supports("date_range") {
		return query{}, false, nil, fmt.Errorf("freshness %q: a date range needs Brave; %s takes pd, pw, pm or py", q.Freshness, s.p.name())
	}
	return q, a.Content, notes, nil
}

func (t *searchTool) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	s := t.s.search
	q, content, notes, err := s.parseArgs(raw)
	if err != nil {
		return errResult(err)
	}
	if err := t.s.cfg.Gate.CheckWeb(ctx, Send{Kind: SendSearch, Host: s.host, Text: q.Text, Local: s.cfg.Local}); err != nil {
		return errResult(fmt.Errorf("web search not sent: %w", err))
	}
	hits, err := s.search(ctx, q)
	if err != nil {
		return errResult(fmt.Errorf("web search failed: %w", err))
	}
	tab := t.s.ids.table(ctx)
	refs := make([]cite.Ref, len(hits))
	for i, h := range hits {
		refs[i] = tab.alias(h.URL, h.Title)
	}
	var pages map[string]*pageResult
	if content && len(hits) > 0 {
		pages = t.s.contentPages(ctx, refs)
	}
	return tools.Result{Content: renderSearch(s.p.name(), q, hits, refs, notes, pages), Display: "web_search", References: refs}, nil
}

// contentPages reads the first results within the content budget, by
// alias.
func (s *scope) contentPages(ctx context.Context, refs []cite.Ref) map[string]*pageResult {
	c := s.search.cfg
	n := min(c.ContentPages, len(refs))
	items := make([]FetchItem, n)
	for i := range n {
		items[i] = FetchItem{URL: refs[i].Alias, Limit: c.ContentChars}
	}
	ctx, cancel := context.WithTimeout(ctx, c.ContentTimeout)
	defer cancel()
	out := map[string]*pageResult{}
	for i, r := range s.fetchAll(ctx, items, c.ContentTimeout, n*c.ContentChars) {
		out[refs[i].Alias] = r
	}
	return out
}

// renderSearch writes the results for the model.
func renderSearch(provider string, q query, hits []hit, refs []cite.Ref, notes []string, pages map[string]*pageResult) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Web search for %q (%s): %d result(s).\n", q.Text, provider, len(hits))
	for _, n := range notes {
		sb.WriteString(n + "\n")
	}
	if len(hits) == 0 {
		sb.WriteString("No result: try other words, or a wider freshness.\n")
	}
	for i, h := range hits {
		fmt.Fprintf(&sb, "\n[%s] %s\n%s\n", refs[i].Alias, h.Title, h.URL)
		if h.Published != "" {
			fmt.Fprintf(&sb, "Published: %s\n", h.Published)
		}
		if h.Snippet != "" {
			sb.WriteString(h.Snippet + "\n")
		}
		p, ok := pages[refs[i].Alias]
		switch {
		case !ok:
		case p.status == "success":
			text := []rune(p.snap.Text)
			to := min(p.item.Limit, len(text))
			fmt.Fprintf(&sb, "<content id=%q chars=\"%d\" total_chars=\"%d\"", refs[i].Alias, to, len(text))
			if to < len(text) {
				fmt.Fprintf(&sb, " next_offset=\"%d\"", to)
			}
			if p.snap.Path != "" {
				fmt.Fprintf(&sb, " snapshot=%q", p.snap.Path)
			}
			fmt.Fprintf(&sb, ">\n%s\n</content>\n", string(text[:to]))
		default:
			fmt.Fprintf(&sb, "<content id=%q status=%q code=%q retry=\"%t\">%s</content>\n", refs[i].Alias, p.status, p.err.Code, p.err.Retryable, p.err.Msg)
		}
	}
	return sb.String()
}
