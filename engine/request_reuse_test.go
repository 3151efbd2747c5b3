package engine

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
)

// TestRequestsKeptByAProviderStayAsSent: a provider that keeps each request
// it was given (without copying) still finds, after the turn, every one as
// it was when sent, although each round's request extends the previous
// one's array; one that appends to a request it holds does not write into
// the next one. The turn must reuse the array (else this proves nothing):
// consecutive requests share their first message.
func TestRequestsKeptByAProviderStayAsSent(t *testing.T) {
	const rounds = 4
	var kept, copies []llm.Request
	fn := func(req llm.Request) llm.Response {
		// A provider that adds a message of its own to what it sends,
		// and keeps both.
		own := append(req.Messages, llm.Message{Role: llm.RoleUser, Content: "ajout du fournisseur"})
		kept = append(kept, req, llm.Request{Messages: own})
		copies = append(copies, llm.Request{Messages: slices.Clone(req.Messages)}, llm.Request{Messages: slices.Clone(own)})
		if n := toolRounds(req); n < rounds {
			return llm.Response{Text: "Je vérifie.", Finish: llm.FinishToolCalls, ToolCalls: []llm.ToolCall{
				{ID: fmt.Sprintf("a%d", n), Name: "echo", Arguments: `{"q":"x"}`}}}
		}
		return llm.Response{Text: "Fini.", Finish: llm.FinishStop}
	}
	reg := tools.NewRegistry(tools.Config{})
	if err := reg.Register(&fakeTool{name: "echo", concurrent: true}); err != nil {
		t.Fatal(err)
	}
	e, err := New(Deps{Provider: &funcProvider{name: "p", fn: fn}, Tools: reg, Sinks: []event.Sink{discard{}}, SystemPrompt: "SYSTEM"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Submit(context.Background(), "s1", "question"); err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2*(rounds+1) {
		t.Fatalf("%d requests, want %d", len(kept)/2, rounds+1)
	}
	shared := false
	for i := range kept {
		if !reflect.DeepEqual(kept[i].Messages, copies[i].Messages) {
			t.Errorf("request %d (own copy: %v) changed after it was sent:\n now  %+v\n sent %+v", i/2, i%2 == 1, kept[i].Messages, copies[i].Messages)
		}
	}
	for r := 0; r <= rounds; r++ {
		msgs := kept[2*r].Messages
		if r > 0 && &msgs[0] == &kept[2*(r-1)].Messages[0] {
			shared = true
		}
		if got, want := len(msgs), 2+2*r; got != want {
			t.Errorf("request %d has %d messages, want %d", r, got, want)
		}
	}
	if !shared {
		t.Error("no request extended the previous one's array: the test proves nothing")
	}
}
