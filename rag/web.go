package rag

import (
	"context"
	"errors"
	"strings"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider/extractive"
)

// WebSearcher finds web results for a question: the configured search
// provider, behind the outbound gate that every query is put to (package
// app adapts tools/web's Searcher). A refusal of the gate is an error that
// wraps policy.ErrRefused.
type WebSearcher interface {
	SearchWeb(ctx context.Context, query string) ([]WebResult, error)
}

// WebResult is one web search result.
type WebResult struct {
	Title   string
	URL     string
	Snippet string
	// Published is the date the provider gives, "" when none.
	Published string
}

// webSearch is one web search running beside the retrieval.
type webSearch struct {
	done    chan struct{}
	results []WebResult
	err     error
}

// startWeb searches the web for query in its own goroutine when a searcher
// is configured (nil otherwise). A sensitive session's search carries
// policy.WithSensitive: the gate then sends the query only to a provider
// declared local.
func (p *Pipeline) startWeb(ctx context.Context, query string, c call) *webSearch {
	if p.cfg.Web == nil {
		return nil
	}
	if c.sensitive {
		ctx = policy.WithSensitive(ctx)
	}
	w := &webSearch{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		w.results, w.err = p.cfg.Web.SearchWeb(ctx, query)
	}()
	return w
}

// wait returns the search's outcome once it is done; a nil search found
// nothing and failed in nothing.
func (w *webSearch) wait() ([]WebResult, error) {
	if w == nil {
		return nil, nil
	}
	<-w.done
	return w.results, w.err
}

// webFailed records why the web results are missing from an answer that
// the passages give alone: a refused search names the rule that refused
// it, a failed one the provider's error.
func (p *Pipeline) webFailed(err error, rec *recorder) {
	msg := i18n.Trf(p.cfg.Lang, "web search failed (%s): answered from the knowledge bases alone", err.Error())
	if errors.Is(err, policy.ErrRefused) {
		msg = i18n.Trf(p.cfg.Lang, "web search refused (%s): nothing was sent, answered from the knowledge bases alone", err.Error())
	}
	rec.event(event.Warning, event.WarningPayload{Kind: "web", Message: msg}, false)
}

// addWeb gives each web result its alias wN in the context's table, as
// web_search names its results (the URL is the ID and the path), and adds
// it to the sources after the passages, marked as a web result.
func (pc *passages) addWeb(results []WebResult, lang i18n.Lang) {
	mark := i18n.Tr(lang, "web result")
	for _, w := range results {
		url := strings.TrimSpace(w.URL)
		if url == "" {
			continue // nothing to cite it by
		}
		title := strings.TrimSpace(w.Title)
		if prev, ok := pc.table.Lookup(cite.Web, url); ok && title == "" {
			title = prev.Title
		}
		r := cite.Ref{Kind: cite.Web, ID: url, Path: url, Title: title}
		r.Alias = pc.table.Alias(r)
		pc.web = append(pc.web, r)
		where := mark + " · " + url
		if w.Published != "" {
			where += " · " + w.Published
		}
		text := strings.TrimSpace(w.Snippet)
		if text == "" {
			text = title
		}
		pc.webPrompt = append(pc.webPrompt, extractive.Source{ID: r.Alias, Title: title, Headings: where, Text: text})
	}
}

// The lines of the system prompt that tell the model how the web results
// are marked (webMarkRule) and cited (webCiteRule), in English; their
// French is in package i18n.
const (
	webMarkRule = "- Sources whose id starts with w are web search results (their headings attribute says \"web result\" and gives the address); the others are passages of the knowledge bases."
	webCiteRule = webMarkRule + " Cite a web result by its id like a passage, for example [w1]."
)

// webRule is the line of the system prompt about the web results; cite
// adds how to cite them (off for an agent whose citation_enabled is
// false).
func webRule(lang i18n.Lang, cite bool) string {
	if cite {
		return i18n.Tr(lang, webCiteRule)
	}
	return i18n.Tr(lang, webMarkRule)
}
