package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeLLM is an OpenAI-compatible chat-completions server on loopback. Each
// request gets the next reply of its script; every request is recorded.
type fakeLLM struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies []func(w http.ResponseWriter, r *http.Request)
	reqs    []recordedRequest
}

// recordedRequest is what the server received.
type recordedRequest struct {
	Auth string
	Body wireReq
}

type wireReq struct {
	Model    string    `json:"model"`
	Stream   bool      `json:"stream"`
	Messages []wireMsg `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

type wireMsg struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

func newFakeLLM(t *testing.T, replies ...func(w http.ResponseWriter, r *http.Request)) *fakeLLM {
	t.Helper()
	f := &fakeLLM{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// baseURL is what MOTEUR_BASE_URL would be.
func (f *fakeLLM) baseURL() string { return f.srv.URL + "/v1" }

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("fake llm: read body: %v", err)
		return
	}
	var body wireReq
	if err := json.Unmarshal(b, &body); err != nil {
		f.t.Errorf("fake llm: decode body: %v\n%s", err, b)
	}
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, recordedRequest{Auth: r.Header.Get("Authorization"), Body: body})
	var reply func(w http.ResponseWriter, r *http.Request)
	if n < len(f.replies) {
		reply = f.replies[n]
	}
	f.mu.Unlock()
	if reply == nil {
		f.t.Errorf("fake llm: unexpected request %d", n+1)
		http.Error(w, `{"error":{"message":"no more replies"}}`, http.StatusBadRequest)
		return
	}
	reply(w, r)
}

func (f *fakeLLM) requests() []recordedRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recordedRequest(nil), f.reqs...)
}

// sse replies with a stream of chunks (each a JSON "delta" object and a
// finish reason) ended by [DONE].
func sse(chunks ...string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

func chunk(delta string, finish string) string {
	fin := "null"
	if finish != "" {
		fin = `"` + finish + `"`
	}
	return `{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + fin + `}]}`
}

func textChunk(s string) string      { return chunk(`{"content":`+jsonString(s)+`}`, "") }
func reasoningChunk(s string) string { return chunk(`{"reasoning_content":`+jsonString(s)+`}`, "") }
func finishChunk(reason string) string {
	return chunk(`{}`, reason)
}

// toolCallChunks stream one call in two pieces, as servers do.
func toolCallChunks(id, name, args string) []string {
	half := len(args) / 2
	return []string{
		chunk(`{"tool_calls":[{"index":0,"id":"`+id+`","type":"function","function":{"name":"`+name+`","arguments":`+jsonString(args[:half])+`}}]}`, ""),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+jsonString(args[half:])+`}}]}`, ""),
		finishChunk("tool_calls"),
	}
}

// httpError replies with an OpenAI-style error body.
func httpError(status int, message string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":%s,"type":"invalid_request_error"}}`, jsonString(message))
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// thinkingArgs are valid arguments of the thinking tool.
const thinkingArgs = `{"thought":"Plan the answer","next_thought_needed":false,"thought_number":1,"total_thoughts":1}`

// toolThenAnswer is the script of a turn with one thinking call, then an
// answer streamed in pieces after some reasoning.
func toolThenAnswer(answer ...string) []func(w http.ResponseWriter, r *http.Request) {
	second := []string{reasoningChunk("secret musing")}
	for _, a := range answer {
		second = append(second, textChunk(a))
	}
	second = append(second, finishChunk("stop"))
	return []func(w http.ResponseWriter, r *http.Request){
		sse(toolCallChunks("call_1", "thinking", thinkingArgs)...),
		sse(second...),
	}
}

// envMap turns a map into the env function execute takes.
func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// harness runs the real command tree in process.
type harness struct {
	env   map[string]string
	dir   string // project root
	stdin io.Reader
}

func newHarness(t *testing.T, baseURL string) *harness {
	t.Helper()
	return &harness{
		env: map[string]string{
			"MOTEUR_BASE_URL": baseURL,
			"MOTEUR_MODEL":    "test-model",
			"MOTEUR_API_KEY":  "sk-moteur",
			"MOTEUR_HOME":     t.TempDir(),
		},
		dir:   t.TempDir(),
		stdin: strings.NewReader(""),
	}
}

type result struct {
	code           int
	stdout, stderr string
}

func (h *harness) run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut strings.Builder
	c := newCLI(envMap(h.env), h.stdin, &out, &errOut)
	c.workDir = func() (string, error) { return h.dir, nil }
	code := c.execute(t.Context(), args)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}
