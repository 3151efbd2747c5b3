package kb

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/moteur/moteur/effect"
	"path/filepath"
	"strings"

	"github.com/moteur/moteur/cite"
	kbs "github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/tools"
)

type search struct{ s *scope }

func (*search) Name() string { return SearchName }

func (t *search) Description() string {
	return "Search the knowledge bases (" + t.s.names() + ") and return the most relevant passages, each with a chunk id (cN) to cite as [cN] and a document id (dN) for read_document. " +
		"Modes: hybrid (default: meaning and words), keyword (exact terms, error codes, identifiers, names), semantic (reformulations). " +
		"Then read around a passage with read_document(id=cN, context=2) or page through a document with read_document(id=dN)."
}

func (t *search) Schema() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{
"query":{"type":"string","description":"A question or phrase in natural language; in keyword mode, the exact terms."},
"mode":{"type":"string","enum":["hybrid","semantic","keyword"],"description":"hybrid (default), semantic or keyword."},
"knowledge_base_ids":{"type":"array","items":{"type":"string"},"maxItems":10,"description":"Knowledge bases to search (bN or name); all of them when absent."},
"limit":{"type":"integer","minimum":1,"maximum":%d,"description":"Number of results (default %d)."}
},"required":["query"],"additionalProperties":false}`, t.s.cfg.Store.Retrieval().MaxLimit, t.s.cfg.Store.Retrieval().Limit))
}

func (*search) Risk() effect.Risk { return effect.RiskRead }
func (*search) Concurrent() bool  { return true }

type searchArgs struct {
	Query string   `json:"query"`
	Mode  string   `json:"mode"`
	Bases []string `json:"knowledge_base_ids"`
	Limit int      `json:"limit"`
}

func (t *search) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a searchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return errResult(fmt.Errorf("invalid arguments: %w", err))
	}
	mode, err := kbs.ParseMode(a.Mode)
	if err != nil {
		return errResult(err)
	}
	tab := t.s.table(ctx)
	bases := t.s.cfg.Bases
	if len(a.Bases) > 0 {
		bases = nil
		for _, given := range a.Bases {
			b, err := t.s.base(ctx, tab, given)
			if err != nil {
				return errResult(err)
			}
			bases = append(bases, b.Name)
		}
	}
	res, err := t.s.cfg.Store.Search(ctx, kbs.Query{Text: a.Query, Mode: mode, Bases: bases, Limit: a.Limit})
	if err != nil {
		return errResult(err)
	}
	content, refs := renderSearch(tab, a.Query, res, t.s.cfg.Budget*4/5)
	return tools.Result{Content: content, Display: "knowledge_search", References: refs, Classified: classified(res.Hits)}, nil
}

// renderSearch writes the results for the model: each document's header
// once, its passages under it, aliases only. Past budget runes, results are
// dropped from the bottom (at least one kept) and an <omitted> line says
// how many.
func renderSearch(tab *cite.Table, query string, res kbs.Result, budget int) (string, []cite.Ref) {
	var head strings.Builder
	fmt.Fprintf(&head, "Knowledge search for %q: %d result(s), mode %s.\n", query, len(res.Hits), res.RequestedMode)
	var headRefs []cite.Ref
	for _, f := range res.Fallbacks {
		b := baseRef(tab, f.BaseID, f.Base)
		headRefs = append(headRefs, b)
		fmt.Fprintf(&head, "mode_fallback: %s (%s) searched in %s mode instead of %s: %s.\n", b.Alias, f.Base, f.To, f.From, f.Reason)
	}
	if res.RerankRejected {
		head.WriteString("rerank_rejected: true\n")
	}
	if res.Hint != "" {
		head.WriteString(res.Hint + "\n")
	}
	var blocks []string
	var blockRefs [][]cite.Ref
	docs := map[string]cite.Ref{}
	for _, h := range res.Hits {
		var sb strings.Builder
		var refs []cite.Ref
		d, seen := docs[h.Document]
		if !seen {
			b := baseRef(tab, h.Base, h.BaseName)
			d = docRef(tab, kbs.DocInfo{ID: h.Document, Base: h.Base, BaseName: h.BaseName, Title: h.Title, Path: h.Path})
			docs[h.Document] = d
			refs = append(refs, b, d)
			fmt.Fprintf(&sb, "\n[%s] %s (%s, knowledge base %s %s)\n", d.Alias, h.Title, filepath.Base(h.Path), b.Alias, h.BaseName)
		}
		c := chunkRef(tab, d, h.Chunk, h.Headings, h.Page, h.Score)
		refs = append(refs, c)
		fmt.Fprintf(&sb, "<passage id=%q document=%q score=\"%.2f\"", c.Alias, d.Alias, h.Score)
		if h.Page > 0 {
			fmt.Fprintf(&sb, " page=\"%d\"", h.Page)
		}
		if h.Headings != "" {
			fmt.Fprintf(&sb, " section=%q", h.Headings)
		}
		fmt.Fprintf(&sb, ">\n%s\n</passage>\n", strings.TrimSpace(h.Text))
		blocks = append(blocks, sb.String())
		blockRefs = append(blockRefs, refs)
	}
	content, kept := fitBlocks(head.String(), blocks, budget, "results")
	refs := headRefs
	for _, r := range blockRefs[:kept] {
		refs = append(refs, r...)
	}
	return content, refs
}

// fitBlocks joins head and as many blocks as fit in budget runes (at
// least one), saying how many were left out; kept is how many fit.
func fitBlocks(head string, blocks []string, budget int, what string) (content string, kept int) {
	var sb strings.Builder
	sb.WriteString(head)
	used := len([]rune(head))
	for i, b := range blocks {
		n := len([]rune(b))
		if i > 0 && used+n > budget {
			fmt.Fprintf(&sb, "\n<omitted count=\"%d\" reason=\"output_budget\"/> %d more %s did not fit; narrow the query or lower limit.\n",
				len(blocks)-i, len(blocks)-i, what)
			return sb.String(), i
		}
		sb.WriteString(b)
		used += n
	}
	return sb.String(), len(blocks)
}

// classified returns the classification rule of the first hit from a
// classified document, "" when none is: the engine then treats the result
// as it treats a marking. (All hits count, shown or cut by the budget: the
// stricter reading.)
func classified(hits []kbs.Hit) string {
	for _, h := range hits {
		if h.Classified != "" {
			return h.Classified
		}
	}
	return ""
}
