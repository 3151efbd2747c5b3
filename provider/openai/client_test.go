package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
)

func TestNewValidates(t *testing.T) {
	for _, cfg := range []Config{
		{Model: "m"},
		{BaseURL: "http://x/v1"},
		{BaseURL: "ftp://x/v1", Model: "m"},
		{BaseURL: "localhost:8080", Model: "m"},
		{BaseURL: "http://", Model: "m"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
	c, err := New(Config{BaseURL: "https://api.mistral.ai/v1/", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "openai" || c.Model() != "m" || c.endpoint != "https://api.mistral.ai/v1/chat/completions" {
		t.Errorf("got name %q model %q endpoint %q", c.Name(), c.Model(), c.endpoint)
	}
	c, _ = New(Config{Name: "azure", BaseURL: "https://x/openai/deployments/d?api-version=2024", Model: "m"})
	if c.Name() != "azure" || c.endpoint != "https://x/openai/deployments/d/chat/completions?api-version=2024" {
		t.Errorf("got name %q endpoint %q", c.Name(), c.endpoint)
	}
}

func TestPlainAnswerAndDeltaPerChunk(t *testing.T) {
	body := events(chunk(`{"role":"assistant"}`, ""), content("Hel"), content("lo"),
		chunk(`{}`, "stop"), usageChunk, "[DONE]")
	resp, rec := mustStream(t, sseServer(t, body))
	if resp.Text != "Hello" || resp.Finish != llm.FinishStop || resp.RawFinish != "stop" || resp.Model != "test-model" {
		t.Errorf("got %+v", resp)
	}
	// role, Hel, lo, finish, usage: five chunks, five calls.
	if len(rec.deltas) != 5 || rec.zeros() != 3 {
		t.Errorf("got %d deltas (%d zero), want 5 (3 zero): %+v", len(rec.deltas), rec.zeros(), rec.deltas)
	}
}

func TestUsageChunk(t *testing.T) {
	body := events(content("ok"), chunk(`{}`, "stop"), usageChunk, "[DONE]")
	resp, rec := mustStream(t, sseServer(t, body))
	want := llm.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}
	if resp.Usage == nil || *resp.Usage != want {
		t.Fatalf("usage %+v, want %+v", resp.Usage, want)
	}
	if last := rec.deltas[len(rec.deltas)-1]; last != (llm.Delta{}) {
		t.Errorf("the usage chunk gave %+v, want a zero delta", last)
	}
}

func TestToolCallArgumentsSplit(t *testing.T) {
	args := `{"path":"/tmp/a b","n":42,"deep":{"x":[1,2]}}`
	payloads := []string{chunk(`{"role":"assistant","content":null}`, ""), toolFrag(0, "call_abc", "read", "")}
	for _, r := range args {
		payloads = append(payloads, toolFrag(0, "", "", string(r)))
	}
	payloads = append(payloads, chunk(`{}`, "tool_calls"), "[DONE]")
	resp, rec := mustStream(t, sseServer(t, events(payloads...)))

	want := []llm.ToolCall{{ID: "call_abc", Name: "read", Arguments: args}}
	if !reflect.DeepEqual(resp.ToolCalls, want) {
		t.Fatalf("calls %+v, want %+v", resp.ToolCalls, want)
	}
	if resp.Finish != llm.FinishToolCalls || resp.Text != "" {
		t.Errorf("finish %q text %q", resp.Finish, resp.Text)
	}
	var streamed string
	for _, d := range rec.deltas {
		if d.ToolCall != nil {
			streamed += d.ToolCall.Arguments
		}
	}
	if streamed != args {
		t.Errorf("streamed fragments %q, want %q", streamed, args)
	}
	if len(rec.deltas) != len(payloads)-1 {
		t.Errorf("%d deltas for %d chunks", len(rec.deltas), len(payloads)-1)
	}
}

func TestParallelToolCalls(t *testing.T) {
	body := events(
		toolFrag(0, "call_1", "glob", ""),
		toolFrag(0, "", "", `{"pattern":`),
		toolFrag(1, "call_2", "ls", `{"pa`),
		toolFrag(0, "", "", `"*.go"}`),
		toolFrag(1, "", "", `th":"."}`),
		chunk(`{}`, "tool_calls"), "[DONE]")
	resp, rec := mustStream(t, sseServer(t, body))
	want := []llm.ToolCall{
		{ID: "call_1", Name: "glob", Arguments: `{"pattern":"*.go"}`},
		{ID: "call_2", Name: "ls", Arguments: `{"path":"."}`},
	}
	if !reflect.DeepEqual(resp.ToolCalls, want) {
		t.Fatalf("calls %+v, want %+v", resp.ToolCalls, want)
	}
	first := map[int]llm.ToolCallDelta{}
	for _, d := range rec.deltas {
		if tc := d.ToolCall; tc != nil {
			if _, ok := first[tc.Index]; !ok {
				first[tc.Index] = *tc
			}
		}
	}
	if first[0].ID != "call_1" || first[0].Name != "glob" || first[1].ID != "call_2" || first[1].Name != "ls" {
		t.Errorf("first fragments %+v", first)
	}
}

func TestToolCallsWithoutIndexOrID(t *testing.T) {
	// Some servers send no index; some no id; some the whole call at once.
	body := events(
		chunk(`{"tool_calls":[{"id":"a","function":{"name":"one","arguments":"{\"x\""}}]}`, ""),
		chunk(`{"tool_calls":[{"function":{"arguments":":1}"}}]}`, ""),
		chunk(`{"tool_calls":[{"id":"b","function":{"name":"two","arguments":"{}"}}]}`, ""),
		chunk(`{"tool_calls":[{"function":{"name":"three","arguments":"{\"y\":2}"}},{"function":{"name":"four"}}]}`, ""),
		chunk(`{}`, "tool_calls"), "[DONE]")
	resp, _ := mustStream(t, sseServer(t, body))
	if len(resp.ToolCalls) != 4 {
		t.Fatalf("got %d calls, want 4: %+v", len(resp.ToolCalls), resp.ToolCalls)
	}
	got := resp.ToolCalls
	if got[0] != (llm.ToolCall{ID: "a", Name: "one", Arguments: `{"x":1}`}) ||
		got[1] != (llm.ToolCall{ID: "b", Name: "two", Arguments: "{}"}) {
		t.Errorf("calls with ids: %+v", got[:2])
	}
	if got[2].Name != "three" || got[2].Arguments != `{"y":2}` || got[3].Name != "four" || got[3].Arguments != "{}" {
		t.Errorf("calls without ids: %+v", got[2:])
	}
	for i, c := range got[2:] {
		if !strings.HasPrefix(c.ID, fmt.Sprintf("call_%d_", i+2)) {
			t.Errorf("made-up id %q", c.ID)
		}
	}
	if got[2].ID == got[3].ID {
		t.Errorf("made-up ids collide: %q", got[2].ID)
	}
}

func TestSameIndexNewIDIsNewCall(t *testing.T) {
	body := events(toolFrag(0, "x", "one", "{}"), toolFrag(0, "y", "two", "{}"), chunk(`{}`, "tool_calls"), "[DONE]")
	resp, _ := mustStream(t, sseServer(t, body))
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[1].ID != "y" || resp.ToolCalls[1].Name != "two" {
		t.Fatalf("got %+v", resp.ToolCalls)
	}
}

func TestReasoningContent(t *testing.T) {
	body := events(
		chunk(`{"role":"assistant","reasoning_content":"Let me "}`, ""),
		chunk(`{"reasoning":"think."}`, ""),
		chunk(`{"reasoning_content":"same","reasoning":"same"}`, ""),
		content("Answer"), chunk(`{}`, "stop"), "[DONE]")
	resp, rec := mustStream(t, sseServer(t, body))
	if resp.Reasoning != "Let me think.same" || resp.Text != "Answer" {
		t.Errorf("reasoning %q text %q", resp.Reasoning, resp.Text)
	}
	if _, r := rec.text(); r != resp.Reasoning {
		t.Errorf("streamed reasoning %q", r)
	}
}

func TestThinkInContent(t *testing.T) {
	body := events(content("<thi"), content("nk>Plan"), content(" it.</th"), content("ink>"),
		content("\n\nDone"), content(" <"), chunk(`{}`, "stop"), "[DONE]")
	resp, rec := mustStream(t, sseServer(t, body))
	if resp.Reasoning != "Plan it." || resp.Text != "Done <" {
		t.Errorf("reasoning %q text %q", resp.Reasoning, resp.Text)
	}
	text, reasoning := rec.text()
	if text != resp.Text || reasoning != resp.Reasoning {
		t.Errorf("deltas %q/%q differ from the response", text, reasoning)
	}
	for _, d := range rec.deltas {
		if strings.Contains(d.Text, "<th") || strings.Contains(d.Text, "nk>") {
			t.Errorf("a tag leaked into the text: %+v", d)
		}
	}
}

func TestMistralContentParts(t *testing.T) {
	body := events(
		chunk(`{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hmm"}]}]}`, ""),
		chunk(`{"content":[{"type":"text","text":"Yes"}]}`, "stop"), "[DONE]")
	resp, _ := mustStream(t, sseServer(t, body))
	if resp.Reasoning != "hmm" || resp.Text != "Yes" {
		t.Errorf("reasoning %q text %q", resp.Reasoning, resp.Text)
	}
}

func TestKeepaliveComments(t *testing.T) {
	body := ": keepalive\n\n" + events(content("a")) + ": ping\n\n" + events(chunk(`{}`, "stop"), "[DONE]")
	_, rec := mustStream(t, sseServer(t, body))
	if len(rec.deltas) != 4 || rec.zeros() != 3 {
		t.Errorf("got %+v, want a zero delta per comment and for the finish chunk", rec.deltas)
	}
}

func TestDoneEndsStream(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, events(content("hi"), chunk(`{}`, "stop"), "[DONE]"))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // never ends the body: only [DONE] can end the stream
	})
	got := make(chan error, 1)
	go func() {
		_, _, err := stream(t, srv)
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stream still reading after [DONE]")
	}
}

