package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai"
	"github.com/moteur/moteur/tools"
)

// wireServer speaks the OpenAI streaming protocol, one scripted handler per
// request, and keeps the messages of every request it receives.
type wireServer struct {
	t        *testing.T
	mu       sync.Mutex
	handlers []http.HandlerFunc
	requests [][]llm.Message
}

type wireMsg struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func (s *wireServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []wireMsg `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		s.t.Errorf("request body: %v", err)
	}
	var msgs []llm.Message
	for _, m := range body.Messages {
		lm := llm.Message{Role: llm.Role(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			lm.ToolCalls = append(lm.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		msgs = append(msgs, lm)
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, msgs)
	s.mu.Unlock()
	if n >= len(s.handlers) {
		http.Error(w, `{"error":{"message":"no more scripted answers"}}`, http.StatusBadRequest)
		return
	}
	s.handlers[n](w, r)
}

func sse(chunks ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
			w.(http.Flusher).Flush()
		}
	}
}

func chunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return fmt.Sprintf(`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, f)
}

func textAnswer(text string) http.HandlerFunc {
	b, _ := json.Marshal(text)
	return sse(chunk(`{"role":"assistant"}`, ""), chunk(`{"content":`+string(b)+`}`, ""), chunk(`{}`, "stop"),
		`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`, "[DONE]")
}

// splitCalls streams two calls whose arguments arrive in fragments.
var splitCalls = sse(
	chunk(`{"role":"assistant","content":" "}`, ""),
	chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"echo","arguments":""}}]}`, ""),
	chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"q\":"}}]}`, ""),
	chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"echo","arguments":"{\"q\""}}]}`, ""),
	chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"alpha\"}"}}]}`, ""),
	chunk(`{"tool_calls":[{"index":1,"function":{"arguments":":\"beta\"}"}}]}`, ""),
	chunk(`{}`, "tool_calls"),
	"[DONE]",
)

func status(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// cutMidStream sends one chunk then drops the connection.
func cutMidStream(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\n\n", chunk(`{"content":"Je comm"}`, ""))
	w.(http.Flusher).Flush()
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func runWire(t *testing.T, handlers ...http.HandlerFunc) (*wireServer, []event.Event, error) {
	t.Helper()
	ws := &wireServer{t: t, handlers: handlers}
	srv := httptest.NewServer(ws)
	defer srv.Close()
	client, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(tools.Config{})
	var seen sync.Map
	echo := &fakeTool{name: "echo", concurrent: true, run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		var a struct{ Q string }
		if err := json.Unmarshal(args, &a); err != nil {
			return tools.Result{}, err
		}
		seen.Store(a.Q, true)
		return tools.Result{Content: "écho " + a.Q}, nil
	}}
	if err := reg.Register(echo); err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	e, err := New(Deps{Provider: client, Tools: reg, Sinks: []event.Sink{sink},
		RetryDelays: []time.Duration{time.Millisecond, time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ch := e.Subscribe()
	go func() {
		for range ch {
		}
	}()
	err = e.Submit(context.Background(), "wire", "Compare alpha et beta.")
	for i, msgs := range ws.requests {
		if perr := pairingError(msgs); perr != nil {
			t.Errorf("request %d received by the server breaks the pairing rule: %v", i+1, perr)
		}
	}
	if _, ok := seen.Load("alpha"); hasToolMessage(ws.requests) && !ok {
		t.Errorf("the split arguments did not reach the tool intact")
	}
	return ws, sink.all(), err
}

func TestWireToolRoundThen429ThenAnswer(t *testing.T) {
	ws, evs, err := runWire(t, splitCalls,
		status(429, `{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}`),
		textAnswer("alpha et beta diffèrent."))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.requests) != 3 {
		t.Fatalf("server got %d requests, want 3", len(ws.requests))
	}
	if r := last[event.ProviderRetryPayload](t, evs, event.ProviderRetry); !strings.Contains(r.Error, "Rate limit reached") {
		t.Errorf("retry does not carry the server's message: %+v", r)
	}
	tc := completed(t, evs)
	if tc.Answer != "alpha et beta diffèrent." || tc.Usage.TotalTokens != 13 {
		t.Errorf("TurnCompleted = %+v", tc)
	}
	final := ws.requests[2]
	if n := len(final); final[n-2].Content != "écho alpha" || final[n-1].Content != "écho beta" {
		t.Errorf("tool results not in call order: %+v", final[n-2:])
	}
}

func TestWireConnectionCutMidStreamIsRetried(t *testing.T) {
	ws, evs, err := runWire(t, splitCalls, cutMidStream, textAnswer("fini"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.requests) != 3 || countType(evs, event.ProviderRetry) != 1 {
		t.Errorf("%d requests, %d retries", len(ws.requests), countType(evs, event.ProviderRetry))
	}
	if tc := completed(t, evs); tc.Answer != "fini" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestWireServerErrorsExhaustedAfterToolsSynthesize(t *testing.T) {
	boom := status(500, `{"error":{"message":"internal","type":"server_error"}}`)
	ws, evs, err := runWire(t, splitCalls, boom, boom, boom, textAnswer("synthèse"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.requests) != 5 {
		t.Errorf("%d requests, want 1 + 3 failed + 1 synthesis", len(ws.requests))
	}
	if tc := completed(t, evs); tc.Reason != event.StopProviderError || tc.Answer != "synthèse" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestWireMalformedChunkWithoutResultsIsAnError(t *testing.T) {
	_, evs, err := runWire(t, sse(chunk(`{"content":"a"}`, ""), `{"choices":[{"delta":`, "[DONE]"))
	if err == nil {
		t.Fatal("a malformed stream must fail the turn")
	}
	if ep := last[event.ErrorPayload](t, evs, event.Error); !strings.Contains(ep.Message, "choices") {
		t.Errorf("Error event should quote the bad chunk: %+v", ep)
	}
}

func TestWireEmptyStreamGetsFallback(t *testing.T) {
	empty := sse("[DONE]")
	_, evs, err := runWire(t, empty, empty, empty)
	if err != nil {
		t.Fatal(err)
	}
	if tc := completed(t, evs); tc.Reason != event.StopEmptyFallback {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func hasToolMessage(reqs [][]llm.Message) bool {
	for _, msgs := range reqs {
		for _, m := range msgs {
			if m.Role == llm.RoleTool {
				return true
			}
		}
	}
	return false
}
