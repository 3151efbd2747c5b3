// Package cite owns the short aliases that stand for stored ids in what a
// model reads (seed 000, "Alias citations / ressources"): bN for a
// knowledge base, dN for a document, cN for a chunk. The model never sees
// a stored id; the tools translate its aliases back, and an answer citing
// [c3] is mapped to the chunk c3 stands for.
//
// A Table is one session's aliases. It is rebuilt from the references the
// session's events carry, so an alias keeps its meaning across a restart.
// A Table is safe for concurrent use (the tools of one round run in
// parallel).
package cite

import (
	"cmp"
	"context"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Kinds of things an alias stands for, and their alias prefixes.
const (
	Base     = "base"     // bN
	Document = "document" // dN
	Chunk    = "chunk"    // cN
	Web      = "web"      // wN: a web page, its ID the URL
)

var prefixes = map[string]string{Base: "b", Document: "d", Chunk: "c", Web: "w"}

// Ref is what an alias stands for, with what a user needs to find it.
type Ref struct {
	Alias string `json:"alias"`
	Kind  string `json:"kind"`
	// ID is the stored id of the thing (base, document or chunk).
	ID       string `json:"id"`
	Base     string `json:"base,omitempty"`
	BaseName string `json:"base_name,omitempty"`
	Document string `json:"document,omitempty"`
	Title    string `json:"title,omitempty"`
	Path     string `json:"path,omitempty"`
	Headings string `json:"headings,omitempty"`
	// Page is where a chunk starts in a document with pages (PDF),
	// 1-based; 0 when unknown.
	Page  int     `json:"page,omitempty"`
	Score float64 `json:"score,omitempty"`
}

// Where is the place a user looks the ref up: the file name, its page
// when known, and the section ("libtasn1.pdf p. 12 › 4 Functions").
func (r Ref) Where() string {
	if r.Kind == Web {
		return r.Path // the page's URL: its last segment alone says nothing
	}
	where := path.Base(filepath.ToSlash(r.Path))
	if r.Path == "" {
		where = ""
	}
	if r.Page > 0 {
		where = strings.TrimSpace(where + " p. " + strconv.Itoa(r.Page))
	}
	if r.Headings != "" {
		where = strings.TrimSpace(where + " › " + r.Headings)
	}
	return where
}

// Table maps aliases to refs for one session.
type Table struct {
	mu      sync.Mutex
	byID    map[string]string // kind + "\x00" + id → alias
	byAlias map[string]Ref
	next    map[string]int // kind → last number given
}

// NewTable returns an empty table.
func NewTable() *Table {
	return &Table{byID: map[string]string{}, byAlias: map[string]Ref{}, next: map[string]int{}}
}

// Alias returns r's alias, giving it the next free one of its kind the
// first time; r.Alias is ignored. The table keeps the latest details of r
// (a better score, a title) for the citations.
func (t *Table) Alias(r Ref) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := r.Kind + "\x00" + r.ID
	if a, ok := t.byID[key]; ok {
		r.Alias = a
		t.byAlias[a] = r
		return a
	}
	t.next[r.Kind]++
	r.Alias = prefixes[r.Kind] + strconv.Itoa(t.next[r.Kind])
	t.byID[key] = r.Alias
	t.byAlias[r.Alias] = r
	return r.Alias
}

// Add records refs that already have their aliases (from a stored
// session's events), so that numbering goes on after them.
func (t *Table) Add(refs ...Ref) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range refs {
		p, ok := prefixes[r.Kind]
		if !ok || len(r.Alias) <= len(p) || r.Alias[:len(p)] != p {
			continue
		}
		n, err := strconv.Atoi(r.Alias[len(p):])
		if err != nil {
			continue
		}
		t.byID[r.Kind+"\x00"+r.ID] = r.Alias
		t.byAlias[r.Alias] = r
		t.next[r.Kind] = max(t.next[r.Kind], n)
	}
}

// Refs returns every ref of the table, by kind then number: with Add they
// rebuild it (a snapshot of a session keeps them).
func (t *Table) Refs() []Ref {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Ref, 0, len(t.byAlias))
	for _, r := range t.byAlias {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Ref) int {
		if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return cmp.Compare(len(a.Alias), len(b.Alias))*2 + cmp.Compare(a.Alias, b.Alias)
	})
	return out
}

// Lookup returns the ref of the thing of kind and id, if it has an alias.
func (t *Table) Lookup(kind, id string) (Ref, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a, ok := t.byID[kind+"\x00"+id]
	if !ok {
		return Ref{}, false
	}
	return t.byAlias[a], true
}

// Resolve returns what alias stands for.
func (t *Table) Resolve(alias string) (Ref, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.byAlias[alias]
	return r, ok
}

// citation matches a bracketed citation: [c3], [c3, c5], [d2][c1].
var (
	citation = regexp.MustCompile(`\[((?:[bcdw][0-9]+)(?:\s*[,;]\s*[bcdw][0-9]+)*)\]`)
	alias    = regexp.MustCompile(`[bcdw][0-9]+`)
)

// Find returns the aliases cited in text, in order of first citation.
func Find(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range citation.FindAllStringSubmatch(text, -1) {
		for _, a := range alias.FindAllString(m[1], -1) {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// Citations returns the refs of the aliases text cites that the table
// knows, in order of first citation.
func (t *Table) Citations(text string) []Ref {
	var out []Ref
	for _, a := range Find(text) {
		if r, ok := t.Resolve(a); ok {
			out = append(out, r)
		}
	}
	return out
}

type tableKey struct{}

// WithTable gives the tools running under ctx the session's table.
func WithTable(ctx context.Context, t *Table) context.Context {
	return context.WithValue(ctx, tableKey{}, t)
}

// TableFrom returns the table of the session running under ctx.
func TableFrom(ctx context.Context) (*Table, bool) {
	t, ok := ctx.Value(tableKey{}).(*Table)
	return t, ok && t != nil
}
