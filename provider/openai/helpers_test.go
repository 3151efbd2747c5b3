package openai

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// sseServer serves body as an event stream, flushing after each event.
func sseServer(t *testing.T, body string) *httptest.Server {
	t.Helper()
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range strings.SplitAfter(body, "\n\n") {
			_, _ = w.Write([]byte(ev))
			w.(http.Flusher).Flush()
		}
	})
}

// serve runs h on a test server. The request body is read before h runs:
// the server notices a client hanging up, and cancels r.Context(), only
// once the body is read.
func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// events renders payloads as data events, each followed by a blank line.
func events(payloads ...string) string {
	var sb strings.Builder
	for _, p := range payloads {
		sb.WriteString("data: " + p + "\n\n")
	}
	return sb.String()
}

// The chunk builders of the shared test server.
var (
	chunk    = openaitest.Chunk
	content  = openaitest.Text
	toolFrag = openaitest.ToolCall
)

const usageChunk = `{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"completion_tokens_details":{"reasoning_tokens":2},"cost":{"usd":0.01}}}`

func newClient(t *testing.T, baseURL string) *Client {
	t.Helper()
	c, err := New(Config{BaseURL: baseURL + "/v1/", Model: "m", APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recorder keeps the deltas a stream handed out.
type recorder struct {
	deltas []llm.Delta
}

func (r *recorder) on(d llm.Delta) { r.deltas = append(r.deltas, d) }

func (r *recorder) text() (text, reasoning string) {
	for _, d := range r.deltas {
		text += d.Text
		reasoning += d.Reasoning
	}
	return text, reasoning
}

func (r *recorder) zeros() int {
	n := 0
	for _, d := range r.deltas {
		if d == (llm.Delta{}) {
			n++
		}
	}
	return n
}

// stream runs one request against srv.
func stream(t *testing.T, srv *httptest.Server) (llm.Response, *recorder, error) {
	t.Helper()
	rec := &recorder{}
	resp, err := newClient(t, srv.URL).Stream(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}},
	}, rec.on)
	return resp, rec, err
}

func mustStream(t *testing.T, srv *httptest.Server) (llm.Response, *recorder) {
	t.Helper()
	resp, rec, err := stream(t, srv)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return resp, rec
}
