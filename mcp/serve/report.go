package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	kbs "github.com/moteur/moteur/kb"
)

// AllowFlag is how the operator lets classified passages be served.
const AllowFlag = "--serve-classified"

// Classified is one classified document a result met: withheld (its
// passages replaced by a notice) or served (with ServeClassified).
type Classified struct {
	// Document is the document's alias (dN), as the tools name it.
	Document string `json:"document"`
	Title    string `json:"title"`
	File     string `json:"file"`
	// Rule is the classification rule that classifies it: "path:…",
	// "builtin:…", or "marking" for an organisation's own marking (whose
	// expression may itself be confidential: the server's log names it).
	Rule string `json:"rule"`
	// Passages are the aliases (cN) of its passages the result met.
	Passages []string `json:"passages,omitempty"`
	// Allow says how the operator may serve it.
	Allow string `json:"allow,omitempty"`
}

// report is what one call met of classified documents. Safe for
// concurrent use: a tool may read several documents at once.
type report struct {
	mu       sync.Mutex
	withheld []*Classified
	served   []*Classified
	// rules are the full rules met, for the server's log.
	rules map[string]string // alias → rule
}

type reportKey struct{}

func withReport(ctx context.Context, r *report) context.Context {
	return context.WithValue(ctx, reportKey{}, r)
}

// reportFrom returns the call's report; a call without one (a test of the
// guard alone) records into a throwaway report.
func reportFrom(ctx context.Context) *report {
	if r, ok := ctx.Value(reportKey{}).(*report); ok {
		return r
	}
	return &report{}
}

// withhold records that a passage or the details of d are withheld, and
// returns the notice shown in place of a passage.
func (r *report) withhold(ctx context.Context, d kbs.DocInfo, v verdict) string {
	d.Title, d.Path = shownTitle(d.Title, v), shownPath(d.Path, v)
	alias := docAlias(ctx, d)
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.add(&r.withheld, alias, d, v)
	c.Allow = "the operator of this server can serve classified passages by starting it with moteur mcp serve " + AllowFlag
	return fmt.Sprintf("[withheld: this passage is from document %s, which is classified (rule %s). "+
		"Moteur does not serve classified passages over MCP, since it cannot know where they go; "+
		"the operator of this server can allow it with moteur mcp serve %s.]", alias, c.Rule, AllowFlag)
}

// serve records that d, classified, was served.
func (r *report) serve(ctx context.Context, d kbs.DocInfo, v verdict) {
	alias := docAlias(ctx, d)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add(&r.served, alias, d, v)
}

// add finds or adds the entry of alias in list, under r.mu.
func (r *report) add(list *[]*Classified, alias string, d kbs.DocInfo, v verdict) *Classified {
	if r.rules == nil {
		r.rules = map[string]string{}
	}
	r.rules[alias] = v.rule
	for _, c := range *list {
		if c.Document == alias {
			return c
		}
	}
	c := &Classified{Document: alias, Title: d.Title, File: filepath.Base(d.Path), Rule: publicRule(v.rule)}
	*list = append(*list, c)
	return c
}

// rule is the full rule of the document with this alias.
func (r *report) rule(alias string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rules[alias]
}

// lists returns copies of what was withheld and served, with the passages
// of each (their aliases, from alias).
func (r *report) lists(passages func(doc string) []string) (withheld, served []Classified) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.withheld {
		cc := *c
		cc.Passages = passages(c.Document)
		withheld = append(withheld, cc)
	}
	for _, c := range r.served {
		cc := *c
		cc.Passages = passages(c.Document)
		served = append(served, cc)
	}
	return withheld, served
}

// publicRule is what a client is told of a rule: an organisation's own
// marking expression (a project's code name, often) is not repeated.
func publicRule(rule string) string {
	if strings.HasPrefix(rule, "marking:") {
		return "marking (an organisation marking of the configuration; the server's log names it)"
	}
	return rule
}

// notes is the text said under a result about its classified documents.
func notes(withheld, served []Classified) string {
	var sb strings.Builder
	for _, c := range withheld {
		fmt.Fprintf(&sb, "\n<withheld document=%q rule=%q", c.Document, c.Rule)
		if len(c.Passages) > 0 {
			fmt.Fprintf(&sb, " passages=%q", strings.Join(c.Passages, " "))
		}
		fmt.Fprintf(&sb, "/> %s (%s) is classified: its passages are withheld. Moteur cannot know where an MCP client sends what it reads; "+
			"the operator of this server can serve classified passages by starting it with moteur mcp serve %s.\n", c.Title, c.File, AllowFlag)
	}
	for _, c := range served {
		fmt.Fprintf(&sb, "\n<classified document=%q rule=%q/> %s (%s) is classified; it is served because this server runs with %s. "+
			"Do not send its passages anywhere they may not go.\n", c.Document, c.Rule, c.Title, c.File, AllowFlag)
	}
	return sb.String()
}
