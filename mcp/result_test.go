package mcp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/llm"
	mcp "github.com/moteur/moteur/mcp"
	"github.com/moteur/moteur/tools"
)

var pngBytes = []byte("\x89PNG\r\n\x1a\n fake image bytes")

// mediaServer returns one kind of content per tool.
func mediaServer() *mcpsdk.Server {
	srv := newServer("media")
	reply := func(name string, r *mcpsdk.CallToolResult) {
		addTool(srv, nil, &mcpsdk.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(json.RawMessage) *mcpsdk.CallToolResult { return r })
	}
	reply("text", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "one"}, &mcpsdk.TextContent{Text: "two"}}})
	reply("structured_echoed", &mcpsdk.CallToolResult{
		Content:           []mcpsdk.Content{&mcpsdk.TextContent{Text: `{"sum": 3}`}},
		StructuredContent: map[string]any{"sum": 3},
	})
	reply("structured_only", &mcpsdk.CallToolResult{
		Content:           []mcpsdk.Content{&mcpsdk.TextContent{Text: "the sum"}},
		StructuredContent: map[string]any{"sum": 3, "parts": []int{1, 2}},
	})
	reply("image", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{
		&mcpsdk.TextContent{Text: "here"}, &mcpsdk.ImageContent{Data: pngBytes, MIMEType: "image/png"}}})
	reply("embedded", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{
		&mcpsdk.EmbeddedResource{Resource: &mcpsdk.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "A's text"}},
		&mcpsdk.EmbeddedResource{Resource: &mcpsdk.ResourceContents{URI: "file:///b.pdf", MIMEType: "application/pdf", Blob: []byte("%PDF-1.4")}},
		&mcpsdk.EmbeddedResource{Resource: &mcpsdk.ResourceContents{URI: "file:///c.png", MIMEType: "image/png", Blob: pngBytes}},
	}})
	reply("link", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{
		&mcpsdk.ResourceLink{URI: "note://1", Name: "note-1", MIMEType: "text/plain", Description: "The first note"}}})
	reply("fails", &mcpsdk.CallToolResult{IsError: true, Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "no such repo"}}})
	reply("empty", &mcpsdk.CallToolResult{})
	reply("big", &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: strings.Repeat("x", 5000)}}})
	return srv
}

func call(t *testing.T, s *session, name string) tools.Result {
	t.Helper()
	return s.reg.Execute(context.Background(), llm.ToolCall{Name: name, Arguments: `{}`})
}

func TestResultContentKinds(t *testing.T) {
	b := newMemBackend()
	b.serve(t, "media", mediaServer())
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{MaxOutput: 1000})

	if r := call(t, s, "mcp_media_text"); r.Content != "one\n\ntwo" || r.IsError {
		t.Errorf("text: %+v", r)
	}
	if r := call(t, s, "mcp_media_structured_echoed"); r.Content != `{"sum": 3}` {
		t.Errorf("structured content repeated in text shown twice: %q", r.Content)
	}
	r := call(t, s, "mcp_media_structured_only")
	mustContain(t, "structured", r.Content, "the sum", "Structured content:\n{\n  \"parts\": [\n    1,")

	r = call(t, s, "mcp_media_fails")
	if !r.IsError {
		t.Error("isError did not make an error result")
	}
	mustContain(t, "error result", r.Content, `The MCP tool "fails" of server "media" reported an error`, "no such repo")

	if r := call(t, s, "mcp_media_empty"); r.IsError || r.Content != "(the tool returned no content)" {
		t.Errorf("empty: %+v", r)
	}
	r = call(t, s, "mcp_media_big")
	if !r.Truncated || len([]rune(r.Content)) > 1100 {
		t.Errorf("the registry's truncation did not apply: truncated %v, %d runes", r.Truncated, len([]rune(r.Content)))
	}
}

func TestImageIsKeptAsAnAttachment(t *testing.T) {
	b := newMemBackend()
	b.serve(t, "media", mediaServer())
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{})
	r := call(t, s, "mcp_media_image")
	sum := sha256.Sum256(pngBytes)
	hexSum := hex.EncodeToString(sum[:])
	if len(r.Attachments) != 1 {
		t.Fatalf("attachments = %+v", r.Attachments)
	}
	a := r.Attachments[0]
	if a.MIME != "image/png" || a.SHA256 != hexSum || a.Size != int64(len(pngBytes)) {
		t.Errorf("attachment = %+v", a)
	}
	stored, err := s.blob.Get(context.Background(), hexSum)
	if err != nil || string(stored) != string(pngBytes) {
		t.Errorf("blob = %q, %v", stored, err)
	}
	mustContain(t, "image result", r.Content, "here", "[image image/png, 25 bytes, sha256 "+hexSum[:12]+"]")
}

