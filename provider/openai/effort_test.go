package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// sentEffort is the reasoning_effort of a request body ("" when absent),
// and whether the field was there at all.
func sentEffort(t *testing.T, body []byte) (string, bool) {
	t.Helper()
	var w map[string]json.RawMessage
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	raw, ok := w["reasoning_effort"]
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("reasoning_effort %s: %v", raw, err)
	}
	return s, true
}

func effortClient(t *testing.T, base string, supported []string) *Client {
	t.Helper()
	c, err := New(Config{BaseURL: base, Model: "m", ReasoningEfforts: supported,
		NoThinking: json.RawMessage(`{"chat_template_kwargs":{"enable_thinking":false}}`)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var hello = []llm.Message{{Role: llm.RoleUser, Content: "hi"}}

// Each level asked goes on the wire as the level the server accepts: the
// asked one, else the strongest below it, else the weakest; max is the
// strongest accepted.
func TestEffortOnTheWire(t *testing.T) {
	defaults := []string(nil) // minimal, low, medium, high
	for _, tc := range []struct {
		supported []string
		asked     string
		want      string
	}{
		{defaults, llm.EffortMinimal, "minimal"},
		{defaults, llm.EffortLow, "low"},
		{defaults, llm.EffortMedium, "medium"},
		{defaults, llm.EffortHigh, "high"},
		{defaults, llm.EffortXHigh, "high"},
		{defaults, llm.EffortMax, "high"},
		{[]string{"low", "medium", "high"}, llm.EffortMinimal, "low"},
		{[]string{"high", "low", "medium"}, llm.EffortMedium, "medium"},
		{[]string{"low", "medium", "high"}, llm.EffortXHigh, "high"},
		{[]string{"low", "high"}, llm.EffortMedium, "low"},
		{[]string{"medium", "xhigh"}, llm.EffortHigh, "medium"},
		{[]string{"medium", "xhigh"}, llm.EffortLow, "medium"},
		{[]string{"medium", "xhigh"}, llm.EffortMax, "xhigh"},
		{[]string{"low", "max"}, llm.EffortXHigh, "low"},
		{[]string{"low", "max"}, llm.EffortMax, "max"},
		{[]string{"high"}, llm.EffortMinimal, "high"},
	} {
		t.Run(strings.Join(tc.supported, "+")+"/"+tc.asked, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Answer("ok"))
			c := effortClient(t, srv.BaseURL(), tc.supported)
			if got := c.EffortFor(tc.asked); got != tc.want {
				t.Errorf("EffortFor(%s) = %q, want %q", tc.asked, got, tc.want)
			}
			if _, err := c.Stream(context.Background(), llm.Request{Messages: hello, ReasoningEffort: tc.asked}, nil); err != nil {
				t.Fatal(err)
			}
			body := srv.Requests()[0].Body
			if got, _ := sentEffort(t, body); got != tc.want {
				t.Errorf("asked %s of %v: sent reasoning_effort %q, want %q\n%s", tc.asked, tc.supported, got, tc.want, body)
			}
			if strings.Contains(string(body), "enable_thinking") {
				t.Errorf("the no_thinking object went with an effort: %s", body)
			}
		})
	}
}

// No effort asked (auto, the server's default) sends neither the field
// nor the no_thinking object; off (NoThinking) sends the object and no
// effort, even when an effort is asked too; an unknown level sends
// nothing.
func TestEffortAbsentAutoOff(t *testing.T) {
	for _, tc := range []struct {
		name       string
		req        llm.Request
		noThinking bool
	}{
		{"auto", llm.Request{Messages: hello}, false},
		{"off", llm.Request{Messages: hello, NoThinking: true}, true},
		{"off wins", llm.Request{Messages: hello, NoThinking: true, ReasoningEffort: llm.EffortHigh}, true},
		{"unknown", llm.Request{Messages: hello, ReasoningEffort: "turbo"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.Answer("ok"))
			c := effortClient(t, srv.BaseURL(), nil)
			if _, err := c.Stream(context.Background(), tc.req, nil); err != nil {
				t.Fatal(err)
			}
			body := srv.Requests()[0].Body
			if v, ok := sentEffort(t, body); ok {
				t.Errorf("reasoning_effort %q sent: %s", v, body)
			}
			if got := strings.Contains(string(body), `"chat_template_kwargs":{"enable_thinking":false}`); got != tc.noThinking {
				t.Errorf("no_thinking object sent: %v, want %v: %s", got, tc.noThinking, body)
			}
		})
	}
}

