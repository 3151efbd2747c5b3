package data

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/tools"
)

// schemaTool is data_schema.
type schemaTool struct{ s *Set }

func (*schemaTool) Name() string { return SchemaName }

func (*schemaTool) Description() string {
	return "Show the columns of a CSV, TSV or Excel document of the knowledge bases: names, types, row count and sample values. " +
		"Call it before data_analysis: the SQL of data_analysis always reads this document as the table `" + TableName + "`, with these column names."
}

func (*schemaTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{
"knowledge_id":{"type":"string","description":"The document id (dN) of a CSV, TSV or Excel document, from search_knowledge or list_documents, or its name or path as the system prompt lists it."}
},"required":["knowledge_id"],"additionalProperties":false}`)
}

func (*schemaTool) Risk() effect.Risk        { return effect.RiskRead }
func (*schemaTool) Concurrent() bool         { return true }
func (t *schemaTool) Timeout() time.Duration { return callTimeout(t.s.cfg) }

func (t *schemaTool) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		KnowledgeID string `json:"knowledge_id"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return errResult(fmt.Errorf("invalid arguments: %w", err))
	}
	var out string
	doc, err := t.s.with(ctx, strings.TrimSpace(a.KnowledgeID), func(doc Document, ds *dataset) error {
		out = describeTable(doc, ds.info)
		return nil
	})
	if err != nil {
		r, _ := errResult(err)
		r.References, r.Classified = refs(doc), doc.Classified
		return r, nil
	}
	return tools.Result{Content: out, Display: "table", References: refs(doc), Classified: doc.Classified}, nil
}

// describeTable writes what the model needs to write SQL on the table.
func describeTable(doc Document, in info) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s (%s): table `%s`, %d rows, %d columns.\n", alias(doc), in.doc, in.format, TableName, in.rows, len(in.columns))
	if len(in.sheets) > 1 || (len(in.sheets) == 1 && in.sheets[0].name != "") {
		parts := make([]string, len(in.sheets))
		for i, s := range in.sheets {
			parts[i] = fmt.Sprintf("%q (%d rows)", s.name, s.rows)
		}
		fmt.Fprintf(&b, "Sheets merged into one table: %s; the column %s says which sheet a row came from.\n", strings.Join(parts, ", "), SheetColumn)
	}
	b.WriteString("\n| column | type | non-empty | examples | header in the document |\n|---|---|---|---|---|\n")
	for _, c := range in.columns {
		header := strings.Join(c.headers, " / ")
		if c.name == SheetColumn {
			header = "(sheet name)"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s |\n", c.name, c.kind, c.nonNull, cell(strings.Join(c.samples, "; ")), cell(header))
	}
	if len(in.notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range in.notes {
			b.WriteString("- " + n + "\n")
		}
	}
	fmt.Fprintf(&b, "\nQuery it with data_analysis: one SELECT on table `%s` (never the document id), e.g. SELECT %s, COUNT(*) FROM %s GROUP BY 1 ORDER BY 2 DESC LIMIT 10. Dates are ISO text (YYYY-MM-DD): use strftime / date().\n",
		TableName, exampleColumn(in), TableName)
	return b.String()
}

func exampleColumn(in info) string {
	for _, c := range in.columns {
		if c.kind == kindText || c.kind == kindDate {
			return c.name
		}
	}
	if len(in.columns) > 0 {
		return in.columns[0].name
	}
	return "*"
}

func alias(doc Document) string {
	if doc.Ref.Alias == "" {
		return ""
	}
	return "[" + doc.Ref.Alias + "] "
}

// callTimeout bounds a whole call: loading the document, then the query.
func callTimeout(cfg Config) time.Duration { return 2*cfg.Timeout + 5*time.Second }
