package openai

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/llm"
)

// The clients of two sessions (two New calls, as a server makes for each
// turn) share their connections to the model's server: the second turn
// dials nothing.
func TestClientsShareTheirConnections(t *testing.T) {
	var conns, requests atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, events(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`, "[DONE]"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	for i := range 3 {
		c, err := New(Config{BaseURL: srv.URL, Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Stream(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if requests.Load() != 3 {
		t.Fatalf("%d requests reached the server, want 3", requests.Load())
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("3 clients in turn opened %d connections, want 1", n)
	}
}
