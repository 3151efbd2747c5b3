package engine

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

// discard is a sink that keeps nothing: the benchmark measures the engine.
type discard struct{}

func (discard) Write(context.Context, event.Event) error { return nil }

// BenchmarkTurn runs one turn of 10 rounds with 2 concurrent tool calls a
// round, 50 tools registered, against the scripted provider (issue 2's
// figure: engine overhead per round).
func BenchmarkTurn(b *testing.B) {
	const rounds = 10
	reg := tools.NewRegistry(tools.Config{})
	for i := range 50 {
		if err := reg.Register(&fakeTool{name: fmt.Sprintf("tool_%02d", i), concurrent: true}); err != nil {
			b.Fatal(err)
		}
	}
	steps := make([]scripted.Step, 0, rounds+1)
	for r := range rounds {
		steps = append(steps, scripted.Step{Text: "Je vérifie deux sources.", ToolCalls: []llm.ToolCall{
			{ID: fmt.Sprintf("a%d", r), Name: "tool_07", Arguments: `{"q":"alpha"}`},
			{ID: fmt.Sprintf("b%d", r), Name: "tool_42", Arguments: `{"q":"beta"}`},
		}})
	}
	steps = append(steps, scripted.Step{Text: "Voici la réponse complète, fondée sur les résultats."})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e, err := New(Deps{Provider: scripted.New(scripted.Config{Steps: steps}), Tools: reg,
			Sinks: []event.Sink{discard{}}, MaxIterations: 50})
		if err != nil {
			b.Fatal(err)
		}
		ch := e.Subscribe()
		done := make(chan struct{})
		go func() {
			for ev := range ch {
				if ev.Type == event.TurnCompleted {
					close(done)
					return
				}
			}
		}()
		if err := e.Submit(context.Background(), "bench", "Compare les deux sources."); err != nil {
			b.Fatal(err)
		}
		<-done
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rounds, "ns/round")
}

// BenchmarkRestore10k rebuilds a session of 10 000 events: 1 000 turns of a
// user message, a round with two tool calls and their results, an answer
// and the turn's end, plus retries and errors that Restore skips.
func BenchmarkRestore10k(b *testing.B) {
	var log []event.Event
	add := func(p any) {
		log = append(log, event.Event{Seq: uint64(len(log) + 1), Type: payloadTypes[reflect.TypeOf(p)], SessionID: "s", Payload: p})
	}
	add(event.SessionStartedPayload{Provider: "p"})
	for i := 0; len(log) < 10_000-9; i++ {
		add(event.UserMessagePayload{Text: fmt.Sprintf("question %d sur le contrat", i)})
		add(event.AssistantMessagePayload{Text: "Je cherche.", ToolCalls: []llm.ToolCall{
			{ID: fmt.Sprintf("a%d", i), Name: "search", Arguments: `{"q":"clause"}`},
			{ID: fmt.Sprintf("b%d", i), Name: "read", Arguments: `{"id":"d1"}`},
		}})
		add(event.ToolResultPayload{CallID: fmt.Sprintf("a%d", i), Name: "search", Content: "3 résultats"})
		add(event.ToolResultPayload{CallID: fmt.Sprintf("b%d", i), Name: "read", Content: "La clause 4 prévoit…"})
		add(event.ProviderRetryPayload{Attempt: 1})
		add(event.AssistantMessagePayload{Text: "La clause 4 prévoit un préavis de trois mois."})
		add(event.TurnCompletedPayload{Reason: "stop"})
	}
	for len(log) < 10_000 {
		add(event.ErrorPayload{Message: "x"})
	}
	b.ReportAllocs()
	for b.Loop() {
		e, err := New(Deps{Provider: scripted.New(scripted.Config{})})
		if err != nil {
			b.Fatal(err)
		}
		if err := e.Restore("s", log); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSubAgent runs one turn whose single round starts one child of
// 10 rounds (2 concurrent tool calls a round); compare with BenchmarkTurn
// for the overhead a child adds over its own rounds.
func BenchmarkSubAgent(b *testing.B) {
	const rounds = 10
	reg := tools.NewRegistry(tools.Config{})
	for i := range 50 {
		if err := reg.Register(&fakeTool{name: fmt.Sprintf("tool_%02d", i), concurrent: true}); err != nil {
			b.Fatal(err)
		}
	}
	cat, _ := agents.Load(agents.Config{})
	fn := func(req llm.Request) llm.Response {
		n := toolRounds(req)
		if isChild(req) {
			if n < rounds {
				return llm.Response{Text: "Je vérifie deux sources.", Finish: llm.FinishToolCalls, ToolCalls: []llm.ToolCall{
					{ID: fmt.Sprintf("a%d", n), Name: "tool_07", Arguments: `{"q":"alpha"}`},
					{ID: fmt.Sprintf("b%d", n), Name: "tool_42", Arguments: `{"q":"beta"}`}}}
			}
			return llm.Response{Text: "Voici la réponse complète, fondée sur les résultats.", Finish: llm.FinishStop}
		}
		if n == 0 {
			return llm.Response{Finish: llm.FinishToolCalls, ToolCalls: []llm.ToolCall{{ID: "p1", Name: agents.ToolName,
				Arguments: `{"description":"d","prompt":"Compare les deux sources.","subagent_type":"general-purpose"}`}}}
		}
		return llm.Response{Text: "Synthèse.", Finish: llm.FinishStop}
	}
	b.ReportAllocs()
	for b.Loop() {
		e, err := New(Deps{Provider: &funcProvider{name: "p", fn: fn}, Tools: reg, Agents: cat,
			Sinks: []event.Sink{discard{}}, MaxIterations: 50})
		if err != nil {
			b.Fatal(err)
		}
		ch := e.Subscribe()
		go func() {
			for range ch {
			}
		}()
		if err := e.Submit(context.Background(), "bench", "Délègue la comparaison."); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rounds, "ns/child-round")
}
