package engine

import (
	"context"
	"fmt"
	"testing"

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
