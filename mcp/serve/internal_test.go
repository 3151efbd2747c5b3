package serve

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/effect"
	kbs "github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/tools"
)

// writer is a tool that writes.
type writer struct{}

func (writer) Name() string            { return "write_note" }
func (writer) Description() string     { return "writes" }
func (writer) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (writer) Risk() effect.Risk       { return effect.RiskWrite }
func (writer) Concurrent() bool        { return false }
func (writer) Execute(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{Content: "written"}, nil
}

func TestOnlyReadToolsAreServed(t *testing.T) {
	s := &Server{mcp: mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)}
	err := s.add(writer{})
	if err == nil || !strings.Contains(err.Error(), "only read tools") {
		t.Fatalf("add(a write tool) = %v, want a refusal", err)
	}
}

func TestClassifiedResultTheGuardMissedIsRefusedWhole(t *testing.T) {
	s := &Server{log: discard()}
	res := s.result("search_knowledge", tools.Result{Content: "le texte classifié", Classified: "path:secret/**"}, &report{})
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || strings.Contains(text, "le texte classifié") || !strings.Contains(text, AllowFlag) {
		t.Fatalf("result = %+v %q: want the whole result withheld, saying how to allow it", res, text)
	}
	// The same result with the withholding recorded passes.
	rep := &report{}
	rep.withhold(context.Background(), docInfo("d-1", "secret/x.md"), verdict{rule: "path:secret/**"})
	res = s.result("search_knowledge", tools.Result{Content: "[withheld…]", Classified: "path:secret/**"}, rep)
	if res.IsError {
		t.Fatalf("a result whose classified document was withheld is refused: %+v", res)
	}
}

func TestListenAddr(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		loopback bool
	}{
		{":8765", "127.0.0.1:8765", true},
		{"localhost:1", "localhost:1", true},
		{"127.0.0.2:1", "127.0.0.2:1", true},
		{"[::1]:1", "[::1]:1", true},
		{"0.0.0.0:8765", "0.0.0.0:8765", false},
		{"[::]:8765", "[::]:8765", false},
		{"192.168.1.5:80", "192.168.1.5:80", false},
		{"myhost:80", "myhost:80", false},
	} {
		got, lb, err := ListenAddr(tc.in)
		if err != nil || got != tc.want || lb != tc.loopback {
			t.Errorf("ListenAddr(%q) = %q, %v, %v; want %q, %v", tc.in, got, lb, err, tc.want, tc.loopback)
		}
	}
	for _, bad := range []string{"8765", "", "host:", "a:b:c"} {
		if _, _, err := ListenAddr(bad); err == nil {
			t.Errorf("ListenAddr(%q) accepted", bad)
		}
	}
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func docInfo(id, path string) kbs.DocInfo { return kbs.DocInfo{ID: id, Path: path, Title: "x"} }

// FuzzListenAddr checks that any --http value gets an address or a clear
// error, never a panic, and that a resolved address names its host.
func FuzzListenAddr(f *testing.F) {
	for _, s := range []string{":8765", "0.0.0.0:1", "[::1]:2", "localhost:3", "x", "", "[::1", "::1:80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _, err := ListenAddr(s)
		if err != nil {
			if !strings.Contains(err.Error(), "--http") {
				t.Fatalf("error %q does not name the flag", err)
			}
			return
		}
		if host, port, err := net.SplitHostPort(got); err != nil || host == "" || port == "" {
			t.Fatalf("ListenAddr(%q) = %q: not HOST:PORT (%v)", s, got, err)
		}
	})
}
