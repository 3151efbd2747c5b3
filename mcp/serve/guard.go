package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/classify"
	kbs "github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/kb/retrieval"
	kbtools "github.com/moteur/moteur/tools/kb"
)

// guard is the store the served tools read: the knowledge bases with
// every passage of a classified document replaced by a notice, unless
// serving classified content. Each document met is recorded in the call's
// report (withheld or served), so the result can say it.
type guard struct {
	inner kbtools.Store
	cls   *classify.Classifier
	root  string
	serve bool

	mu      sync.Mutex
	verdict map[string]verdict // document id → what was decided, for its SHA-256
}

var _ kbtools.Store = (*guard)(nil)

// verdict is what the guard decided of one document's content.
type verdict struct {
	sha  string
	rule string // the classification rule; "" when the document is not classified
	// titleMarked and nameMarked: the title or the file name itself carries
	// a marking, so neither is shown of a withheld document.
	titleMarked, nameMarked bool
}

func newGuard(inner kbtools.Store, cls *classify.Classifier, root string, serveClassified bool) *guard {
	return &guard{inner: inner, cls: cls, root: root, serve: serveClassified, verdict: map[string]verdict{}}
}

// judge decides whether the document is classified: its path matched a
// rule when it was added (DocInfo.Classified) or matches one now, or its
// title, metadata, headings or text carries a marking. The markings are
// read once per document content (its SHA-256).
func (g *guard) judge(ctx context.Context, d kbs.DocInfo) (verdict, error) {
	g.mu.Lock()
	v, ok := g.verdict[d.ID]
	g.mu.Unlock()
	if ok && v.sha == d.SHA256 {
		return v, nil
	}
	v = verdict{sha: d.SHA256, rule: d.Classified}
	if v.rule == "" {
		if m, ok := g.cls.Path(g.root, d.Path); ok {
			v.rule = m.Rule
		}
	}
	_, v.titleMarked = g.cls.Text(d.Title)
	_, v.nameMarked = g.cls.Text(filepath.Base(d.Path))
	if v.rule == "" {
		rule, err := g.marking(ctx, d)
		if err != nil {
			return verdict{}, err
		}
		v.rule = rule
	}
	g.mu.Lock()
	g.verdict[d.ID] = v
	g.mu.Unlock()
	return v, nil
}

// marking reads the whole document for a marking: one pass over its title,
// metadata and passages joined, so a stamp split across two passages is
// found too.
func (g *guard) marking(ctx context.Context, d kbs.DocInfo) (string, error) {
	chunks, err := g.inner.Chunks(ctx, d.ID, 0, -1)
	if err != nil {
		return "", fmt.Errorf("read %s for classification markings: %w", d.Path, err)
	}
	var sb strings.Builder
	sb.WriteString(d.Title)
	for k, v := range d.Meta {
		sb.WriteString("\n" + k + ": " + v)
	}
	for _, c := range chunks {
		sb.WriteString("\n\n" + c.Headings + "\n" + c.Text)
	}
	if m, ok := g.cls.Text(sb.String()); ok {
		return m.Rule, nil
	}
	return "", nil
}

// document returns a document with what the guard decided of it. A
// document that cannot be read is withheld: the guard fails closed.
func (g *guard) document(ctx context.Context, id string) (kbs.DocInfo, verdict, error) {
	d, err := g.inner.Document(ctx, id)
	if err != nil {
		return d, verdict{}, err
	}
	v, err := g.judge(ctx, d)
	if err != nil {
		return d, verdict{rule: "unreadable (the document could not be checked for markings)"}, nil
	}
	return d, v, nil
}

// Search searches, then withholds each hit of a classified document.
func (g *guard) Search(ctx context.Context, q kbs.Query) (kbs.Result, error) {
	res, _, err := g.search(ctx, q)
	return res, err
}

// search is Search, also telling which hits it withheld.
func (g *guard) search(ctx context.Context, q kbs.Query) (kbs.Result, []bool, error) {
	res, err := g.inner.Search(ctx, q)
	if err != nil {
		return res, nil, err
	}
	withheld := make([]bool, len(res.Hits))
	for i := range res.Hits {
		h := &res.Hits[i]
		d, v, err := g.document(ctx, h.Document)
		if err != nil {
			// Gone since the search: shown as nothing at all.
			d, v = kbs.DocInfo{ID: h.Document, Base: h.Base, BaseName: h.BaseName, Title: h.Title, Path: h.Path},
				verdict{rule: "unreadable (the document is no longer in the knowledge base)"}
		}
		if v.rule == "" {
			continue
		}
		h.Classified = v.rule
		if g.serve {
			reportFrom(ctx).serve(ctx, d, v)
			continue
		}
		withheld[i] = true
		h.Title, h.Path = shownTitle(h.Title, v), shownPath(h.Path, v)
		h.Text, h.Headings = reportFrom(ctx).withhold(ctx, d, v), ""
	}
	return res, withheld, nil
}