func TestImageWithoutBlobsIsDescribedNotKept(t *testing.T) {
	b := newMemBackend()
	b.serve(t, "media", mediaServer())
	s := newSession(t, b, mcp.ToolSetConfig{MaxAttachment: 10}, tools.Config{})
	r := call(t, s, "mcp_media_image")
	if len(r.Attachments) != 0 {
		t.Errorf("an image over MaxAttachment was kept: %+v", r.Attachments)
	}
	mustContain(t, "image result", r.Content, "not kept: larger than 10 bytes")
}

func TestEmbeddedResources(t *testing.T) {
	b := newMemBackend()
	b.serve(t, "media", mediaServer())
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{})
	r := call(t, s, "mcp_media_embedded")
	mustContain(t, "embedded", r.Content,
		"[resource file:///a.txt (text/plain)]\nA's text",
		"[resource file:///b.pdf (application/pdf): 8 bytes of binary data, sha256 ",
		"[image image/png, 25 bytes, sha256 ", ", from file:///c.png]")
	if len(r.Attachments) != 1 || r.Attachments[0].Name != "file:///c.png" {
		t.Errorf("attachments = %+v", r.Attachments)
	}
}

// notesServer offers resources (the capability) and a tool that links to
// one.
func notesServer() *mcpsdk.Server {
	srv := newServer("notes")
	srv.AddResource(&mcpsdk.Resource{URI: "note://1", Name: "note-1", MIMEType: "text/plain"},
		func(_ context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
			return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "first note text"}}}, nil
		})
	srv.AddResource(&mcpsdk.Resource{URI: "note://pic", Name: "pic", MIMEType: "image/png"},
		func(_ context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
			return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: pngBytes}}}, nil
		})
	return srv
}

func TestResourceLinkIsReadOnDemand(t *testing.T) {
	// media has no resources capability: read_mcp_resource appears once a
	// result linked to a resource.
	b := newMemBackend()
	b.serve(t, "media", mediaServer())
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{})
	if slices.Contains(s.reg.Names(), "read_mcp_resource") {
		t.Fatal("read_mcp_resource offered with no resource in sight")
	}
	r := call(t, s, "mcp_media_link")
	mustContain(t, "link", r.Content, "[resource link note://1 (note-1, text/plain): The first note; read it with read_mcp_resource {\"server\":\"media\",\"uri\":\"note://1\"}]")
	if !slices.Contains(s.reg.Names(), "read_mcp_resource") {
		t.Fatal("read_mcp_resource not offered after a link")
	}
	// media cannot read it: the server's error is the model's to see.
	res := s.reg.Execute(context.Background(), llm.ToolCall{Name: "read_mcp_resource", Arguments: `{"server":"media","uri":"note://1"}`})
	if !res.IsError {
		t.Errorf("reading from a server without resources: %+v", res)
	}
}

func TestReadResource(t *testing.T) {
	b := newMemBackend()
	b.serve(t, "notes", notesServer())
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{})
	if !slices.Contains(s.reg.Names(), "read_mcp_resource") {
		t.Fatalf("a server with resources: names %v", s.reg.Names())
	}
	read := func(args string) tools.Result {
		return s.reg.Execute(context.Background(), llm.ToolCall{Name: "read_mcp_resource", Arguments: args})
	}
	if r := read(`{"server":"notes","uri":"note://1"}`); r.IsError || r.Content != "[resource note://1 (text/plain)]\nfirst note text" {
		t.Errorf("text resource: %+v", r)
	}
	r := read(`{"server":"notes","uri":"note://pic"}`)
	if len(r.Attachments) != 1 || r.Attachments[0].MIME != "image/png" {
		t.Errorf("image resource: %+v", r)
	}
	if r := read(`{"server":"nope","uri":"note://1"}`); !r.IsError || !strings.Contains(r.Content, `unknown server_id "nope"; servers: notes`) {
		t.Errorf("unknown server: %+v", r)
	}
	tool, _ := s.reg.Lookup("read_mcp_resource")
	if got := tool.(tools.Summarizer).Summary(json.RawMessage(`{"server":"notes","uri":"note://1"}`)); got != `MCP server "notes", read resource "note://1"` {
		t.Errorf("summary = %q", got)
	}
	name, _, _ := tool.(tools.Proxy).ProxyFor(json.RawMessage(`{"server":"notes","uri":"note://1"}`))
	if name != "mcp_notes_read_resource" {
		t.Errorf("judged as %q", name)
	}
}
