package rag

import (
	"fmt"
	"slices"
	"strings"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/provider/extractive"
)

// passages is the context of one answer: the hits under their aliases,
// then the web results under theirs (none without a web searcher).
type passages struct {
	table      *cite.Table
	sources    []cite.Ref // the passages given to the model, under their aliases
	prompt     []extractive.Source
	classified []string // the path rule of each passage's document, "" when none
	// web and webPrompt are the web results (wN), after the passages in
	// what the model reads; they are not classified: they come from the
	// public web, and the outbound check still reads them before any send.
	web       []cite.Ref
	webPrompt []extractive.Source
}

// newContext gives each hit its alias in table (c1, c2… in rank order in a
// new table).
func newContext(res kb.Result, table *cite.Table) *passages {
	p := &passages{table: table}
	for _, h := range res.Hits {
		r := cite.Ref{Kind: cite.Chunk, ID: h.Chunk, Base: h.Base, BaseName: h.BaseName, Document: h.Document,
			Title: h.Title, Path: h.Path, Headings: h.Headings, Page: h.Page, Score: h.Score}
		r.Alias = p.table.Alias(r)
		p.sources = append(p.sources, r)
		p.classified = append(p.classified, h.Classified)
		p.prompt = append(p.prompt, extractive.Source{ID: r.Alias, Title: h.Title, Headings: h.Headings, Text: body(h.Text)})
	}
	return p
}

func (p *passages) retrieved(query string, res kb.Result) event.KnowledgeRetrievedPayload {
	k := event.KnowledgeRetrievedPayload{Query: query, RequestedMode: string(res.RequestedMode),
		References: refs(p.all()), Candidates: res.Candidates, Reranked: res.Reranked,
		RerankRejected: res.RerankRejected, Hint: res.Hint}
	for _, f := range res.Fallbacks {
		k.Fallbacks = append(k.Fallbacks, fmt.Sprintf("%s: %s → %s (%s)", f.Base, f.From, f.To, f.Reason))
	}
	return k
}

// all are the references of every source given, passages first.
func (p *passages) all() []cite.Ref {
	if len(p.web) == 0 {
		return p.sources
	}
	return append(slices.Clip(p.sources), p.web...)
}

// allPrompt is what the model reads of every source, passages first: one
// <sources> block, which the extractive provider quotes from as well.
func (p *passages) allPrompt() []extractive.Source {
	if len(p.webPrompt) == 0 {
		return p.prompt
	}
	return append(slices.Clip(p.prompt), p.webPrompt...)
}

// cited maps the aliases text cites back to the passages and web results.
func (p *passages) cited(text string) []cite.Ref { return p.table.Citations(text) }

// refs is c, never nil: the events write an empty list, not null.
func refs(c []cite.Ref) []cite.Ref {
	if c == nil {
		return []cite.Ref{}
	}
	return c
}

// body is a passage without its leading Markdown heading lines: the
// heading path travels in the source's headings attribute, and a heading
// glued to the first sentence would read as part of it.
func body(text string) string {
	rest := strings.TrimLeft(text, "\n")
	for strings.HasPrefix(rest, "#") {
		_, after, found := strings.Cut(rest, "\n")
		if !found {
			return text // only headings: keep them, there is nothing else
		}
		rest = strings.TrimLeft(after, "\n")
	}
	return rest
}
