package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/tools"
)

// resourceToolName reads what a result linked to, on demand: a link costs
// a line, its content only when the model wants it.
const resourceToolName = "read_mcp_resource"

const resourceSchema = `{"type":"object","properties":{` +
	`"server":{"type":"string","description":"The MCP server that offers the resource (the server of the result that linked to it)."},` +
	`"uri":{"type":"string","description":"The resource's URI, as the link gave it."}},` +
	`"required":["server","uri"],"additionalProperties":false}`

// resourceTool is read_mcp_resource. It is offered once a server says it
// has resources (ResourceOfferer) or a result linked to one.
type resourceTool struct{ set *ToolSet }

var (
	_ tools.Summarizer = (*resourceTool)(nil)
	_ tools.Proxy      = (*resourceTool)(nil)
)

func (r *resourceTool) Name() string            { return resourceToolName }
func (r *resourceTool) Schema() json.RawMessage { return json.RawMessage(resourceSchema) }
func (r *resourceTool) Risk() effect.Risk       { return effect.RiskRead }
func (r *resourceTool) Concurrent() bool        { return true }

func (r *resourceTool) Description() string {
	return "Reads a resource of an MCP server: a resource link in a tool's result, or a resource the server offers. " +
		"Text is shown; images and other binary content are described."
}

type resourceArgs struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

func (r *resourceTool) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a resourceArgs
	if err := json.Unmarshal(raw, &a); err != nil || a.Server == "" || strings.TrimSpace(a.URI) == "" {
		return errorResult("%s needs a server and a uri", resourceToolName), nil
	}
	snap := r.set.current()
	if _, ok := snap.server(a.Server); !ok {
		return unknownServer(snap, a.Server), nil
	}
	res, err := r.set.backend.ReadResource(ctx, a.Server, a.URI)
	if err != nil {
		return callError(ctx, a.Server, "resources/read "+a.URI, err)
	}
	if res == nil {
		return errorResult("The MCP server %q returned nothing for %s.", a.Server, a.URI), nil
	}
	var out tools.Result
	var parts []string
	for _, c := range res.Contents {
		parts = append(parts, r.set.conv.resource(ctx, c, &out))
	}
	out.Content = strings.Join(nonEmptyParts(parts), "\n\n")
	if out.Content == "" {
		out.Content = fmt.Sprintf("The resource %s of server %q is empty.", a.URI, a.Server)
	}
	return out, nil
}

// Summary names the server and the URI.
func (r *resourceTool) Summary(raw json.RawMessage) string {
	var a resourceArgs
	if json.Unmarshal(raw, &a) != nil || a.Server == "" {
		return ""
	}
	return fmt.Sprintf("MCP server %q, read resource %s", a.Server, clipArgs(json.RawMessage(quoteJSON(a.URI))))
}

// ProxyFor implements tools.Proxy: a resource read is judged as
// mcp_<server>_read_resource, so that the rules on the server's tools
// (mcp_github_*) and an organisation's denied_tools mcp_* cover it.
func (r *resourceTool) ProxyFor(raw json.RawMessage) (string, json.RawMessage, bool) {
	var a resourceArgs
	if json.Unmarshal(raw, &a) != nil || a.Server == "" {
		return toolPrefix + "unknown", raw, true
	}
	return ToolName(a.Server, "read_resource"), raw, true
}
