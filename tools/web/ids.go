package web

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"weak"

	"github.com/moteur/moteur/cite"
)

// RefKind is the cite.Ref kind of a web page; its aliases are wN.
const RefKind = "web"

// ids gives web pages their wN aliases, one numbering per session. The
// session is known by its cite.Table (cite has no kind for the web yet):
// the numbering lives as long as the table and goes with it.
type ids struct {
	mu       sync.Mutex
	sessions map[weak.Pointer[cite.Table]]*idTable
	own      *idTable // calls made outside a session
}

func newIDs() *ids {
	return &ids{sessions: map[weak.Pointer[cite.Table]]*idTable{}, own: newIDTable()}
}

// table returns the numbering of the session running under ctx.
func (x *ids) table(ctx context.Context) *idTable {
	t, ok := cite.TableFrom(ctx)
	if !ok {
		return x.own
	}
	key := weak.Make(t)
	x.mu.Lock()
	defer x.mu.Unlock()
	if it, ok := x.sessions[key]; ok {
		return it
	}
	it := newIDTable()
	x.sessions[key] = it
	runtime.AddCleanup(t, func(k weak.Pointer[cite.Table]) {
		x.mu.Lock()
		delete(x.sessions, k)
		x.mu.Unlock()
	}, key)
	return it
}

// idTable is one session's wN aliases.
type idTable struct {
	mu      sync.Mutex
	byURL   map[string]string
	byAlias map[string]cite.Ref
	next    int
}

func newIDTable() *idTable {
	return &idTable{byURL: map[string]string{}, byAlias: map[string]cite.Ref{}}
}

// alias returns the ref of the page at url, giving it the next wN the
// first time; a title seen later is kept.
func (t *idTable) alias(url, title string) cite.Ref {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a, ok := t.byURL[url]; ok {
		r := t.byAlias[a]
		if title != "" {
			r.Title = title
			t.byAlias[a] = r
		}
		return r
	}
	t.next++
	r := cite.Ref{Alias: "w" + strconv.Itoa(t.next), Kind: RefKind, ID: url, Path: url, Title: title}
	t.byURL[url] = r.Alias
	t.byAlias[r.Alias] = r
	return r
}

// resolve returns what alias stands for.
func (t *idTable) resolve(alias string) (cite.Ref, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.byAlias[alias]
	return r, ok
}