// Document returns a document's details; of a withheld document, no
// metadata and no marked title or file name.
func (g *guard) Document(ctx context.Context, id string) (kbs.DocInfo, error) {
	d, v, err := g.document(ctx, id)
	if err != nil || v.rule == "" {
		return d, err
	}
	d.Classified = v.rule
	if g.serve {
		reportFrom(ctx).serve(ctx, d, v)
		return d, nil
	}
	reportFrom(ctx).withhold(ctx, d, v)
	d.Title, d.Path = shownTitle(d.Title, v), shownPath(d.Path, v)
	d.Meta, d.Warnings = nil, nil
	return d, nil
}

// Documents lists documents; a title or file name that carries a marking
// is not shown.
func (g *guard) Documents(ctx context.Context, base, keyword string, page, pageSize int) ([]kbs.DocInfo, int, error) {
	docs, total, err := g.inner.Documents(ctx, base, keyword, page, pageSize)
	if err != nil || g.serve {
		return docs, total, err
	}
	for i := range docs {
		v := verdict{}
		_, v.titleMarked = g.cls.Text(docs[i].Title)
		_, v.nameMarked = g.cls.Text(filepath.Base(docs[i].Path))
		docs[i].Title, docs[i].Path = shownTitle(docs[i].Title, v), shownPath(docs[i].Path, v)
	}
	return docs, total, nil
}

// Chunk returns one passage, withheld when its document is classified.
func (g *guard) Chunk(ctx context.Context, id string) (kbs.ChunkInfo, error) {
	c, err := g.inner.Chunk(ctx, id)
	if err != nil {
		return c, err
	}
	cs, err := g.passages(ctx, c.Document, []kbs.ChunkInfo{c})
	if err != nil {
		return kbs.ChunkInfo{}, err
	}
	return cs[0], nil
}

// Chunks returns passages of a document, withheld when it is classified.
func (g *guard) Chunks(ctx context.Context, doc string, offset, limit int) ([]kbs.ChunkInfo, error) {
	cs, err := g.inner.Chunks(ctx, doc, offset, limit)
	if err != nil {
		return nil, err
	}
	return g.passages(ctx, doc, cs)
}

func (g *guard) passages(ctx context.Context, doc string, cs []kbs.ChunkInfo) ([]kbs.ChunkInfo, error) {
	if len(cs) == 0 {
		return cs, nil
	}
	d, v, err := g.document(ctx, doc)
	if err != nil {
		return nil, err
	}
	if v.rule == "" {
		return cs, nil
	}
	rep := reportFrom(ctx)
	if g.serve {
		rep.serve(ctx, d, v)
		return cs, nil
	}
	for i := range cs {
		cs[i].Text, cs[i].Headings = rep.withhold(ctx, d, v), ""
	}
	return cs, nil
}

func (g *guard) Base(ctx context.Context, name string) (kbs.Base, error) {
	return g.inner.Base(ctx, name)
}

func (g *guard) Retrieval() retrieval.Settings { return g.inner.Retrieval() }

// shownTitle is what is shown of a withheld document's title.
func shownTitle(title string, v verdict) string {
	if v.titleMarked {
		return "(title withheld: it carries a classification marking)"
	}
	return title
}

// shownPath is what is shown of a withheld document's path: the tools
// show its file name.
func shownPath(path string, v verdict) string {
	if v.nameMarked {
		return filepath.Join(filepath.Dir(path), "(file name withheld)")
	}
	return path
}

// docAlias is the document's alias in the call's table, as the tools
// give it.
func docAlias(ctx context.Context, d kbs.DocInfo) string {
	t, ok := cite.TableFrom(ctx)
	if !ok {
		return ""
	}
	return t.Alias(cite.Ref{Kind: cite.Document, ID: d.ID, Base: d.Base, BaseName: d.BaseName, Document: d.ID,
		Title: d.Title, Path: d.Path})
}