// A 400 that names reasoning_effort is answered by the same request
// without the field; the client then never sends it again. Nothing else
// is remembered: the next request keeps its other options.
func TestEffortRefusedRetriedWithout(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Status(http.StatusBadRequest, "invalid_request_error", "Unrecognized request argument supplied: reasoning_effort"),
		openaitest.Answer("first"),
		openaitest.Answer("second"))
	c := effortClient(t, srv.BaseURL(), nil)
	temp := 0.2
	resp, err := c.Stream(context.Background(), llm.Request{Messages: hello, ReasoningEffort: llm.EffortHigh, MaxTokens: 77, Temperature: &temp}, nil)
	if err != nil || resp.Text != "first" {
		t.Fatalf("first stream: %q, %v", resp.Text, err)
	}
	if c.EffortFor(llm.EffortHigh) != "" {
		t.Error("EffortFor still sends an effort after the refusal")
	}
	resp, err = c.Stream(context.Background(), llm.Request{Messages: hello, ReasoningEffort: llm.EffortLow, MaxTokens: 77, Temperature: &temp}, nil)
	if err != nil || resp.Text != "second" {
		t.Fatalf("second stream: %q, %v", resp.Text, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if v, ok := sentEffort(t, reqs[0].Body); v != "high" || !ok {
		t.Errorf("request 1: reasoning_effort %q (%v), want high", v, ok)
	}
	for i, r := range reqs[1:] {
		if v, ok := sentEffort(t, r.Body); ok {
			t.Errorf("request %d: reasoning_effort %q sent after the refusal: %s", i+2, v, r.Body)
		}
		if !strings.Contains(string(r.Body), `"max_tokens":77`) || !strings.Contains(string(r.Body), `"temperature":0.2`) {
			t.Errorf("request %d lost its other options: %s", i+2, r.Body)
		}
	}
}

// A 400 about something else is the request's error: no second request,
// and the effort is still sent next time.
func TestEffortOtherBadRequest(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Status(http.StatusBadRequest, "invalid_request_error", "messages: too short"),
		openaitest.Answer("ok"))
	c := effortClient(t, srv.BaseURL(), nil)
	_, err := c.Stream(context.Background(), llm.Request{Messages: hello, ReasoningEffort: llm.EffortLow}, nil)
	if err == nil || !strings.Contains(err.Error(), "messages: too short") {
		t.Fatalf("error %v, want the server's", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests after a 400 about another field, want 1", n)
	}
	if _, err := c.Stream(context.Background(), llm.Request{Messages: hello, ReasoningEffort: llm.EffortLow}, nil); err != nil {
		t.Fatal(err)
	}
	if v, _ := sentEffort(t, srv.Requests()[1].Body); v != "low" {
		t.Errorf("request 2: reasoning_effort %q, want low", v)
	}
}

// The retry is only for a request that carried the field: a 400 naming
// it in answer to a request without it is the request's error.
func TestEffortRefusalWithoutField(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Status(http.StatusBadRequest, "invalid_request_error", "reasoning_effort is required"))
	c := effortClient(t, srv.BaseURL(), nil)
	if _, err := c.Stream(context.Background(), llm.Request{Messages: hello}, nil); err == nil {
		t.Fatal("no error")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

func TestReasoningEffortsChecked(t *testing.T) {
	if _, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", ReasoningEfforts: []string{"low", "auto"}}); err == nil ||
		!strings.Contains(err.Error(), `"auto"`) {
		t.Errorf("auto accepted as a server level: %v", err)
	}
}
