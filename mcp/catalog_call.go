package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
)

const callSchema = `{"type":"object","properties":{` +
	`"tool_ref":{"type":"string","description":"The tool_ref discover_mcp_tools gave (mcp_<server>_<tool>), or server/tool."},` +
	`"arguments":{"type":"object","description":"The tool's arguments, an object matching the input_schema that discover_mcp_tools describe shows."}},` +
	`"required":["tool_ref","arguments"],"additionalProperties":false}`

// callTool is call_mcp_tool: it runs the catalog tool its arguments name,
// as if the model had called that tool itself. The arguments are checked
// against that tool's schema (a refused call never reaches the server);
// its risk, summary and name are what the permission check and the
// approval prompt see (tools.RiskAssessor, tools.Summarizer, tools.Proxy).
type callTool struct{ set *ToolSet }

var (
	_ tools.RiskAssessor = (*callTool)(nil)
	_ tools.Summarizer   = (*callTool)(nil)
	_ tools.Proxy        = (*callTool)(nil)
)

func (c *callTool) Name() string            { return callToolName }
func (c *callTool) Schema() json.RawMessage { return json.RawMessage(callSchema) }
func (c *callTool) Concurrent() bool        { return false }

// Risk is the class when the call cannot be read: destructive, so that a
// policy that does not read RiskOf still asks.
func (c *callTool) Risk() effect.Risk { return effect.RiskDestructive }

func (c *callTool) Description() string {
	return "Runs one tool of the session's MCP servers, found with " + discoverToolName +
		": tool_ref as it gave it, arguments an object matching the tool's input_schema (read it with mode describe first)."
}

type callArgs struct {
	ToolRef   string          `json:"tool_ref"`
	Arguments json.RawMessage `json:"arguments"`
}

func readCallArgs(raw json.RawMessage) (callArgs, bool) {
	var a callArgs
	if json.Unmarshal(raw, &a) != nil || strings.TrimSpace(a.ToolRef) == "" {
		return callArgs{}, false
	}
	if len(bytes.TrimSpace(a.Arguments)) == 0 || string(bytes.TrimSpace(a.Arguments)) == "null" {
		a.Arguments = json.RawMessage("{}")
	}
	return a, true
}

// target is the tool the call names in the present catalog.
func (c *callTool) target(raw json.RawMessage) (callArgs, *mcpTool, bool) {
	a, ok := readCallArgs(raw)
	if !ok {
		return a, nil, false
	}
	t, ok := c.set.current().resolve(a.ToolRef)
	return a, t, ok
}

func (c *callTool) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	a, ok := readCallArgs(raw)
	if !ok {
		return errorResult("%s needs a tool_ref and arguments", callToolName), nil
	}
	snap := c.set.current()
	t, ok := snap.resolve(a.ToolRef)
	if !ok {
		return unknownTool(snap, a.ToolRef, ""), nil
	}
	// The inner registry parses, casts and validates against the tool's
	// own schema, exactly as for a direct call, then runs it.
	return c.set.inner.Execute(ctx, llm.ToolCall{Name: t.name, Arguments: string(a.Arguments)}), nil
}

// RiskOf is the named tool's risk; a call whose tool is unknown runs
// nothing, but the catalog may change before it runs, so it counts as
// destructive (fail closed).
func (c *callTool) RiskOf(raw json.RawMessage) effect.Risk {
	if _, t, ok := c.target(raw); ok {
		return t.risk
	}
	return effect.RiskDestructive
}

// Summary names the server, the tool and its arguments.
func (c *callTool) Summary(raw json.RawMessage) string {
	a, t, ok := c.target(raw)
	switch {
	case ok:
		return callSummary(t.server, t.def.Name, a.Arguments)
	case a.ToolRef != "":
		return "unknown MCP tool " + clipArgs(json.RawMessage(quoteJSON(a.ToolRef))) + ", arguments " + clipArgs(a.Arguments)
	}
	return ""
}

// ProxyFor implements tools.Proxy: the call is judged as the MCP tool it
// runs, with that tool's arguments, so that rules such as mcp_github_*
// and an organisation's denied_tools mcp_* apply through the catalog. A
// reference that names no tool is judged under an mcp_ name still.
func (c *callTool) ProxyFor(raw json.RawMessage) (string, json.RawMessage, bool) {
	a, t, ok := c.target(raw)
	switch {
	case ok:
		return t.name, a.Arguments, true
	case a.ToolRef != "":
		ref := sanitize(strings.ReplaceAll(a.ToolRef, "/", "_"))
		if !strings.HasPrefix(ref, toolPrefix) {
			ref = toolPrefix + ref
		}
		return ref, a.Arguments, true
	}
	return toolPrefix + "unknown", raw, true
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