func TestStreamEndWithoutDone(t *testing.T) {
	t.Run("after finish reason", func(t *testing.T) {
		resp, _ := mustStream(t, sseServer(t, events(content("hi"), chunk(`{}`, "length"))))
		if resp.Text != "hi" || resp.Finish != llm.FinishLength {
			t.Errorf("got %+v", resp)
		}
	})
	t.Run("cut", func(t *testing.T) {
		resp, rec, err := stream(t, sseServer(t, events(content("hi"))))
		pe := wantProviderError(t, err, provider.Transient)
		if !errors.Is(err, io.ErrUnexpectedEOF) || pe.Message != "stream ended before completion" {
			t.Errorf("got %v", err)
		}
		if len(rec.deltas) != 1 || resp.Text != "hi" {
			t.Errorf("deltas %+v, partial response %+v", rec.deltas, resp)
		}
	})
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		ctype   string
		body    string
		kind    provider.Kind
		message string
	}{
		{"429 rate limit", 429, "application/json",
			`{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`,
			provider.Transient, "Rate limit reached for requests"},
		{"429 without body", 429, "text/plain", "", provider.Transient, "Too Many Requests"},
		{"429 quota is permanent", 429, "application/json",
			`{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`,
			provider.Permanent, "You exceeded your current quota"},
		{"500", 500, "application/json", `{"error":{"message":"boom","type":"server_error"}}`, provider.Transient, "boom"},
		{"502 html page", 502, "text/html", "<html><body>Bad gateway</body></html>\n", provider.Transient,
			"<html><body>Bad gateway</body></html>"},
		{"overloaded 200-type on 400", 400, "application/json",
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, provider.Transient, "Overloaded"},
		{"400 context overflow, OpenAI code", 400, "application/json",
			`{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`,
			provider.ContextOverflow, "This model's maximum context length is 8192 tokens."},
		{"400 context overflow, vLLM prose", 400, "application/json",
			`{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.","type":"BadRequestError","param":null,"code":400}`,
			provider.ContextOverflow, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."},
		{"400 context overflow, llama.cpp", 400, "application/json",
			`{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}`,
			provider.ContextOverflow, "the request exceeds the available context size"},
		{"400 plain", 400, "application/json", `{"error":"model 'x' not found"}`, provider.Permanent, "model 'x' not found"},
		{"401", 401, "application/json",
			`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`,
			provider.Permanent, "Incorrect API key provided"},
		{"422 detail", 422, "application/json", `{"detail":"Field required"}`, provider.Permanent, "Field required"},
		{"404 digits in prose are not a status", 404, "application/json",
			`{"message":"upstream said 503 and 429"}`, provider.Permanent, "upstream said 503 and 429"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			})
			_, rec, err := stream(t, srv)
			pe := wantProviderError(t, err, tc.kind)
			if pe.Status != tc.status || pe.Message != tc.message || pe.Provider != "openai" {
				t.Errorf("got status %d message %q provider %q", pe.Status, pe.Message, pe.Provider)
			}
			if len(rec.deltas) != 0 {
				t.Errorf("deltas on an error answer: %+v", rec.deltas)
			}
		})
	}
}

