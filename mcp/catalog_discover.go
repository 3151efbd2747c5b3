package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/tools"
)

// Names of the catalog tools (seed 000).
const (
	discoverToolName = "discover_mcp_tools"
	callToolName     = "call_mcp_tool"
)

// Page sizes of discover_mcp_tools.
const (
	defaultListLimit    = 20
	defaultSearchLimit  = 10
	maxLimit            = 50
	maxLineDescription  = 160 // a listing's one-line description, in runes
	maxServersDescribed = 20  // servers named in the tool's description
)

const discoverSchema = `{"type":"object","properties":{` +
	`"mode":{"type":"string","enum":["list_servers","list_tools","describe","search"],"description":"list_servers: the servers and their tool counts; list_tools: one server's tools (server_id), a page at a time; describe: one tool's full definition (tool_name, with server_id or as a tool_ref); search: tools of every server ranked for query."},` +
	`"server_id":{"type":"string","description":"A server, as list_servers names it. Required by list_tools; narrows search."},` +
	`"tool_name":{"type":"string","description":"describe: the tool's name on its server (with server_id) or its tool_ref."},` +
	`"query":{"type":"string","description":"search: words of what the tool should do."},` +
	`"cursor":{"type":"string","description":"The next_cursor of the previous page of the same listing."},` +
	`"limit":{"type":"integer","minimum":1,"maximum":50,"description":"Items per page (list_tools 20, search 10 by default)."},` +
	`"refresh":{"type":"boolean","description":"List the servers' tools again first (after a server changed)."}},` +
	`"required":["mode"],"additionalProperties":false}`

// discoverTool is discover_mcp_tools: the catalog of a session whose
// servers offer too many tools to send every definition.
type discoverTool struct{ set *ToolSet }

func (d *discoverTool) Name() string            { return discoverToolName }
func (d *discoverTool) Schema() json.RawMessage { return json.RawMessage(discoverSchema) }
func (d *discoverTool) Risk() effect.Risk       { return effect.RiskRead }
func (d *discoverTool) Concurrent() bool        { return true }

// Description names the servers, so that the model can often skip
// list_servers. It changes only with the servers' tool lists, which is
// when the registry rebuilds the definitions anyway.
func (d *discoverTool) Description() string {
	var b strings.Builder
	b.WriteString("Finds the tools of the session's MCP servers, which are too many to list here. " +
		"Search by what you need (mode search, query), or browse a server (list_tools), then read the chosen tool's " +
		"input schema (describe) and run it with " + callToolName + " (tool_ref, arguments).")
	if snap := d.set.latest(); snap != nil && len(snap.servers) > 0 {
		b.WriteString(" Servers:")
		for i, info := range snap.servers {
			if i == maxServersDescribed {
				fmt.Fprintf(&b, " and %d more", len(snap.servers)-i)
				break
			}
			fmt.Fprintf(&b, " %s (%d tools)", info.Name, snap.counts[info.Name])
			if i < len(snap.servers)-1 && i < maxServersDescribed-1 {
				b.WriteByte(',')
			}
		}
		b.WriteByte('.')
	}
	return b.String()
}

type discoverArgs struct {
	Mode     string `json:"mode"`
	ServerID string `json:"server_id"`
	ToolName string `json:"tool_name"`
	Query    string `json:"query"`
	Cursor   string `json:"cursor"`
	Limit    int    `json:"limit"`
	Refresh  bool   `json:"refresh"`
}

func (d *discoverTool) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a discoverArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return errorResult("%s: %v", discoverToolName, err), nil
	}
	var refreshErr string
	if a.Refresh {
		if err := d.set.backend.Refresh(ctx, a.ServerID); err != nil {
			if ctx.Err() != nil {
				return tools.Result{}, err
			}
			refreshErr = err.Error()
		}
	}
	snap := d.set.current()
	var out any
	var res tools.Result
	switch a.Mode {
	case "list_servers":
		out = d.listServers(snap)
	case "list_tools":
		out, res = d.listTools(snap, a)
	case "describe":
		out, res = d.describe(snap, a)
	case "search":
		out, res = d.search(snap, a)
	default:
		res = errorResult("unknown mode %q: use list_servers, list_tools, describe or search", a.Mode)
	}
	if res.IsError {
		return res, nil
	}
	if refreshErr != "" {
		out = withField(out, "refresh_error", refreshErr)
	}
	return tools.Result{Content: toJSON(out)}, nil
}

