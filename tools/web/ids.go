package web

import (
	"context"

	"github.com/moteur/moteur/cite"
)

// RefKind is the cite.Ref kind of a web page; its aliases are wN.
const RefKind = cite.Web

// ids gives web pages their wN aliases in the session's cite.Table, beside
// its cN and dN: they are restored with it and cited like them. A call
// made outside a session numbers in the tool's own table.
type ids struct {
	own *cite.Table
}

func newIDs() *ids { return &ids{own: cite.NewTable()} }

// table returns the aliases of the session running under ctx.
func (x *ids) table(ctx context.Context) aliases {
	if t, ok := cite.TableFrom(ctx); ok {
		return aliases{t}
	}
	return aliases{x.own}
}

// aliases is a cite.Table as the web tools use it: pages by URL.
type aliases struct{ t *cite.Table }

// alias returns the ref of the page at url, giving it the next wN the
// first time; a title seen before is kept when this one is empty.
func (a aliases) alias(url, title string) cite.Ref {
	if prev, ok := a.t.Lookup(cite.Web, url); ok && title == "" {
		title = prev.Title
	}
	r := cite.Ref{Kind: cite.Web, ID: url, Path: url, Title: title}
	r.Alias = a.t.Alias(r)
	return r
}

// resolve returns what alias stands for, when it is a page.
func (a aliases) resolve(alias string) (cite.Ref, bool) {
	r, ok := a.t.Resolve(alias)
	return r, ok && r.Kind == cite.Web
}
