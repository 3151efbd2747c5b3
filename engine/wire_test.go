package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/tools"
)

// The loop against a real HTTP server that speaks the OpenAI streaming
// protocol, with faults. Every request the server receives is checked for
// the pairing rule.

// splitCalls streams two calls whose arguments arrive in interleaved
// fragments, after whitespace-only content, as real servers send them.
var splitCalls = openaitest.Stream(
	openaitest.Chunk(`{"role":"assistant","content":" "}`, ""),
	openaitest.ToolCall(0, "call_a", "echo", ""),
	openaitest.ToolCall(0, "", "", `{"q":`),
	openaitest.ToolCall(1, "call_b", "echo", `{"q"`),
	openaitest.ToolCall(0, "", "", `"alpha"}`),
	openaitest.ToolCall(1, "", "", `:"beta"}`),
	openaitest.Chunk(`{}`, "tool_calls"),
	openaitest.Done,
)

type wireRun struct {
	srv  *openaitest.Server
	evs  []event.Event
	err  error
	args []string // what the echo tool received, in call order
}

func runWire(t *testing.T, replies ...http.HandlerFunc) wireRun {
	t.Helper()
	srv := openaitest.NewServer(t, replies...)
	client, err := openai.New(openai.Config{BaseURL: srv.BaseURL(), Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var args []string
	echo := &fakeTool{name: "echo", concurrent: true, run: func(_ context.Context, raw json.RawMessage) (tools.Result, error) {
		var a struct{ Q string }
		if err := json.Unmarshal(raw, &a); err != nil {
			return tools.Result{}, err
		}
		mu.Lock()
		args = append(args, a.Q)
		mu.Unlock()
		return tools.Result{Content: "écho " + a.Q}, nil
	}}
	reg := tools.NewRegistry(tools.Config{})
	if err := reg.Register(echo); err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	e, err := New(Deps{Provider: client, Tools: reg, Sinks: []event.Sink{sink},
		RetryDelays: []time.Duration{time.Millisecond, time.Millisecond}, StallTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ch := e.Subscribe()
	go func() {
		for range ch {
		}
	}()
	err = e.Submit(context.Background(), "wire", "Compare alpha et beta.")
	srv.CheckPairing(t)
	return wireRun{srv: srv, evs: sink.all(), err: err, args: args}
}

func TestWireToolRoundThen429ThenAnswer(t *testing.T) {
	run := runWire(t, splitCalls,
		openaitest.Status(429, "rate_limit_error", "Rate limit reached"),
		openaitest.Answer("alpha et beta diffèrent."))
	if run.err != nil {
		t.Fatal(run.err)
	}
	reqs := run.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("server got %d requests, want 3", len(reqs))
	}
	if len(run.args) != 2 {
		t.Errorf("the split arguments did not reach the tool intact: %q", run.args)
	}
	if r := last[event.ProviderRetryPayload](t, run.evs, event.ProviderRetry); !strings.Contains(r.Error, "Rate limit reached") {
		t.Errorf("retry does not carry the server's message: %+v", r)
	}
	tc := completed(t, run.evs)
	if tc.Answer != "alpha et beta diffèrent." || tc.Usage.TotalTokens != 13 {
		t.Errorf("TurnCompleted = %+v", tc)
	}
	final := reqs[2].Messages
	if n := len(final); final[n-2].Content != "écho alpha" || final[n-1].Content != "écho beta" {
		t.Errorf("tool results not in call order: %+v", final[n-2:])
	}
}

func TestWireConnectionCutMidStreamIsRetried(t *testing.T) {
	run := runWire(t, splitCalls, openaitest.Cut(openaitest.Text("Je comm")), openaitest.Answer("fini"))
	if run.err != nil {
		t.Fatal(run.err)
	}
	if n, r := len(run.srv.Requests()), countType(run.evs, event.ProviderRetry); n != 3 || r != 1 {
		t.Errorf("%d requests, %d retries; want 3 and 1", n, r)
	}
	if tc := completed(t, run.evs); tc.Answer != "fini" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestWireStalledStreamIsRetried(t *testing.T) {
	run := runWire(t, openaitest.Stall(openaitest.Text("Je réfl")), openaitest.Answer("réponse"))
	if run.err != nil {
		t.Fatal(run.err)
	}
	if r := last[event.ProviderRetryPayload](t, run.evs, event.ProviderRetry); !strings.Contains(r.Error, "no output for 1s") {
		t.Errorf("retry = %+v", r)
	}
	if tc := completed(t, run.evs); tc.Answer != "réponse" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestWireServerErrorsExhaustedAfterToolsSynthesize(t *testing.T) {
	boom := openaitest.Status(500, "server_error", "internal")
	run := runWire(t, splitCalls, boom, boom, boom, openaitest.Answer("synthèse"))
	if run.err != nil {
		t.Fatal(run.err)
	}
	reqs := run.srv.Requests()
	if len(reqs) != 5 || reqs[4].ToolChoice != "none" {
		t.Errorf("%d requests, want 1 + 3 failed + 1 synthesis with tool_choice none", len(reqs))
	}
	if tc := completed(t, run.evs); tc.Reason != event.StopProviderError || tc.Answer != "synthèse" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestWireMalformedChunkWithoutResultsIsAnError(t *testing.T) {
	run := runWire(t, openaitest.Stream(openaitest.Text("a"), `{"choices":[{"delta":`, openaitest.Done))
	if run.err == nil {
		t.Fatal("a malformed stream must fail the turn")
	}
	if ep := last[event.ErrorPayload](t, run.evs, event.Error); !strings.Contains(ep.Message, "choices") {
		t.Errorf("Error event should quote the bad chunk: %+v", ep)
	}
}

func TestWireEmptyStreamGetsFallback(t *testing.T) {
	empty := openaitest.Stream(openaitest.Done)
	run := runWire(t, empty, empty, empty)
	if run.err != nil {
		t.Fatal(run.err)
	}
	if tc := completed(t, run.evs); tc.Reason != event.StopEmptyFallback {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}