func TestErrorKeepsTypeAndCode(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(429)
		_, _ = io.WriteString(w, `{"error":{"message":"slow down","type":"tokens","code":"rate_limit_exceeded"}}`)
	})
	_, _, err := stream(t, srv)
	pe := wantProviderError(t, err, provider.Transient)
	if pe.Type != "tokens" || pe.Code != "rate_limit_exceeded" {
		t.Errorf("type %q code %q", pe.Type, pe.Code)
	}
}

func TestStalledStreamCancelled(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, events(content("a"), content("b")))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // stalls until the client gives up
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	deltas := make(chan llm.Delta, 10)
	type result struct {
		resp llm.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := newClient(t, srv.URL).Stream(ctx, llm.Request{}, func(d llm.Delta) { deltas <- d })
		done <- result{resp, err}
	}()
	for _, want := range []string{"a", "b"} {
		if d := <-deltas; d.Text != want {
			t.Fatalf("delta %+v, want %q", d, want)
		}
	}
	cancel()
	select {
	case r := <-done:
		if !errors.Is(r.err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", r.err)
		}
		var pe *provider.Error
		if errors.As(r.err, &pe) {
			t.Errorf("cancellation wrapped in %v", pe)
		}
		if r.resp.Text != "ab" {
			t.Errorf("partial response %q", r.resp.Text)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stream did not return after cancellation")
	}
}

