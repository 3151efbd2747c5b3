package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
)

// Output is the structured content of every result.
type Output struct {
	// Citations are what the result showed under an alias: knowledge
	// bases (bN), documents (dN) and passages (cN), with what a reader
	// needs to find them.
	Citations []Citation `json:"citations"`
	// Withheld are the classified documents whose passages the result
	// does not show.
	Withheld []Classified `json:"withheld"`
	// Served are the classified documents whose passages it shows
	// (--serve-classified).
	Served []Classified `json:"served_classified,omitempty"`
	// Truncated reports that the text was cut to the output budget.
	Truncated bool `json:"truncated,omitempty"`
}

// Citation is one thing a result showed under an alias.
type Citation struct {
	Alias string `json:"alias"`
	// Kind is base, document or chunk (a passage).
	Kind          string `json:"kind"`
	KnowledgeBase string `json:"knowledge_base,omitempty"`
	// Document is the alias of a passage's document.
	Document string  `json:"document,omitempty"`
	Title    string  `json:"title,omitempty"`
	File     string  `json:"file,omitempty"`
	Section  string  `json:"section,omitempty"`
	Score    float64 `json:"score,omitempty"`
	// Withheld marks a passage (or document) of a classified document
	// whose text the result does not show.
	Withheld bool `json:"withheld,omitempty"`
}

// outputSchema is the JSON Schema of Output.
var outputSchema = json.RawMessage(`{"type":"object","properties":{
"citations":{"type":"array","items":{"type":"object","properties":{
 "alias":{"type":"string"},"kind":{"type":"string","enum":["base","document","chunk"]},
 "knowledge_base":{"type":"string"},"document":{"type":"string"},"title":{"type":"string"},
 "file":{"type":"string"},"section":{"type":"string"},"score":{"type":"number"},"withheld":{"type":"boolean"}},
 "required":["alias","kind"]}},
"withheld":{"type":"array","items":{"$ref":"#/$defs/classified"}},
"served_classified":{"type":"array","items":{"$ref":"#/$defs/classified"}},
"truncated":{"type":"boolean"}},
"required":["citations","withheld"],
"$defs":{"classified":{"type":"object","properties":{
 "document":{"type":"string"},"title":{"type":"string"},"file":{"type":"string"},"rule":{"type":"string"},
 "passages":{"type":"array","items":{"type":"string"}},"allow":{"type":"string"}},
 "required":["document","rule"]}}}`)

// add offers t to MCP clients. Only a tool that reads is served: this
// server exposes nothing that writes.
func (s *Server) add(t tools.Tool) error {
	if t.Risk() != effect.RiskRead {
		return fmt.Errorf("tool %s has risk %s: only read tools are served", t.Name(), t.Risk())
	}
	var schema map[string]any
	if err := json.Unmarshal(t.Schema(), &schema); err != nil || schema["type"] != "object" {
		return fmt.Errorf("tool %s: its input schema is not a JSON object schema", t.Name())
	}
	no := false
	s.mcp.AddTool(&mcp.Tool{
		Name:         t.Name(),
		Description:  t.Description(),
		InputSchema:  t.Schema(),
		OutputSchema: outputSchema,
		Annotations: &mcp.ToolAnnotations{Title: title(t.Name()), ReadOnlyHint: true, IdempotentHint: true,
			DestructiveHint: &no, OpenWorldHint: &no},
	}, s.handler(t.Name()))
	return nil
}

func title(name string) string {
	return strings.ToUpper(name[:1]) + strings.ReplaceAll(name[1:], "_", " ")
}

// handler runs a call through the registry (arguments parsed, validated
// against the schema, the result bounded), under the server's citation
// table and a report of the classified documents the call meets.
func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := strings.TrimSpace(string(req.Params.Arguments))
		if args == "null" {
			args = ""
		}
		rep := &report{}
		ctx = withReport(cite.WithTable(ctx, s.table), rep)
		res := s.reg.Execute(ctx, llm.ToolCall{ID: "mcp", Name: name, Arguments: args})
		return s.result(name, res, rep), nil
	}
}

