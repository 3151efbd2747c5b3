package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkSessionStart3Stdio: three stdio servers that take 50, 100 and
// 150 ms to start, started together, against the slowest alone and
// against the three one after the other. Only Start is timed.
func BenchmarkSessionStart3Stdio(b *testing.B) {
	slow := func(name string, ms int) ServerConfig {
		return testServerConfig(b, name, "ok", fmt.Sprintf("MOTEUR_MCP_TESTSERVER_DELAY_MS=%d", ms))
	}
	three := []ServerConfig{slow("a", 50), slow("b", 100), slow("c", 150)}
	run := func(b *testing.B, groups ...[]ServerConfig) {
		for b.Loop() {
			var ms []*Manager
			for _, g := range groups {
				m, err := Start(context.Background(), ManagerConfig{Servers: g, Guard: AllowAll{}, LookupEnv: testLookup, ShutdownGrace: time.Second})
				if err != nil {
					b.Fatal(err)
				}
				ms = append(ms, m)
			}
			b.StopTimer()
			for _, m := range ms {
				for _, st := range m.Status() {
					if st.State != StateConnected {
						b.Fatalf("%+v", st)
					}
				}
				m.Close()
			}
			b.StartTimer()
		}
	}
	b.Run("slowest-alone", func(b *testing.B) { run(b, three[2:]) })
	b.Run("three-parallel", func(b *testing.B) { run(b, three) })
	b.Run("three-one-after-another", func(b *testing.B) { run(b, three[:1], three[1:2], three[2:]) })
}

// BenchmarkCallOverhead: one call of a tool that does nothing, through
// the Manager over stdio, against a bare SDK session over stdio to the
// same server (the Manager's own cost is the difference) and against an
// in-process server over in-memory pipes (the protocol's floor, no
// process boundary).
func BenchmarkCallOverhead(b *testing.B) {
	args := json.RawMessage(`{}`)
	b.Run("manager-stdio", func(b *testing.B) {
		m := startTest(b, ManagerConfig{Servers: []ServerConfig{testServerConfig(b, "test", "ok")}})
		ctx := context.Background()
		for b.Loop() {
			if _, err := m.CallTool(ctx, "test", "noop", args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk-stdio", func(b *testing.B) {
		exe, _ := os.Executable()
		cmd := exec.Command(exe)
		cmd.Env = []string{"MOTEUR_MCP_TESTSERVER=ok"}
		cs := benchConnect(b, &mcpsdk.CommandTransport{Command: cmd})
		benchCalls(b, cs)
	})
	b.Run("sdk-inmemory", func(b *testing.B) {
		srv := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "s", Version: "1"}, nil)
		mcpsdk.AddTool(srv, &mcpsdk.Tool{Name: "noop"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
			return &mcpsdk.CallToolResult{}, nil, nil
		})
		st, ct := mcpsdk.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ss.Close() })
		benchCalls(b, benchConnect(b, ct))
	})
}

func benchConnect(b *testing.B, t mcpsdk.Transport) *mcpsdk.ClientSession {
	c := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "bench", Version: "1"}, &mcpsdk.ClientOptions{Capabilities: &mcpsdk.ClientCapabilities{}})
	cs, err := c.Connect(context.Background(), t, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

func benchCalls(b *testing.B, cs *mcpsdk.ClientSession) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "noop", Arguments: map[string]any{}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCall10MBResult: what a 10 MB result costs (time, and memory
// per call with -benchmem).
func BenchmarkCall10MBResult(b *testing.B) {
	m := startTest(b, ManagerConfig{Servers: []ServerConfig{testServerConfig(b, "test", "ok")}})
	args := json.RawMessage(`{"bytes":10485760}`)
	for b.Loop() {
		if _, err := m.CallTool(context.Background(), "test", "big", args); err != nil {
			b.Fatal(err)
		}
	}
}
