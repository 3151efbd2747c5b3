package kb

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/moteur/moteur/effect"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/moteur/moteur/cite"
	kbs "github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/tools"
)

// read_document limits (seed 000).
const (
	readDefaultLimit = 20
	readMaxLimit     = 100
	maxContext       = 5
	maxQueryHits     = 20
)

type read struct{ s *scope }

func (*read) Name() string { return ReadName }

func (*read) Description() string {
	return "Read a document of the knowledge bases. id=dN pages through the document from offset (continue with next_offset); id=cN reads that passage with `context` neighbouring passages on each side. " +
		"With query, searches inside the document (all words required, any order, case-insensitive; regex=true treats query as a regular expression) and shows each hit with one passage of context. Cite passages as [cN]."
}

func (*read) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{
"id":{"type":"string","description":"A document (dN) or a passage (cN) id from search_knowledge or list_documents."},
"offset":{"type":"integer","minimum":0,"description":"Position in reading order to start from (0-based), from next_offset."},
"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Passages per page (default 20)."},
"query":{"type":"string","description":"Words to find inside the document."},
"regex":{"type":"boolean","description":"Treat query as a case-insensitive regular expression."},
"context":{"type":"integer","minimum":0,"maximum":5,"description":"With id=cN: neighbouring passages on each side (max 5)."}
},"required":["id"],"additionalProperties":false}`)
}

func (*read) Risk() effect.Risk { return effect.RiskRead }
func (*read) Concurrent() bool  { return true }

type readArgs struct {
	ID      string `json:"id"`
	Offset  int    `json:"offset"`
	Limit   int    `json:"limit"`
	Query   string `json:"query"`
	Regex   bool   `json:"regex"`
	Context int    `json:"context"`
}

func (t *read) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a readArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return errResult(fmt.Errorf("invalid arguments: %w", err))
	}
	tab := t.s.table(ctx)
	ref, ok := tab.Resolve(strings.TrimSpace(a.ID))
	if !ok || (ref.Kind != cite.Document && ref.Kind != cite.Chunk) {
		return errResult(fmt.Errorf("unknown id %q: use a document id (dN) or a passage id (cN) from search_knowledge or list_documents", a.ID))
	}
	doc, err := t.s.cfg.Store.Document(ctx, ref.Document)
	if err != nil {
		return errResult(fmt.Errorf("%s: the document is no longer in the knowledge base; search again", a.ID))
	}
	if !t.s.inScope(doc.Base, doc.BaseName) {
		return errResult(fmt.Errorf("%s is not in the knowledge bases of this session (%s)", a.ID, t.s.names()))
	}
	d := docRef(tab, doc)
	pg := page{tab: tab, doc: d, refs: []cite.Ref{d}, budget: t.s.cfg.Budget * 4 / 5}
	pg.header(doc)
	// Only what the page shows is read, except for a search inside the
	// document, which reads it all.
	store := t.s.cfg.Store
	switch {
	case strings.TrimSpace(a.Query) != "":
		var all []kbs.ChunkInfo
		if all, err = store.Chunks(ctx, doc.ID, 0, -1); err == nil {
			err = pg.find(all, a)
		}
	case ref.Kind == cite.Chunk:
		err = pg.around(ctx, store, doc, ref.ID, min(max(a.Context, 0), maxContext))
	default:
		offset, limit := max(a.Offset, 0), clampLimit(a.Limit)
		var win []kbs.ChunkInfo
		if win, err = store.Chunks(ctx, doc.ID, offset, limit); err == nil {
			pg.from(win, offset, doc.Chunks)
		}
	}
	if err != nil {
		return errResult(err)
	}
	return tools.Result{Content: pg.String(), Display: "document", References: pg.refs, Classified: doc.Classified}, nil
}

func clampLimit(n int) int {
	if n <= 0 {
		return readDefaultLimit
	}
	return min(n, readMaxLimit)
}

// page builds one read_document result within its budget.
type page struct {
	tab    *cite.Table
	doc    cite.Ref
	refs   []cite.Ref
	budget int
	sb     strings.Builder
	used   int
}

func (p *page) String() string { return p.sb.String() }

func (p *page) write(s string) {
	p.sb.WriteString(s)
	p.used += len([]rune(s))
}

// header writes the document's metadata once, first.
func (p *page) header(d kbs.DocInfo) {
	status := "ok"
	if len(d.Warnings) > 0 {
		status = "ok with warnings: " + strings.Join(d.Warnings, "; ")
	}
	h := fmt.Sprintf("[%s] %s\nfile: %s · type: %s · parse_status: %s · passages: %d\n",
		p.doc.Alias, d.Title, filepath.Base(d.Path), d.Format, status, d.Chunks)
	keys := make([]string, 0, len(d.Meta))
	for k := range d.Meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h += fmt.Sprintf("%s: %s\n", k, d.Meta[k])
	}
	p.write(h)
}

// passage writes one chunk; false when it does not fit the budget (the
// first always does).
func (p *page) passage(pos int, c kbs.ChunkInfo, first bool) bool {
	r := chunkRef(p.tab, p.doc, c.ID, c.Headings, c.Page, 0)
	block := fmt.Sprintf("\n<passage id=%q offset=\"%d\"", r.Alias, pos)
	if c.Page > 0 {
		block += fmt.Sprintf(" page=\"%d\"", c.Page)
	}
	if c.Headings != "" {
		block += fmt.Sprintf(" section=%q", c.Headings)
	}
	block += ">\n" + strings.TrimSpace(c.Text) + "\n</passage>\n"
	if !first && p.used+len([]rune(block)) > p.budget {
		return false
	}
	p.write(block)
	p.refs = append(p.refs, r)
	return true
}

// from shows win, the passages of the document from offset on; total is
// the document's passage count.
func (p *page) from(win []kbs.ChunkInfo, offset, total int) {
	if offset >= total || len(win) == 0 {
		p.write(fmt.Sprintf("\noffset %d is past the end: the document has %d passages (offsets 0 to %d).\n", offset, total, total-1))
		return
	}
	next := offset + len(win)
	for i, c := range win {
		if !p.passage(offset+i, c, i == 0) {
			next = offset + i
			break
		}
	}
	p.write(fmt.Sprintf("\nShown passages %d to %d of %d.", offset, next-1, total))
	if next < total {
		p.write(fmt.Sprintf(" next_offset: %d\n", next))
	} else {
		p.write(" End of document.\n")
	}
}

// around shows the passage id with n neighbours on each side.
func (p *page) around(ctx context.Context, store Store, doc kbs.DocInfo, id string, n int) error {
	c, err := store.Chunk(ctx, id)
	if err != nil || c.Document != doc.ID {
		p.write("\nThis passage is no longer in the document (it was re-ingested); page through it with its dN id.\n")
		return nil
	}
	lo := max(c.Index-n, 0)
	win, err := store.Chunks(ctx, doc.ID, lo, c.Index+n+1-lo)
	if err != nil {
		return err
	}
	for i, w := range win {
		if !p.passage(lo+i, w, w.ID == id) && lo+i > c.Index {
			break
		}
	}
	if hi := lo + len(win); hi < doc.Chunks {
		p.write(fmt.Sprintf("\nnext_offset: %d (read on with id=%s)\n", hi, p.doc.Alias))
	}
	return nil
}

// find searches inside the document and writes each hit with one passage
// of context on each side.
func (p *page) find(all []kbs.ChunkInfo, a readArgs) error {
	match, err := matcher(a.Query, a.Regex)
	if err != nil {
		return err
	}
	var hits []int
	for i, c := range all {
		if match(c.Headings + "\n" + c.Text) {
			hits = append(hits, i)
		}
	}
	if len(hits) == 0 {
		p.write(fmt.Sprintf("\nNo passage of this document contains %q. Try fewer or other words, regex=true for a pattern, or search_knowledge across the knowledge bases.\n", a.Query))
		return nil
	}
	start := min(max(a.Offset, 0), len(hits))
	shown := map[int]bool{}
	next := -1
	for n, h := range hits[start:] {
		if n == maxQueryHits || !p.hitBlock(all, h, shown, n == 0) {
			next = start + n
			break
		}
	}
	p.write(fmt.Sprintf("\n%d passage(s) match.", len(hits)))
	if next >= 0 {
		p.write(fmt.Sprintf(" next_offset: %d (pass it as offset with the same query)\n", next))
	} else {
		p.write("\n")
	}
	return nil
}

// hitBlock writes hit h with one neighbour on each side, skipping
// passages already shown.
func (p *page) hitBlock(all []kbs.ChunkInfo, h int, shown map[int]bool, first bool) bool {
	for i := max(h-1, 0); i <= min(h+1, len(all)-1); i++ {
		if shown[i] {
			continue
		}
		if !p.passage(i, all[i], first && i <= h) {
			return false
		}
		shown[i] = true
	}
	return true
}

// matcher returns the in-document test: every word of query present
// (case- and accent-insensitive), or a case-insensitive regex.
func matcher(query string, regex bool) (func(string) bool, error) {
	if regex {
		re, err := regexp.Compile("(?i)" + query)
		if err != nil {
			return nil, fmt.Errorf("invalid regex %q: %w", query, err)
		}
		return re.MatchString, nil
	}
	words := strings.Fields(fold(query))
	return func(text string) bool {
		t := fold(text)
		for _, w := range words {
			if !strings.Contains(t, w) {
				return false
			}
		}
		return true
	}, nil
}
