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

// analysisTool is data_analysis.
type analysisTool struct{ s *Set }

func (*analysisTool) Name() string { return AnalysisName }

func (*analysisTool) Description() string {
	return "Run one read-only SQL SELECT (SQLite dialect; WITH … SELECT allowed) on a CSV, TSV or Excel document of the knowledge bases. " +
		"The document is always the table `" + TableName + "` in the SQL (never write its id there); call data_schema first for its columns. " +
		"The result is a Markdown table of at most a few hundred rows: aggregate or LIMIT rather than read everything. Writes, PRAGMA, ATTACH and several statements are refused."
}

func (*analysisTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{
"knowledge_id":{"type":"string","description":"The document id (dN) of a CSV, TSV or Excel document, or its name or path as the system prompt lists it."},
"sql":{"type":"string","description":"One SELECT on table dataset, e.g. SELECT region, SUM(amount) FROM dataset GROUP BY region."}
},"required":["knowledge_id","sql"],"additionalProperties":false}`)
}

func (*analysisTool) Risk() effect.Risk        { return effect.RiskRead }
func (*analysisTool) Concurrent() bool         { return true }
func (t *analysisTool) Timeout() time.Duration { return callTimeout(t.s.cfg) }

func (t *analysisTool) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		KnowledgeID string `json:"knowledge_id"`
		SQL         string `json:"sql"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return errResult(fmt.Errorf("invalid arguments: %w", err))
	}
	stmt, err := singleStatement(a.SQL)
	if err != nil {
		return errResult(err)
	}
	cfg := t.s.cfg
	var out string
	doc, err := t.s.with(ctx, strings.TrimSpace(a.KnowledgeID), func(doc Document, ds *dataset) error {
		ans, err := ds.query(ctx, stmt, cfg.MaxRows, cfg.Timeout)
		if err != nil {
			return err
		}
		out = render(doc, ds.info, ans, cfg.Budget*4/5)
		return nil
	})
	if err != nil {
		r, _ := errResult(err)
		r.References, r.Classified = refs(doc), doc.Classified
		return r, nil
	}
	return tools.Result{Content: out, Display: "table", References: refs(doc), Classified: doc.Classified}, nil
}

// render writes a query's answer: the table, then how many rows there are
// and how many the model does not see.
func render(doc Document, in info, a answer, budget int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s · table %s\n\n", alias(doc), in.doc, TableName)
	if len(a.rows) == 0 {
		fmt.Fprintf(&b, "No rows (columns: %s). Query time: %s.\n", strings.Join(a.columns, ", "), ms(a.elapsed))
		return b.String()
	}
	shown := table(&b, a.columns, a.rows, budget-utf8Len(b.String())-200)
	b.WriteString("\n")
	count := fmt.Sprintf("%d rows", a.total)
	if a.partial {
		count = fmt.Sprintf("at least %d rows (counting stopped at the time limit)", a.total)
	}
	switch {
	case shown == a.total && !a.partial:
		fmt.Fprintf(&b, "%s. Query time: %s.\n", count, ms(a.elapsed))
	default:
		fmt.Fprintf(&b, "%s; %d shown, %d not shown. Query time: %s. Aggregate, filter or page with LIMIT … OFFSET … to see the rest.\n",
			count, shown, a.total-shown, ms(a.elapsed))
	}
	return b.String()
}

func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }

func utf8Len(s string) int { return len([]rune(s)) }
