package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
)

func ask(t *testing.T, cfg Config) error {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stream(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}, nil)
	if err == nil {
		t.Fatal("the request succeeded")
	}
	return err
}

// A server that is not running: the message gives the cause and the URL,
// asks whether the server runs, and names the provider once, without
// net/http's `Post "…":` prefix.
func TestServerNotRunningAsksWhetherItRuns(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL + "/v1"
	srv.Close() // the port is free: the connection is refused
	err := ask(t, Config{Name: "local", BaseURL: base, Model: "m", Lang: i18n.EN})
	msg := err.Error()
	if !strings.Contains(msg, "connection refused") || !strings.Contains(msg, "is the server at "+base+" running?") {
		t.Fatalf("message %q: want the cause and the question with the URL", msg)
	}
	if strings.Contains(msg, `Post "`) || strings.Count(msg, "local:") != 1 {
		t.Fatalf("message %q: the prefix is doubled", msg)
	}
	if !provider.IsTransient(err) {
		t.Fatalf("%v is not transient: a server starting up is worth a retry", err)
	}
	fr := ask(t, Config{Name: "local", BaseURL: base, Model: "m"}).Error()
	if !strings.Contains(fr, "est-il démarré ?") {
		t.Fatalf("message %q: French is the default", fr)
	}
}

// A host name that does not resolve (.invalid never does, RFC 6761) is
// named, with the same question.
func TestUnknownHostAsksWhetherTheServerRuns(t *testing.T) {
	base := "http://moteur-no-such-host.invalid/v1"
	msg := ask(t, Config{BaseURL: base, Model: "m", Lang: i18n.EN}).Error()
	if !strings.Contains(msg, "moteur-no-such-host.invalid") || !strings.Contains(msg, "is the server at "+base+" running?") {
		t.Fatalf("message %q", msg)
	}
}

// A 404 on a chat request lists the models the server serves when the
// model asked for is not among them.
func TestUnknownModelListsTheServedModels(t *testing.T) {
	var listed atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			listed.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"qwen3-8b","object":"model"},{"id":"llama-3.1-8b","object":"model"}]}`))
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"message":"model 'qwen3' not found","type":"invalid_request_error"}}`))
		}
	})
	err := ask(t, Config{BaseURL: srv.URL + "/v1", Model: "qwen3", Lang: i18n.EN})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Status != 404 || pe.Kind != provider.Permanent {
		t.Fatalf("err %v: want a permanent 404", err)
	}
	want := `the server has no model "qwen3"; the models it serves: llama-3.1-8b, qwen3-8b`
	if listed.Load() != 1 || !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q (models listed %d times): want %q", err, listed.Load(), want)
	}
}

// A 404 whose model the server does list says nothing more: the model is
// not the problem.
func TestNotFoundWithAServedModelAddsNothing(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			_, _ = w.Write([]byte(`{"data":[{"id":"m"}]}`))
			return
		}
		http.NotFound(w, r)
	})
	if msg := ask(t, Config{BaseURL: srv.URL + "/v1", Model: "m", Lang: i18n.EN}).Error(); strings.Contains(msg, "serves") {
		t.Fatalf("message %q lists models though the model is served", msg)
	}
}

// A refused authentication while the variable api_key_env names is unset
// says so, and sends no key.
func TestUnsetKeyVariableIsNamedOnA401(t *testing.T) {
	var auth atomic.Value
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization") + "|")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"missing key","type":"invalid_request_error"}}`))
	})
	msg := ask(t, Config{BaseURL: srv.URL + "/v1", Model: "m", APIKeyEnv: "ACME_API_KEY", Lang: i18n.EN}).Error()
	if got, _ := auth.Load().(string); got != "|" {
		t.Fatalf("the request did not arrive, or carried a key: %q", got)
	}
	if !strings.Contains(msg, "missing key") || !strings.Contains(msg, "the variable ACME_API_KEY named by api_key_env is not set") {
		t.Fatalf("message %q: want the server's words and the variable", msg)
	}
	// With the key set, the 401 is the server's word alone.
	msg = ask(t, Config{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "sk-x", APIKeyEnv: "ACME_API_KEY", Lang: i18n.EN}).Error()
	if strings.Contains(msg, "ACME_API_KEY") {
		t.Fatalf("message %q blames a variable that is set", msg)
	}
}
