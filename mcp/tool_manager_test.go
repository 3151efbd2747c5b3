package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/mcp"
	"github.com/moteur/moteur/tools"
)

// The MCP tools on the real Manager, against the real npm servers.

func startManager(t *testing.T, servers ...mcp.ServerConfig) *mcp.Manager {
	t.Helper()
	m, err := mcp.Start(context.Background(), mcp.ManagerConfig{Servers: servers, Guard: mcp.AllowAll{}, LookupEnv: os.LookupEnv})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	if len(m.Down()) > 0 {
		t.Fatalf("servers down: %+v", m.Down())
	}
	return m
}

func stdioServer(t *testing.T, name, bin string, env map[string]string, args ...string) mcp.ServerConfig {
	return mcp.ServerConfig{Name: name, Transport: mcp.TransportStdio, Command: npmBin(t, bin), Args: args, Env: env,
		Source: "test", Trusted: true}
}

func TestManagerBackedToolsDirect(t *testing.T) {
	var m mcp.Backend = startManager(t, stdioServer(t, "everything", "mcp-server-everything", nil, "stdio"))
	s := newSession(t, m, mcp.ToolSetConfig{}, tools.Config{})

	names := s.reg.Names()
	for _, want := range []string{"mcp_everything_echo", "mcp_everything_get-tiny-image"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not offered: %v", want, names)
		}
	}
	if tool, _ := s.reg.Lookup("mcp_everything_toggle-simulated-logging"); tool == nil || tool.Risk() != effect.RiskWrite {
		t.Errorf("toggle-simulated-logging: %v", tool)
	}
	if r := exec1(s, "mcp_everything_echo", `{"message":"salut"}`); r.Content != "Echo: salut" {
		t.Errorf("echo: %+v", r)
	}
	img := exec1(s, "mcp_everything_get-tiny-image", `{}`)
	if len(img.Attachments) != 1 || img.Attachments[0].MIME != "image/png" {
		t.Errorf("image: %+v", img)
	}
	// The Manager does not say which servers offer resources
	// (mcp.ResourceOfferer): read_mcp_resource comes with the first link.
	_, offered := m.(mcp.ResourceOfferer)
	if !offered && slices.Contains(s.reg.Names(), "read_mcp_resource") {
		t.Error("read_mcp_resource offered before any link")
	}
	links := exec1(s, "mcp_everything_get-resource-links", `{"count":1}`)
	mustContain(t, "links", links.Content, "[resource link demo://resource/dynamic/")
	if !slices.Contains(s.reg.Names(), "read_mcp_resource") {
		t.Error("read_mcp_resource not offered after a link")
	}
	if r := exec1(s, "read_mcp_resource", `{"server":"everything","uri":"demo://resource/dynamic/text/1"}`); r.IsError || !strings.Contains(r.Content, "Resource 1") {
		t.Errorf("read_mcp_resource: %+v", r)
	}
	if r := exec1(s, "mcp_everything_gzip-file-as-resource", `{"name":"x.gz","data":"data:text/plain;base64,@@@"}`); !r.IsError {
		t.Errorf("failing tool: %+v", r)
	}

	// Progress reaches the caller through the Manager.
	var mu sync.Mutex
	var progress []tools.Progress
	ctx := tools.WithProgress(context.Background(), func(p tools.Progress) {
		mu.Lock()
		progress = append(progress, p)
		mu.Unlock()
	})
	r := s.reg.Execute(ctx, llm.ToolCall{Name: "mcp_everything_trigger-long-running-operation", Arguments: `{"duration":0.2,"steps":2}`})
	mu.Lock()
	defer mu.Unlock()
	if r.IsError || len(progress) == 0 {
		t.Errorf("long operation: %+v, progress %+v", r, progress)
	}
}

func TestManagerBackedToolsThroughTheCatalog(t *testing.T) {
	m := startManager(t,
		stdioServer(t, "everything", "mcp-server-everything", nil, "stdio"),
		stdioServer(t, "memory", "mcp-server-memory", map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}))
	s := newSession(t, m, mcp.ToolSetConfig{CatalogThreshold: 10}, tools.Config{})
	if !s.set.Catalog() {
		t.Fatalf("names = %v", s.reg.Names())
	}
	out := discover(t, s, `{"mode":"list_servers","refresh":true}`)
	if out["refresh_error"] != nil || out["total_tools"].(float64) < 20 {
		t.Errorf("list_servers = %v", out)
	}
	out = discover(t, s, `{"mode":"search","query":"delete entities"}`)
	if got := refs(out); len(got) == 0 || got[0] != "mcp_memory_delete_entities" {
		t.Errorf("search = %v", got)
	}
	if r := callMCP(s, "memory/create_entities", `{"entities":[{"name":"Moteur","entityType":"project","observations":["written in Go"]}]}`); r.IsError {
		t.Fatalf("create_entities: %+v", r)
	}
	mustContain(t, "search_nodes", callMCP(s, "mcp_memory_search_nodes", `{"query":"Moteur"}`).Content, "written in Go")
	if r := callMCP(s, "mcp_memory_search_nodes", `{"q":"Moteur"}`); !r.IsError {
		t.Errorf("arguments the schema refuses: %+v", r)
	}
}
