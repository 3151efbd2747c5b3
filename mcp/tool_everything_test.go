package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/llm"
	mcp "github.com/moteur/moteur/mcp"
	"github.com/moteur/moteur/tools"
)

// Against the real servers of the npm registry, over stdio, behind the
// test backend (the Manager's own tests run them behind the Manager).

func npmServer(t *testing.T, b *memBackend, name, bin string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(npmBin(t, bin), args...)
	cmd.Env = append(os.Environ(), env...)
	b.connect(t, mcp.ServerInfo{Name: name, Transport: "stdio"},
		&mcpsdk.CommandTransport{Command: cmd, TerminateDuration: 200 * time.Millisecond})
}

func exec1(s *session, name, args string) tools.Result {
	return s.reg.Execute(context.Background(), llm.ToolCall{Name: name, Arguments: args})
}

func TestEverythingServer(t *testing.T) {
	b := newMemBackend()
	npmServer(t, b, "everything", "mcp-server-everything", nil, "stdio")
	s := newSession(t, b, mcp.ToolSetConfig{}, tools.Config{})

	names := s.reg.Names()
	for _, want := range []string{"mcp_everything_echo", "mcp_everything_get-tiny-image", "mcp_everything_get-resource-links",
		"mcp_everything_toggle-simulated-logging", "read_mcp_resource"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not offered: %v", want, names)
		}
	}
	for name, risk := range map[string]effect.Risk{
		"mcp_everything_echo":                     effect.RiskRead,
		"mcp_everything_toggle-simulated-logging": effect.RiskWrite,
	} {
		if tool, _ := s.reg.Lookup(name); tool == nil || tool.Risk() != risk {
			t.Errorf("%s: risk %v, want %s", name, tool, risk)
		}
	}

	if r := exec1(s, "mcp_everything_echo", `{"message":"bonjour"}`); r.IsError || r.Content != "Echo: bonjour" {
		t.Errorf("echo: %+v", r)
	}
	sent := b.calls("everything")
	if r := exec1(s, "mcp_everything_echo", `{"text":"bonjour"}`); !r.IsError || !strings.Contains(r.Content, "message") {
		t.Errorf("echo without its required argument: %+v", r)
	}
	if b.calls("everything") != sent {
		t.Error("a call the schema refused was sent")
	}

	img := exec1(s, "mcp_everything_get-tiny-image", `{}`)
	if len(img.Attachments) != 1 || img.Attachments[0].MIME != "image/png" {
		t.Fatalf("image: %+v", img)
	}
	if data, err := s.blob.Get(context.Background(), img.Attachments[0].SHA256); err != nil || !strings.HasPrefix(string(data), "\x89PNG") {
		t.Errorf("the image was not kept: %v", err)
	}
	mustContain(t, "image", img.Content, "[image image/png, 4 KB, sha256 "+img.Attachments[0].SHA256[:12]+"]")

	links := exec1(s, "mcp_everything_get-resource-links", `{"count":2}`)
	mustContain(t, "links", links.Content, "[resource link demo://resource/dynamic/text/2", `read it with read_mcp_resource {"server":"everything","uri":"demo://resource/dynamic/text/2"}`)
	res := exec1(s, "read_mcp_resource", `{"server":"everything","uri":"demo://resource/dynamic/text/2"}`)
	mustContain(t, "resource", res.Content, "[resource demo://resource/dynamic/text/2 (text/plain)]", "Resource 2")

	st := exec1(s, "mcp_everything_get-structured-content", `{"location":"Chicago"}`)
	mustContain(t, "structured", st.Content, `"temperature"`)

	fail := exec1(s, "mcp_everything_gzip-file-as-resource", `{"name":"x.gz","data":"data:text/plain;base64,@@@"}`)
	if !fail.IsError {
		t.Errorf("a failing tool: %+v", fail)
	}
	mustContain(t, "failing tool", fail.Content, `The MCP tool "gzip-file-as-resource" of server "everything" reported an error`)
}

func TestEverythingAndMemoryThroughTheCatalog(t *testing.T) {
	b := newMemBackend()
	npmServer(t, b, "everything", "mcp-server-everything", nil, "stdio")
	npmServer(t, b, "memory", "mcp-server-memory", []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")})
	s := newSession(t, b, mcp.ToolSetConfig{CatalogThreshold: 10}, tools.Config{})
	if !s.set.Catalog() {
		t.Fatalf("over 10 tools, names %v", s.reg.Names())
	}
	out := discover(t, s, `{"mode":"search","query":"delete entities"}`)
	if got := refs(out); len(got) == 0 || got[0] != "mcp_memory_delete_entities" {
		t.Errorf("search = %v", got)
	}
	call, _ := s.reg.Lookup("call_mcp_tool")
	risk := call.(tools.RiskAssessor).RiskOf([]byte(`{"tool_ref":"mcp_memory_delete_entities","arguments":{"entityNames":["x"]}}`))
	if risk != effect.RiskDestructive {
		t.Errorf("delete_entities: risk %s", risk)
	}
	r := callMCP(s, "mcp_memory_create_entities", `{"entities":[{"name":"Moteur","entityType":"project","observations":["written in Go"]}]}`)
	if r.IsError {
		t.Fatalf("create_entities: %+v", r)
	}
	r = callMCP(s, "memory/search_nodes", `{"query":"Moteur"}`)
	mustContain(t, "search_nodes", r.Content, "written in Go")
}