func TestCancelledWhileWaitingForHeaders(t *testing.T) {
	arrived := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := newClient(t, srv.URL).Stream(ctx, llm.Request{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	var pe *provider.Error
	if errors.As(err, &pe) {
		t.Errorf("cancellation wrapped: %v", err)
	}
}

func TestMalformedChunk(t *testing.T) {
	bad := `{"choices":[{"index":0,"delta":{"content":"x"}` // cut JSON
	resp, rec, err := stream(t, sseServer(t, events(content("ok"), bad, chunk(`{}`, "stop"), "[DONE]")))
	pe := wantProviderError(t, err, provider.Permanent)
	if !strings.Contains(pe.Message, "malformed stream chunk") || !strings.Contains(pe.Message, `delta`) {
		t.Errorf("message %q does not name the chunk", pe.Message)
	}
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		t.Errorf("the JSON error is not wrapped: %v", err)
	}
	if len(rec.deltas) != 1 || resp.Text != "ok" {
		t.Errorf("deltas %+v response %+v", rec.deltas, resp)
	}
}

func TestMalformedChunkMessageIsBounded(t *testing.T) {
	bad := `{"choices":"` + strings.Repeat("x", 5000)
	_, _, err := stream(t, sseServer(t, events(bad)))
	pe := wantProviderError(t, err, provider.Permanent)
	if len(pe.Message) > 600 {
		t.Errorf("message of %d bytes", len(pe.Message))
	}
}

func TestConnectionCutMidStream(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		conn, bw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		part := events(content("Hel"), content("lo"))
		fmt.Fprint(bw, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		fmt.Fprintf(bw, "%x\r\n%s\r\n", len(part), part)
		fmt.Fprintf(bw, "%x\r\n%s", 200, `data: {"choices":[{"ind`) // the chunk is never finished
		_ = bw.Flush()
	})
	resp, rec, err := stream(t, srv)
	wantProviderError(t, err, provider.Transient)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("got %v, want the read error wrapped", err)
	}
	if text, _ := rec.text(); text != "Hello" || resp.Text != "Hello" {
		t.Errorf("deltas before the cut: %q, response %q", text, resp.Text)
	}
}

func TestInStreamError(t *testing.T) {
	tests := []struct {
		name    string
		event   string // the whole event, as the server writes it
		kind    provider.Kind
		message string
	}{
		{"server_error", `data: {"error":{"message":"The server had an error","type":"server_error","code":null}}`,
			provider.Transient, "The server had an error"},
		{"numeric code", `data: {"error":{"message":"Provider returned error","code":502}}`,
			provider.Transient, "Provider returned error"},
		{"overflow", `data: {"error":{"message":"prompt is too long: 9000 tokens","type":"invalid_request_error"}}`,
			provider.ContextOverflow, "prompt is too long: 9000 tokens"},
		{"bad request", `data: {"error":{"message":"invalid tool schema","type":"BadRequestError","code":400}}`,
			provider.Permanent, "invalid tool schema"},
		{"error event", "event: error\n" + `data: {"message":"overloaded","type":"overloaded_error"}`,
			provider.Transient, "overloaded"},
		{"llama.cpp error field", `error: {"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}`,
			provider.ContextOverflow, "the request exceeds the available context size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := events(content("par")) + tc.event + "\n\n" + events("[DONE]")
			_, rec, err := stream(t, sseServer(t, body))
			pe := wantProviderError(t, err, tc.kind)
			if pe.Message != tc.message {
				t.Errorf("message %q, want %q", pe.Message, tc.message)
			}
			if len(rec.deltas) != 1 {
				t.Errorf("deltas before the error: %+v", rec.deltas)
			}
		})
	}
}