type serverLine struct {
	ServerID  string `json:"server_id"`
	Transport string `json:"transport,omitempty"`
	Tools     int    `json:"tools"`
}

func (d *discoverTool) listServers(snap *snapshot) any {
	lines := make([]serverLine, 0, len(snap.servers))
	for _, info := range snap.servers {
		lines = append(lines, serverLine{ServerID: info.Name, Transport: info.Transport, Tools: snap.counts[info.Name]})
	}
	return map[string]any{"servers": lines, "total_tools": len(snap.tools),
		"next": "list_tools with a server_id, or search with a query"}
}

type toolLine struct {
	ToolRef     string `json:"tool_ref"`
	ServerID    string `json:"server_id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Risk        string `json:"risk"`
}

func toolLineOf(t *mcpTool) toolLine {
	return toolLine{ToolRef: t.name, ServerID: t.server, Name: t.def.Name, Description: oneLine(t.def.Description), Risk: string(t.risk)}
}

func (d *discoverTool) listTools(snap *snapshot, a discoverArgs) (any, tools.Result) {
	if a.ServerID == "" {
		return nil, errorResult("mode list_tools needs a server_id; servers: %s", strings.Join(snap.serverNames(), ", "))
	}
	if _, ok := snap.server(a.ServerID); !ok {
		return nil, unknownServer(snap, a.ServerID)
	}
	after := ""
	if a.Cursor != "" {
		c, err := readCursor(a.Cursor, "list", a.ServerID)
		if err != nil {
			return nil, errorResult("%v", err)
		}
		after = c
	}
	limit := pageLimit(a.Limit, defaultListLimit)
	var page []toolLine
	next := ""
	for _, t := range snap.tools {
		if t.server != a.ServerID || t.name <= after {
			continue
		}
		if len(page) == limit {
			next = makeCursor("list", a.ServerID, page[len(page)-1].ToolRef)
			break
		}
		page = append(page, toolLineOf(t))
	}
	out := map[string]any{"server_id": a.ServerID, "tools": nonNil(page), "total": snap.counts[a.ServerID]}
	if next != "" {
		out["next_cursor"] = next
	}
	return out, tools.Result{}
}

func (d *discoverTool) describe(snap *snapshot, a discoverArgs) (any, tools.Result) {
	if a.ToolName == "" {
		return nil, errorResult("mode describe needs a tool_name (with server_id) or a tool_ref as tool_name")
	}
	var t *mcpTool
	if a.ServerID != "" {
		if _, ok := snap.server(a.ServerID); !ok {
			return nil, unknownServer(snap, a.ServerID)
		}
		t = snap.byKey[toolKey{a.ServerID, a.ToolName}]
	}
	if t == nil {
		if r, ok := snap.resolve(a.ToolName); ok && (a.ServerID == "" || r.server == a.ServerID) {
			t = r
		}
	}
	if t == nil {
		return nil, unknownTool(snap, a.ToolName, a.ServerID)
	}
	return describeOut(t), tools.Result{}
}

func describeOut(t *mcpTool) any {
	out := map[string]any{
		"tool_ref":     t.name,
		"server_id":    t.server,
		"tool_name":    t.def.Name,
		"description":  t.def.Description,
		"risk":         string(t.risk),
		"input_schema": json.RawMessage(compactJSON(t.schema)),
		"call":         fmt.Sprintf(`%s {"tool_ref":%q,"arguments":{…}}`, callToolName, t.name),
	}
	if title := toolTitle(t.def); title != "" {
		out["title"] = title
	}
	if t.def.Annotations != nil {
		out["annotations"] = annotationsOut(t.def.Annotations)
	}
	if t.def.OutputSchema != nil {
		if raw, err := json.Marshal(t.def.OutputSchema); err == nil {
			out["output_schema"] = json.RawMessage(raw)
		}
	}
	return out
}

// annotationsOut shows the hints the server set, as it set them.
func annotationsOut(a *mcpsdk.ToolAnnotations) map[string]any {
	out := map[string]any{"readOnlyHint": a.ReadOnlyHint, "idempotentHint": a.IdempotentHint}
	if a.DestructiveHint != nil {
		out["destructiveHint"] = *a.DestructiveHint
	}
	if a.OpenWorldHint != nil {
		out["openWorldHint"] = *a.OpenWorldHint
	}
	return out
}

func (d *discoverTool) search(snap *snapshot, a discoverArgs) (any, tools.Result) {
	if strings.TrimSpace(a.Query) == "" {
		return nil, errorResult("mode search needs a query: words of what the tool should do")
	}
	if a.ServerID != "" {
		if _, ok := snap.server(a.ServerID); !ok {
			return nil, unknownServer(snap, a.ServerID)
		}
	}
	offset := 0
	if a.Cursor != "" {
		c, err := readCursor(a.Cursor, "search", a.ServerID+"\x00"+a.Query)
		if err != nil {
			return nil, errorResult("%v", err)
		}
		offset, _ = strconv.Atoi(c)
	}
	hits := snap.searchIndex().search(a.Query, a.ServerID)
	limit := pageLimit(a.Limit, defaultSearchLimit)
	out := map[string]any{"query": a.Query, "total": len(hits)}
	var page []toolLine
	for i := offset; i < len(hits) && len(page) < limit; i++ {
		page = append(page, toolLineOf(hits[i].t))
	}
	out["tools"] = nonNil(page)
	if end := offset + len(page); end < len(hits) {
		out["next_cursor"] = makeCursor("search", a.ServerID+"\x00"+a.Query, strconv.Itoa(end))
	}
	if len(hits) == 0 {
		out["hint"] = "nothing matched: try other words, or list_servers and list_tools"
	}
	return out, tools.Result{}
}

func (snap *snapshot) searchIndex() *searchIndex {
	snap.indexOnce.Do(func() { snap.index = newSearchIndex(snap.tools) })
	return snap.index
}

// Cursors are opaque to the model and tied to the listing they page: a
// cursor of another listing is refused rather than read wrong.
func makeCursor(kind, scope, pos string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + "\x00" + scope + "\x00" + pos))
}

func readCursor(c, kind, scope string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	prefix := kind + "\x00" + scope + "\x00"
	if err != nil || !strings.HasPrefix(string(raw), prefix) {
		return "", fmt.Errorf("cursor %q is not a next_cursor of this listing: pass the next_cursor of the previous page, with the same mode, server_id and query", c)
	}
	return string(raw[len(prefix):]), nil
}

func pageLimit(n, def int) int {
	if n <= 0 {
		return def
	}
	return min(n, maxLimit)
}

func unknownServer(snap *snapshot, name string) tools.Result {
	names := snap.serverNames()
	list := strings.Join(names, ", ")
	if len(names) == 0 {
		list = "(none connected)"
	}
	return errorResult("unknown server_id %q; servers: %s", name, list)
}

// unknownTool says so and offers the closest names.
func unknownTool(snap *snapshot, ref, server string) tools.Result {
	msg := fmt.Sprintf("no MCP tool %q", ref)
	if server != "" {
		msg += fmt.Sprintf(" on server %q", server)
	}
	if hits := snap.searchIndex().search(strings.ReplaceAll(ref, "/", " "), ""); len(hits) > 0 {
		var refs []string
		for i := 0; i < len(hits) && i < 3; i++ {
			refs = append(refs, hits[i].t.name)
		}
		msg += "; did you mean " + strings.Join(refs, ", ") + "?"
	}
	return errorResult("%s Use %s (mode search or list_tools) to find the tool_ref.", msg+".", discoverToolName)
}

func errorResult(format string, args ...any) tools.Result {
	return tools.Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// oneLine is a description's first line, bounded.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if utf8.RuneCountInString(s) > maxLineDescription {
		s = string([]rune(s)[:maxLineDescription-1]) + "…"
	}
	return s
}

func toJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("(could not encode the listing: %v)", err)
	}
	return strings.TrimRight(b.String(), "\n")
}

func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return []byte(`{}`)
	}
	return b.Bytes()
}

func withField(v any, k string, val any) any {
	if m, ok := v.(map[string]any); ok {
		m[k] = val
	}
	return v
}

func nonNil(ts []toolLine) []toolLine {
	if ts == nil {
		return []toolLine{}
	}
	return ts
}
