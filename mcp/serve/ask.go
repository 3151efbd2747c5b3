package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/effect"
	kbs "github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/rag"
	"github.com/moteur/moteur/tools"
)

// AskName is the name of the quick-answer tool.
const AskName = "ask"

// askTool is the quick answer of moteur ask as a tool: one retrieval, one
// generation (extractive, quoting the passages, when the server has no
// model), citing the passages under the server's aliases.
type askTool struct {
	p     *rag.Pipeline
	bases []string
}

func (*askTool) Name() string { return AskName }

func (t *askTool) Description() string {
	return "Answer a question from the knowledge bases (" + strings.Join(t.bases, ", ") + ") in one search and one generation, citing the passages used as [cN]. " +
		"When the server has no model configured, the answer quotes the most relevant passages instead. " +
		"For questions that need several searches or reading a document, use search_knowledge and read_document."
}

func (*askTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{
"question":{"type":"string","minLength":1,"description":"The question, in natural language."}
},"required":["question"],"additionalProperties":false}`)
}

func (*askTool) Risk() effect.Risk { return effect.RiskRead }
func (*askTool) Concurrent() bool  { return true }

func (t *askTool) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Question string `json:"question"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || strings.TrimSpace(a.Question) == "" {
		return tools.Result{Content: "ask needs a question: {\"question\": \"...\"}", IsError: true}, nil
	}
	var opts []rag.Option
	if tab, ok := cite.TableFrom(ctx); ok {
		opts = append(opts, rag.WithAliases(tab))
	}
	ans, err := t.p.Ask(ctx, a.Question, nil, nil, opts...)
	if err != nil {
		return tools.Result{Content: err.Error(), IsError: true}, nil
	}
	refs := ans.Citations
	if len(refs) == 0 {
		refs = ans.Sources
	}
	return tools.Result{Content: answerText(ans, refs), References: refs}, nil
}

// answerText is the answer with the passages it cites listed under it.
func answerText(ans rag.Answer, refs []cite.Ref) string {
	var sb strings.Builder
	sb.WriteString(strings.TrimSpace(ans.Text) + "\n")
	if ans.Extractive {
		sb.WriteString("\n(No model wrote this answer: it quotes the passages found.)\n")
	}
	if len(refs) > 0 {
		sb.WriteString("\nSources:\n")
	}
	for _, r := range refs {
		where := filepath.Base(r.Path)
		if r.Headings != "" {
			where += " › " + r.Headings
		}
		fmt.Fprintf(&sb, "[%s] %s (%s, knowledge base %s)\n", r.Alias, r.Title, where, r.BaseName)
	}
	return sb.String()
}

// answerable is what the quick answer searches: the guarded bases without
// the withheld passages, which it must neither quote nor give a model.
// They are still recorded in the call's report, so the answer says what
// it could not use.
type answerable struct{ g *guard }

func (a answerable) Search(ctx context.Context, q kbs.Query) (kbs.Result, error) {
	res, withheld, err := a.g.search(ctx, q)
	if err != nil {
		return res, err
	}
	kept := res.Hits[:0]
	for i, h := range res.Hits {
		if !withheld[i] {
			kept = append(kept, h)
		}
	}
	res.Hits = kept
	return res, nil
}