// result turns a tool's result into the MCP result: its text with what
// was withheld said under it, and the citations as structured content. A
// result the tool marked classified while the guard withheld nothing is
// refused whole: the guard must have missed something, and failing closed
// beats guessing.
func (s *Server) result(name string, res tools.Result, rep *report) *mcp.CallToolResult {
	cits := s.citations(res.References)
	withheld, served := rep.lists(func(doc string) []string { return passagesOf(cits, doc) })
	if res.Classified != "" && !s.cfg.ServeClassified && len(withheld) == 0 {
		s.log.Error("result refused: classified content the guard did not isolate", "tool", name, "rule", res.Classified)
		text := fmt.Sprintf("This result is withheld: it holds classified content (rule %s). The operator of this server can serve classified passages with moteur mcp serve %s.",
			publicRule(res.Classified), AllowFlag)
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}},
			StructuredContent: Output{Citations: []Citation{}, Withheld: []Classified{{Rule: publicRule(res.Classified), Allow: AllowFlag}}}}
	}
	s.logClassified(name, rep, withheld, served)
	for i := range cits {
		cits[i].Withheld = isWithheldDoc(withheld, cits[i])
	}
	out := Output{Citations: cits, Withheld: withheld, Served: served, Truncated: res.Truncated}
	if out.Withheld == nil {
		out.Withheld = []Classified{}
	}
	return &mcp.CallToolResult{IsError: res.IsError, Content: []mcp.Content{&mcp.TextContent{Text: res.Content + notes(withheld, served)}},
		StructuredContent: out}
}

// citations turns the result's references into citations, once each.
func (s *Server) citations(refs []cite.Ref) []Citation {
	out := []Citation{}
	seen := map[string]bool{}
	for _, r := range refs {
		if seen[r.Alias] || r.Alias == "" {
			continue
		}
		seen[r.Alias] = true
		c := Citation{Alias: r.Alias, Kind: r.Kind, KnowledgeBase: r.BaseName}
		if r.Kind != cite.Base {
			c.Title, c.File = r.Title, filepath.Base(r.Path)
		}
		if r.Kind == cite.Chunk {
			c.Section, c.Score = r.Headings, r.Score
			// The details the tools give a passage's document: its alias
			// is the one they gave it.
			c.Document = s.table.Alias(cite.Ref{Kind: cite.Document, ID: r.Document, Base: r.Base, BaseName: r.BaseName,
				Document: r.Document, Title: r.Title, Path: r.Path})
		}
		out = append(out, c)
	}
	return out
}

// passagesOf lists the aliases of the passages of doc among cits.
func passagesOf(cits []Citation, doc string) []string {
	var out []string
	for _, c := range cits {
		if c.Kind == cite.Chunk && c.Document == doc {
			out = append(out, c.Alias)
		}
	}
	return out
}

func isWithheldDoc(withheld []Classified, c Citation) bool {
	doc := c.Document
	if c.Kind == cite.Document {
		doc = c.Alias
	}
	if c.Kind == cite.Base {
		return false
	}
	for _, w := range withheld {
		if w.Document == doc {
			return true
		}
	}
	return false
}

// logClassified tells the operator each classified document met, with its
// full rule.
func (s *Server) logClassified(tool string, rep *report, withheld, served []Classified) {
	for _, c := range withheld {
		s.log.Warn("withheld a classified document", "tool", tool, "document", c.Document, "file", c.File,
			"rule", rep.rule(c.Document), "passages", len(c.Passages))
	}
	for _, c := range served {
		s.log.Warn("served a classified document", "tool", tool, "document", c.Document, "file", c.File,
			"rule", rep.rule(c.Document), "passages", len(c.Passages))
	}
}
