package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary is also the test MCP server: run with
// MOTEUR_MCP_TESTSERVER=<mode> it serves instead of testing (an init, not
// a TestMain, so that the package's other tests keep theirs free).
//
// Modes: ok (a go-sdk server whose tools are below), noisy (ok, with
// non-protocol lines on stdout), hang (never answers), garbage (answers
// with broken JSON), grandchild (a process that holds a fifo open).
// MOTEUR_MCP_TESTSERVER_MARKER: a file created at start (to prove a
// command ran); MOTEUR_MCP_TESTSERVER_DELAY_MS: a delay before serving
// (a slow server, for the start-up benchmark); MOTEUR_MCP_TESTSERVER_FIFO:
// start a grandchild that keeps this fifo open.
func init() {
	mode := os.Getenv("MOTEUR_MCP_TESTSERVER")
	if mode == "" {
		return
	}
	if p := os.Getenv("MOTEUR_MCP_TESTSERVER_MARKER"); p != "" {
		_ = os.WriteFile(p, []byte("ran\n"), 0o600)
	}
	if ms, _ := strconv.Atoi(os.Getenv("MOTEUR_MCP_TESTSERVER_DELAY_MS")); ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	switch mode {
	case "ok", "noisy":
		if mode == "noisy" {
			fmt.Println("Test server starting (a log line on stdout, by mistake)")
		}
		if fifo := os.Getenv("MOTEUR_MCP_TESTSERVER_FIFO"); fifo != "" {
			startGrandchild(fifo)
		}
		runTestServer(mode == "noisy")
	case "hang":
		_, _ = io.Copy(io.Discard, os.Stdin)
	case "garbage":
		buf := make([]byte, 1)
		_, _ = os.Stdin.Read(buf)
		fmt.Println(`{"jsonrpc": this is not JSON`)
		_, _ = io.Copy(io.Discard, os.Stdin)
	case "grandchild":
		f, err := os.OpenFile(os.Getenv("MOTEUR_MCP_TESTSERVER_FIFO"), os.O_WRONLY, 0)
		if err == nil {
			fmt.Fprintln(f, "ready")
		}
		time.Sleep(2 * time.Minute) // until killed (bounded, should a test fail)
	}
	os.Exit(0)
}

// startGrandchild starts a process of our group that holds the fifo open
// for writing, so that the test sees EOF only once it is dead too.
func startGrandchild(fifo string) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "MOTEUR_MCP_TESTSERVER=grandchild")
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "grandchild:", err)
	}
}

type textArgs struct {
	Text string `json:"text,omitempty"`
}

type sizeArgs struct {
	Bytes int `json:"bytes"`
}

type stepsArgs struct {
	Steps int  `json:"steps"`
	Hold  bool `json:"hold,omitempty"` // then wait to be cancelled
}

func textResult(s string) *mcpsdk.CallToolResult {
	return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: s}}}
}

func runTestServer(noisy bool) {
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "moteur-test-server", Version: "1"}, nil)
	var echoCalls atomic.Int64
	cancelled := make(chan struct{}, 1)

	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "echo", Description: "echoes text"}, func(_ context.Context, _ *mcpsdk.CallToolRequest, in textArgs) (*mcpsdk.CallToolResult, any, error) {
		echoCalls.Add(1)
		if noisy {
			fmt.Println("echo called (a log line on stdout, by mistake)")
		}
		return textResult(in.Text), nil, nil
	})
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "echo_calls", Description: "how many echo calls arrived"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
		return textResult(strconv.FormatInt(echoCalls.Load(), 10)), nil, nil
	})
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "noop", Description: "does nothing"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
		return &mcpsdk.CallToolResult{}, nil, nil
	})
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "env", Description: "its environment"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
		return textResult(strings.Join(os.Environ(), "\n")), nil, nil
	})
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "progress", Description: "reports progress"}, func(ctx context.Context, req *mcpsdk.CallToolRequest, in stepsArgs) (*mcpsdk.CallToolResult, any, error) {
		for i := 1; i <= in.Steps; i++ {
			_ = req.Session.NotifyProgress(ctx, &mcpsdk.ProgressNotificationParams{
				ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i),
			})
		}
		if in.Hold {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		}
		return textResult("done"), nil, nil
	})
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "block", Description: "waits until cancelled"}, func(ctx context.Context, req *mcpsdk.CallToolRequest, _ struct{}) (*mcpsdk.CallToolResult, any, error) {
		_ = req.Session.NotifyProgress(ctx, &mcpsdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Message: "blocking"})
		<-ctx.Done()
		cancelled <- struct{}{}
		return nil, nil, ctx.Err()
	})
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "was_cancelled", Description: "whether block saw its cancellation"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
		select {
		case <-cancelled:
			return textResult("yes"), nil, nil
		case <-time.After(10 * time.Second):
			return textResult("no"), nil, nil
		}
	})
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "exit", Description: "exits mid-call"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "test server: exiting mid-call as asked")
		os.Exit(3)
		return nil, nil, nil
	})
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "big", Description: "returns a big text"}, func(_ context.Context, _ *mcpsdk.CallToolRequest, in sizeArgs) (*mcpsdk.CallToolResult, any, error) {
		return textResult(strings.Repeat("x", in.Bytes)), nil, nil
	})
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "add_tool", Description: "adds a tool named added"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
		mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "added"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
			return textResult("added works"), nil, nil
		})
		return textResult("ok"), nil, nil
	})
	mcpsdk.AddTool(s, &mcpsdk.Tool{Name: "pid", Description: "its process id"}, func(context.Context, *mcpsdk.CallToolRequest, struct{}) (*mcpsdk.CallToolResult, any, error) {
		return textResult(strconv.Itoa(os.Getpid())), nil, nil
	})
	fmt.Fprintln(os.Stderr, "test server: ready")
	if err := s.Run(context.Background(), &mcpsdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
	}
}
