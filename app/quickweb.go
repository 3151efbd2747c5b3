package app

import (
	"context"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/rag"
	"github.com/moteur/moteur/tools/web"
)

// A quick answer searches the web beside the knowledge bases when the
// session would offer the web tools (webEnabled: the options, the agent,
// the configuration, the profile) and the configuration names a search
// provider: the same provider, retries and gate as web_search, so a query
// passes the same outbound check, and a sensitive session's goes only to a
// provider declared local.

// quickWebSearcher is a web.Searcher as the quick-answer pipeline takes it
// (rag.WebSearcher): count results for each question.
type quickWebSearcher struct {
	s     *web.Searcher
	count int
}

// SearchWeb implements rag.WebSearcher.
func (q quickWebSearcher) SearchWeb(ctx context.Context, query string) ([]rag.WebResult, error) {
	hits, err := q.s.Search(ctx, query, q.count)
	if err != nil {
		return nil, err
	}
	out := make([]rag.WebResult, len(hits))
	for i, h := range hits {
		out[i] = rag.WebResult{Title: h.Title, URL: h.URL, Snippet: h.Snippet, Published: h.Published}
	}
	return out, nil
}

// quickWeb is the web searcher of a quick answer, its queries checked by
// out (nil when the web is not searched), and what the user should know: the
// profile's refusal of the web, a --web without a search provider, a
// provider that cannot be built (a key missing from the environment) — none
// of which stops the quick answer, which then searches the knowledge bases
// alone. The count is the agent's web_search_max_results, capped by the
// configuration's max_results (webConfig).
func (s *Settings) quickWeb(out *policy.Outbound) (rag.WebSearcher, []string) {
	on, note := s.webEnabled()
	if !on {
		return nil, nonEmpty(note)
	}
	if s.Config.Web == nil || s.Config.Web.Search == nil {
		if s.opts.Web {
			return nil, []string{i18n.Tr(s.Lang, "web search: no search provider in the configuration (web.search): the quick answer searches the knowledge bases alone")}
		}
		return nil, nil
	}
	sr, err := web.NewSearcher(s.webConfig(out, nil))
	if err != nil {
		return nil, []string{i18n.Trf(s.Lang, "web search is off: %v; the quick answer searches the knowledge bases alone", err)}
	}
	count := agentconfig.DefaultWebSearchMaxResults
	if s.agent != nil && s.agent.Config.WebSearchMaxResults > 0 {
		count = s.agent.Config.WebSearchMaxResults
	}
	return quickWebSearcher{s: sr, count: count}, nil
}