func TestPlainJSONAnswer(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"chatcmpl-9","object":"chat.completion","model":"llama",
			"choices":[{"index":0,"message":{"role":"assistant","content":"<think>hm</think>Sure.",
			"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{\"p\":1}"}},
			{"type":"function","function":{"name":"pwd","arguments":{}}}]},"finish_reason":"tool_calls"}],
			"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`)
	})
	resp, rec := mustStream(t, srv)
	if resp.Text != "Sure." || resp.Reasoning != "hm" || resp.Finish != llm.FinishToolCalls || resp.Model != "llama" {
		t.Errorf("got %+v", resp)
	}
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[0] != (llm.ToolCall{ID: "c1", Name: "ls", Arguments: `{"p":1}`}) ||
		resp.ToolCalls[1].Name != "pwd" || resp.ToolCalls[1].Arguments != "{}" || resp.ToolCalls[1].ID == "" {
		t.Errorf("calls %+v", resp.ToolCalls)
	}
	if resp.Usage == nil || resp.Usage.TotalTokens != 7 {
		t.Errorf("usage %+v", resp.Usage)
	}
	if text, _ := rec.text(); text != "Sure." {
		t.Errorf("the answer was not handed to onDelta: %q", text)
	}
}

func TestUnlabelledStreamIsSniffed(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, events(content("sniffed"), chunk(`{}`, "stop"), "[DONE]"))
	})
	if resp, _ := mustStream(t, srv); resp.Text != "sniffed" {
		t.Errorf("got %+v", resp)
	}
}

func TestHTMLAnswerIsPermanent(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, "<!doctype html><title>Login</title>")
	})
	_, _, err := stream(t, srv)
	pe := wantProviderError(t, err, provider.Permanent)
	if !strings.Contains(pe.Message, "text/html") || !strings.Contains(pe.Message, "Login") {
		t.Errorf("message %q", pe.Message)
	}
}

func TestConnectionRefused(t *testing.T) {
	srv := serve(t, func(http.ResponseWriter, *http.Request) {})
	url := srv.URL
	srv.Close()
	_, err := newClient(t, url).Stream(context.Background(), llm.Request{}, nil)
	wantProviderError(t, err, provider.Transient)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("errors.Is(err, ECONNREFUSED) fails on %v", err)
	}
}

func TestRequestBody(t *testing.T) {
	got := make(chan *http.Request, 1)
	bodies := make(chan []byte, 1)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, events(chunk(`{}`, "stop"), "[DONE]"))
	})
	temp := 0.25
	c, err := New(Config{BaseURL: srv.URL + "/v1", Model: "cfg-model", APIKey: "sk-x", Headers: map[string]string{"X-Extra": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stream(context.Background(), llm.Request{
		Model: "req-model",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "sys"},
			{Role: llm.RoleUser, Content: "list"},
			{Role: llm.RoleAssistant, Reasoning: "secret thoughts", Remote: true, ToolCalls: []llm.ToolCall{
				{ID: "c1", Name: "ls", Arguments: `{"p":"."}`}, {ID: "c2", Name: "pwd"}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Name: "ls", Content: "a.go"},
			{Role: llm.RoleTool, ToolCallID: "c2", Name: "pwd", Content: "/"},
		},
		Tools:       []llm.ToolDef{{Name: "ls", Description: "list", Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: "pwd"}},
		ToolChoice:  llm.ToolChoiceNone,
		MaxTokens:   100,
		Temperature: &temp,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		t.Errorf("%s %s", r.Method, r.URL.Path)
	}
	if r.Header.Get("Authorization") != "Bearer sk-x" || r.Header.Get("Accept") != "text/event-stream" ||
		r.Header.Get("Content-Type") != "application/json" || r.Header.Get("X-Extra") != "1" {
		t.Errorf("headers %v", r.Header)
	}
	want := `{
		"model": "req-model",
		"messages": [
			{"role": "system", "content": "sys"},
			{"role": "user", "content": "list"},
			{"role": "assistant", "content": "", "tool_calls": [
				{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{\"p\":\".\"}"}},
				{"id": "c2", "type": "function", "function": {"name": "pwd", "arguments": "{}"}}]},
			{"role": "tool", "content": "a.go", "tool_call_id": "c1"},
			{"role": "tool", "content": "/", "tool_call_id": "c2"}
		],
		"tools": [
			{"type": "function", "function": {"name": "ls", "description": "list", "parameters": {"type": "object"}}},
			{"type": "function", "function": {"name": "pwd", "parameters": {"type": "object", "properties": {}}}}
		],
		"tool_choice": "none",
		"stream": true,
		"stream_options": {"include_usage": true},
		"max_tokens": 100,
		"temperature": 0.25
	}`
	assertJSON(t, <-bodies, want)
}

func TestRequestBodyMinimal(t *testing.T) {
	bodies := make(chan []byte, 1)
	seenAuth := make(chan string, 1)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- b
		seenAuth <- r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, events(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "[DONE]"))
	})
	c, _ := New(Config{BaseURL: srv.URL, Model: "cfg-model"})
	resp, err := c.Stream(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	assertJSON(t, <-bodies, `{"model":"cfg-model","messages":[{"role":"user","content":"hi"}],
		"stream":true,"stream_options":{"include_usage":true}}`)
	if auth := <-seenAuth; auth != "" {
		t.Errorf("Authorization %q without a key", auth)
	}
	if resp.Model != "cfg-model" {
		t.Errorf("model %q, want the requested one when the server names none", resp.Model)
	}
}

func assertJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("body\n%s\nwant\n%s", got, want)
	}
}

func wantProviderError(t *testing.T, err error, kind provider.Kind) *provider.Error {
	t.Helper()
	var pe *provider.Error
	if !errors.As(err, &pe) {
		t.Fatalf("got %v (%T), want *provider.Error", err, err)
	}
	if pe.Kind != kind {
		t.Fatalf("kind %v, want %v: %v", pe.Kind, kind, err)
	}
	return pe
}

func TestUntrustedCertificateIsPermanent(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	defer srv.Close()
	_, err := newClient(t, srv.URL).Stream(context.Background(), llm.Request{}, nil)
	wantProviderError(t, err, provider.Permanent)
}

func TestEmptyErrorFieldIsNoError(t *testing.T) {
	body := events(`{"choices":[{"index":0,"delta":{"content":"ok"}}],"error":null}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"error":{}}`, "[DONE]")
	if resp, _ := mustStream(t, sseServer(t, body)); resp.Text != "ok" {
		t.Errorf("got %+v", resp)
	}
}

func TestNoThinkingFieldsOnlyWhenAsked(t *testing.T) {
	bodies := make(chan []byte, 2)
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies <- b
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, events(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "[DONE]"))
	})
	c, err := New(Config{BaseURL: srv.URL, Model: "qwen",
		NoThinking: json.RawMessage(` {"chat_template_kwargs": {"enable_thinking": false}} `)})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
	for _, off := range []bool{true, false} {
		if _, err := c.Stream(context.Background(), llm.Request{Messages: msgs, NoThinking: off}, nil); err != nil {
			t.Fatal(err)
		}
	}
	assertJSON(t, <-bodies, `{"model":"qwen","messages":[{"role":"user","content":"hi"}],
		"stream":true,"stream_options":{"include_usage":true},"chat_template_kwargs":{"enable_thinking":false}}`)
	assertJSON(t, <-bodies, `{"model":"qwen","messages":[{"role":"user","content":"hi"}],
		"stream":true,"stream_options":{"include_usage":true}}`)
	for _, bad := range []string{`[1]`, `"x"`, `{`, `null`} {
		if _, err := New(Config{BaseURL: srv.URL, Model: "m", NoThinking: json.RawMessage(bad)}); err == nil {
			t.Errorf("NoThinking %s accepted", bad)
		}
	}
}

func TestLocalAndEndpointAreReported(t *testing.T) {
	c, err := New(Config{BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen", Local: true})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Local() || c.Endpoint() != "http://127.0.0.1:11434/v1/chat/completions" {
		t.Errorf("Local %v, Endpoint %q", c.Local(), c.Endpoint())
	}
	if r, _ := New(Config{BaseURL: "https://api.mistral.ai/v1", Model: "m"}); r.Local() {
		t.Error("a provider is remote unless declared local")
	}
}
