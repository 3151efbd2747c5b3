package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// noteServer is a streamable HTTP MCP server with one tool, note, that
// counts the HTTP requests it receives and the calls that reach the tool.
type noteServer struct {
	url           string
	hits, calls   atomic.Int32
	lastArguments atomic.Value // string
}

func newNoteServer(t *testing.T) *noteServer {
	t.Helper()
	ns := &noteServer{}
	srv := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "notes", Version: "1"}, nil)
	type noteArgs struct {
		Text string `json:"text"`
	}
	mcpsdk.AddTool(srv, &mcpsdk.Tool{Name: "note", Description: "keeps a note"},
		func(_ context.Context, _ *mcpsdk.CallToolRequest, in noteArgs) (*mcpsdk.CallToolResult, any, error) {
			ns.calls.Add(1)
			ns.lastArguments.Store(in.Text)
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "noted"}}}, nil, nil
		})
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ns.hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	ns.url = hs.URL + "/mcp"
	return ns
}

// TestMCPHTTPServerOutsideTheAllowlistGetsNoConnection: a session whose
// allowlist does not hold an HTTP MCP server's host reports it down, saying
// which rule, and the server receives nothing; allowed, the same server is
// reached and its tool offered.
func TestMCPHTTPServerOutsideTheAllowlistGetsNoConnection(t *testing.T) {
	ns := newNoteServer(t)
	srv := openaitest.NewServer(t, openaitest.Answer("one"), openaitest.Answer("two"))
	h := newHarness(t, srv.BaseURL())
	h.writeUserMCP(t, `{"mcpServers": {"notes": {"type": "http", "url": `+jsonString(ns.url)+`}}}`)
	// The model's own host and port only: the MCP server listens on
	// another port of the same address.
	h.writeProjectConfig(t, "allowlist: [\""+hostPort(t, srv.BaseURL())+"\"]\n")
	res, evs := h.runJSON(t, "hello")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	down := payloads[event.McpServerDownPayload](evs)
	if len(down) != 1 || down[0].Name != "notes" || !strings.Contains(down[0].Error, "allowlist") {
		t.Fatalf("McpServerDown = %+v", down)
	}
	if n := ns.hits.Load(); n != 0 {
		t.Fatalf("the refused server got %d requests", n)
	}
	h.writeProjectConfig(t, "allowlist: [127.0.0.1]\n")
	if res, _ := h.runJSON(t, "hello"); res.code != 0 || ns.hits.Load() == 0 {
		t.Fatalf("allowed: exit %d, %d requests: %s", res.code, ns.hits.Load(), res.stderr)
	}
	if tools := srv.Requests()[1].Tools; !strings.Contains(strings.Join(tools, " "), "mcp_notes_note") {
		t.Fatalf("allowed, the tool was not offered: %v", tools)
	}
}

// TestMCPArgumentsWithAMarkingDoNotReachARemoteServer: a call whose
// arguments carry a classification marking is refused before it is sent
// to a server not declared local — the model gets the refusal and the
// server no call — while a call without one reaches it, and a server
// declared local receives the marked text.
func TestMCPArgumentsWithAMarkingDoNotReachARemoteServer(t *testing.T) {
	for _, local := range []bool{false, true} {
		ns := newNoteServer(t)
		srv := openaitest.NewServer(t,
			openaitest.Calls("call_1", "mcp_notes_note", `{"text":"plain words"}`),
			openaitest.Calls("call_2", "mcp_notes_note", `{"text":"DIFFUSION RESTREINTE: the plan"}`),
			openaitest.Answer("done"))
		h := newHarness(t, srv.BaseURL())
		extra := ""
		if local {
			extra = `, "local": true`
		}
		h.writeUserMCP(t, `{"mcpServers": {"notes": {"type": "http", "url": `+jsonString(ns.url)+extra+`}}}`)
		res, evs := h.runJSON(t, "take notes")
		if res.code != 0 {
			t.Fatalf("local=%v: exit %d: %s", local, res.code, res.stderr)
		}
		results := payloads[event.ToolResultPayload](evs)
		if len(results) != 2 || results[0].IsError {
			t.Fatalf("local=%v: results %+v", local, results)
		}
		switch {
		case !local && (!results[1].IsError || !strings.Contains(results[1].Content, "classification") || ns.calls.Load() != 1):
			t.Fatalf("remote: the marked call was not refused before it was sent: %+v, %d calls", results[1], ns.calls.Load())
		case local && (results[1].IsError || ns.calls.Load() != 2 || !strings.Contains(ns.lastArguments.Load().(string), "RESTREINTE")):
			t.Fatalf("local: the marked call did not reach the server: %+v, %d calls", results[1], ns.calls.Load())
		}
		srv.CheckPairing(t)
	}
}

// hostPort is the host:port of a URL.
func hostPort(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
