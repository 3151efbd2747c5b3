// Package openaitest runs an OpenAI-compatible chat-completions server on
// loopback for tests, as net/http/httptest does for plain HTTP: each request
// gets the next scripted reply, and every request is kept, decoded, so tests
// can check what a client sent (the pairing of tool calls and results
// above all). Replies speak the real streaming protocol and can fail the way
// real servers do: error statuses, cut connections, stalls.
package openaitest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/moteur/moteur/llm"
)

// Server is a scripted chat-completions server.
type Server struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	replies  []http.HandlerFunc
	requests []Request
}

// Request is what the server received.
type Request struct {
	Auth       string
	Model      string
	Stream     bool
	ToolChoice string
	Tools      []string
	Messages   []llm.Message
	Body       []byte
}

// NewServer starts a server that answers the n-th request with replies[n];
// a request beyond the script fails the test. It is closed at the test's end.
func NewServer(t testing.TB, replies ...http.HandlerFunc) *Server {
	t.Helper()
	s := &Server{t: t, replies: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// BaseURL is the URL a client is configured with (…/v1).
func (s *Server) BaseURL() string { return s.srv.URL + "/v1" }

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// CheckPairing fails the test for every received request that breaks the
// pairing rule of tool calls and results (llm.ValidatePairing).
func (s *Server) CheckPairing(t testing.TB) {
	t.Helper()
	for i, r := range s.Requests() {
		if err := llm.ValidatePairing(r.Messages); err != nil {
			t.Errorf("request %d received by the server breaks the pairing rule: %v", i+1, err)
		}
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	// Reading the whole body first also lets the server notice a client
	// that hangs up (r.Context() is cancelled only once the body is read).
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("openaitest: read body: %v", err)
		return
	}
	req, err := decode(body)
	if err != nil {
		s.t.Errorf("openaitest: %v\n%s", err, body)
	}
	req.Auth = r.Header.Get("Authorization")
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	var reply http.HandlerFunc
	if n < len(s.replies) {
		reply = s.replies[n]
	}
	s.mu.Unlock()
	if reply == nil {
		s.t.Errorf("openaitest: unexpected request %d", n+1)
		http.Error(w, `{"error":{"message":"no more scripted replies"}}`, http.StatusBadRequest)
		return
	}
	reply(w, r)
}

type wireRequest struct {
	Model      string          `json:"model"`
	Stream     bool            `json:"stream"`
	ToolChoice json.RawMessage `json:"tool_choice"`
	Tools      []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Messages []struct {
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
	} `json:"messages"`
}

func decode(body []byte) (Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{Body: body}, err
	}
	req := Request{Model: w.Model, Stream: w.Stream, Body: body}
	_ = json.Unmarshal(w.ToolChoice, &req.ToolChoice)
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	for _, m := range w.Messages {
		lm := llm.Message{Role: llm.Role(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			lm.ToolCalls = append(lm.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		req.Messages = append(req.Messages, lm)
	}
	return req, nil
}
