package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/tools"
)

// maxDescription bounds the description sent with a definition: a server
// may write pages, and every request carries them. describe gives it whole.
const maxDescription = 4000

// maxSummaryArgs bounds the arguments an approval prompt shows.
const maxSummaryArgs = 240

// mcpTool is one tool of one server as a Moteur tool. It is immutable: a
// new definition from the server is a new mcpTool.
type mcpTool struct {
	set    *ToolSet
	server string
	def    *mcpsdk.Tool
	name   string
	desc   string
	schema json.RawMessage // the input schema, with "type":"object" if it had none
	risk   effect.Risk
	defSum string // what identifies the definition, to reuse the adapter
}

var (
	_ tools.Tool       = (*mcpTool)(nil)
	_ tools.Summarizer = (*mcpTool)(nil)
)

func newMCPTool(set *ToolSet, server, name string, def *mcpsdk.Tool, defSum string) *mcpTool {
	return &mcpTool{
		set: set, server: server, def: def, name: name, defSum: defSum,
		desc:   describeTool(server, def, maxDescription),
		schema: inputSchema(def),
		risk:   riskOf(def.Annotations),
	}
}

func (t *mcpTool) Name() string            { return t.name }
func (t *mcpTool) Description() string     { return t.desc }
func (t *mcpTool) Schema() json.RawMessage { return t.schema }
func (t *mcpTool) Risk() effect.Risk       { return t.risk }

// Concurrent: a read-only tool may run beside other calls; a tool that
// changes something runs in the order the model asked.
func (t *mcpTool) Concurrent() bool { return t.risk == effect.RiskRead }

// Execute sends the call. The registry has validated args against the
// tool's own schema, so a refused call never reaches the server.
func (t *mcpTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	res, err := t.set.backend.CallTool(ctx, t.server, t.def.Name, args)
	if err != nil {
		return callError(ctx, t.server, t.def.Name, err)
	}
	return t.set.conv.result(ctx, t.server, t.def.Name, res), nil
}

// Summary implements tools.Summarizer: the approval prompt names the server
// and the tool as the server calls it, with the arguments.
func (t *mcpTool) Summary(args json.RawMessage) string {
	return callSummary(t.server, t.def.Name, args)
}

func callSummary(server, tool string, args json.RawMessage) string {
	return fmt.Sprintf("MCP server %q, tool %q, arguments %s", server, tool, clipArgs(args))
}

// clipArgs is args as compact JSON, bounded.
func clipArgs(args json.RawMessage) string {
	var b bytes.Buffer
	s := string(args)
	if json.Compact(&b, args) == nil {
		s = b.String()
	}
	if s == "" {
		s = "{}"
	}
	if utf8.RuneCountInString(s) > maxSummaryArgs {
		s = string([]rune(s)[:maxSummaryArgs-1]) + "…"
	}
	return s
}

// describeTool is the definition's description: where the tool comes
// from, then the server's words, cut at max runes.
func describeTool(server string, def *mcpsdk.Tool, max int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[MCP server %s, tool %s]", server, def.Name)
	if title := toolTitle(def); title != "" && title != def.Name {
		b.WriteString(" " + title + ".")
	}
	if d := strings.TrimSpace(def.Description); d != "" {
		b.WriteString(" " + d)
	}
	s := b.String()
	if max > 0 && utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	return s
}

func toolTitle(def *mcpsdk.Tool) string {
	if def.Title != "" {
		return def.Title
	}
	if def.Annotations != nil {
		return def.Annotations.Title
	}
	return ""
}

// inputSchema is the tool's input schema as JSON. Providers want an
// object schema: one that names no type gets "type":"object"; anything
// else is left for the registry to judge (and refuse).
func inputSchema(def *mcpsdk.Tool) json.RawMessage {
	if def.InputSchema == nil {
		return nil
	}
	raw, err := json.Marshal(def.InputSchema)
	if err != nil {
		// Not JSON: the registry refuses it with its own message.
		return json.RawMessage("<" + err.Error() + ">")
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		if _, ok := obj["type"]; !ok {
			obj["type"] = json.RawMessage(`"object"`)
			if fixed, err := json.Marshal(obj); err == nil {
				raw = fixed
			}
		}
	}
	return raw
}

// callError turns the manager's error into what the model reads. The
// caller's own cancellation and the registry's deadline stay errors, so
// the registry reports them as such.
func callError(ctx context.Context, server, tool string, err error) (tools.Result, error) {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return tools.Result{}, fmt.Errorf("MCP server %q, tool %q: %w", server, tool, err)
	}
	var msg string
	switch {
	case errors.Is(err, ErrLoginRequired):
		msg = fmt.Sprintf("The MCP server %q requires the user to log in: they must run `moteur mcp login %s`. "+
			"Tell the user; do not retry before they have. (%v)", server, server, err)
	case errors.Is(err, ErrServerDown):
		msg = fmt.Sprintf("The MCP server %q is down, so its tool %q did not run: %v. "+
			"It is restarted on the next call; retry once, or do without it.", server, tool, err)
	case errors.Is(err, ErrUnknownServer):
		msg = fmt.Sprintf("No MCP server %q is configured in this session: %v", server, err)
	default:
		msg = fmt.Sprintf("The call of the MCP tool %q on server %q failed: %v", tool, server, err)
	}
	return tools.Result{Content: msg, IsError: true}, nil
}
