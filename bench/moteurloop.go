package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
)

// MoteurLoop plays the turn on Moteur's engine as engine.BenchmarkTurn
// does: a registry of Tools concurrent read tools, an engine built per
// turn, a sink that keeps nothing; the model answers as eino's scripted
// model does (scriptedModel).
type MoteurLoop struct {
	reg   *tools.Registry
	steps []llm.Response
}

// NewMoteurLoop registers the tools and scripts the turn.
func NewMoteurLoop() (*MoteurLoop, error) {
	l := &MoteurLoop{reg: tools.NewRegistry(tools.Config{})}
	for i := range Tools {
		if err := l.reg.Register(&moteurTool{name: toolName(i)}); err != nil {
			return nil, fmt.Errorf("moteur loop: %w", err)
		}
	}
	for r := range Rounds {
		var calls []llm.ToolCall
		for _, c := range roundCalls(r) {
			calls = append(calls, llm.ToolCall{ID: c.id, Name: c.name, Arguments: c.args})
		}
		l.steps = append(l.steps, llm.Response{Text: roundText, ToolCalls: calls, Finish: llm.FinishToolCalls})
	}
	l.steps = append(l.steps, llm.Response{Text: answerText, Finish: llm.FinishStop})
	return l, nil
}

// Turn plays one turn and returns the answer and the number of tool
// results the engine recorded.
func (l *MoteurLoop) Turn(ctx context.Context) (answer string, results int, err error) {
	e, err := engine.New(engine.Deps{Provider: &moteurModel{steps: l.steps}, Tools: l.reg,
		Sinks: []event.Sink{discard{}}, MaxIterations: 50})
	if err != nil {
		return "", 0, fmt.Errorf("moteur loop: %w", err)
	}
	ch := e.Subscribe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range ch {
			switch p := ev.Payload.(type) {
			case event.ToolResultPayload:
				results++
			case event.AssistantMessagePayload:
				if len(p.ToolCalls) == 0 {
					answer = p.Text
				}
			}
			if ev.Type == event.TurnCompleted {
				return
			}
		}
	}()
	if err := e.Submit(ctx, "bench", userText); err != nil {
		return "", 0, fmt.Errorf("moteur loop: %w", err)
	}
	<-done
	return answer, results, nil
}

// moteurModel answers round r with round r's calls, then the answer, as
// eino's scriptedModel does: each response whole, and nothing kept of the
// requests. Moteur's provider/scripted (which engine.BenchmarkTurn uses)
// also records a copy of every request for tests to inspect and streams
// each step word by word: work eino's model does not do in this script,
// which made the loop pay for the test double (about a seventh of its
// bytes).
type moteurModel struct {
	mu    sync.Mutex
	steps []llm.Response
	next  int
}

func (m *moteurModel) Name() string  { return "scripted" }
func (m *moteurModel) Model() string { return "scripted-1" }

func (m *moteurModel) Stream(context.Context, llm.Request, func(llm.Delta)) (llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next >= len(m.steps) {
		return llm.Response{}, errors.New("moteur model: no more responses")
	}
	r := m.steps[m.next]
	m.next++
	// The engine owns the calls it is given, as a provider's decoder
	// would hand it fresh ones.
	r.ToolCalls = slices.Clone(r.ToolCalls)
	return r, nil
}

// discard is a sink that keeps nothing: the benchmark measures the loop.
type discard struct{}

func (discard) Write(context.Context, event.Event) error { return nil }

// moteurTool answers "ok:<name>" at once, as engine.BenchmarkTurn's tools.
type moteurTool struct{ name string }

func (t *moteurTool) Name() string        { return t.name }
func (t *moteurTool) Description() string { return "test tool " + t.name }
func (t *moteurTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
}
func (t *moteurTool) Risk() effect.Risk { return effect.RiskRead }
func (t *moteurTool) Concurrent() bool  { return true }
func (t *moteurTool) Execute(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{Content: "ok:" + t.name}, nil
}
