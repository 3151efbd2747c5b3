package kb

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/moteur/moteur/effect"
	"path/filepath"
	"strings"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/tools"
)

type list struct{ s *scope }

func (*list) Name() string { return ListName }

func (t *list) Description() string {
	return "List the documents of a knowledge base (" + t.s.names() + "), a page at a time, with their ids (dN) for read_document. keyword filters on title or file name."
}

func (*list) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{
"knowledge_base_id":{"type":"string","description":"The knowledge base (bN or name)."},
"keyword":{"type":"string","description":"Keep documents whose title or file name contains it."},
"page":{"type":"integer","minimum":1,"description":"Page number (default 1)."},
"page_size":{"type":"integer","minimum":1,"maximum":100,"description":"Documents per page (default 20)."}
},"required":["knowledge_base_id"],"additionalProperties":false}`)
}

func (*list) Risk() effect.Risk { return effect.RiskRead }
func (*list) Concurrent() bool  { return true }

type listArgs struct {
	Base     string `json:"knowledge_base_id"`
	Keyword  string `json:"keyword"`
	Page     int    `json:"page"`
	PageSize int    `json:"page_size"`
}

func (t *list) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a listArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return errResult(fmt.Errorf("invalid arguments: %w", err))
	}
	tab := t.s.table(ctx)
	b, err := t.s.base(ctx, tab, a.Base)
	if err != nil {
		return errResult(err)
	}
	page, size := max(a.Page, 1), a.PageSize
	if size <= 0 {
		size = 20
	}
	size = min(size, 100)
	docs, total, err := t.s.cfg.Store.Documents(ctx, b.Name, a.Keyword, page, size)
	if err != nil {
		return tools.Result{}, err
	}
	br := baseRef(tab, b.ID, b.Name)
	refs := []cite.Ref{br}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Knowledge base %s (%s): total_docs: %d", br.Alias, b.Name, total)
	if a.Keyword != "" {
		fmt.Fprintf(&sb, " matching %q", a.Keyword)
	}
	fmt.Fprintf(&sb, ", page %d.\n", page)
	for _, d := range docs {
		r := docRef(tab, d)
		refs = append(refs, r)
		fmt.Fprintf(&sb, "[%s] %s (%s, %s, %d passages)\n", r.Alias, d.Title, filepath.Base(d.Path), d.Format, d.Chunks)
	}
	if page*size < total {
		fmt.Fprintf(&sb, "next_page: %d\n", page+1)
	}
	if len(docs) == 0 {
		sb.WriteString("No document on this page.\n")
	}
	return tools.Result{Content: sb.String(), Display: "document_list", References: refs}, nil
}
