package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

var update = flag.Bool("update", false, "rewrite the golden event streams")

// Golden event streams pin the exact events (types, order, seq, payloads)
// of key scenarios: a change to what the engine emits shows up as a diff.
func TestGoldenStreams(t *testing.T) {
	usage := &llm.Usage{PromptTokens: 120, CompletionTokens: 12, TotalTokens: 132}
	scenarios := map[string][]scripted.Step{
		"answer": {{Text: "Bonjour !", Reasoning: "Salutation simple.", Usage: usage}},
		"tool_round": {
			{Text: "Je regarde.", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "echo", Arguments: `{"q":"moteur"}`}}, Usage: usage},
			{Text: "Trouvé : moteur.", Usage: usage},
		},
		"max_iterations": {
			scripted.Call("call_1", "echo", `{"q":"a"}`),
			{Text: "Synthèse."},
		},
		"provider_error": {scripted.Fail(0, 400, "model not found")},
	}
	for name, steps := range scenarios {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, steps, []tools.Tool{&fakeTool{name: "echo"}}, func(d *Deps) {
				if name == "max_iterations" {
					d.MaxIterations = 1
				}
			})
			_ = h.submit("Bonjour")
			var buf bytes.Buffer
			for _, ev := range h.drain() {
				b, err := json.Marshal(ev)
				if err != nil {
					t.Fatal(err)
				}
				buf.Write(b)
				buf.WriteByte('\n')
			}
			path := filepath.Join("testdata", "golden", name+".jsonl")
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./engine -run TestGoldenStreams -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("event stream differs from %s (review, then -update):\n got: %s\nwant: %s", path, buf.Bytes(), want)
			}
			checkDecodes(t, want)
		})
	}
}

// checkDecodes reads a golden stream back: what was written must decode to
// typed payloads.
func checkDecodes(t *testing.T, b []byte) {
	t.Helper()
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		ev, err := event.Decode(line)
		if err != nil {
			t.Fatalf("decode %s: %v", line, err)
		}
		if _, raw := ev.Payload.(json.RawMessage); raw {
			t.Errorf("event %s decoded without a typed payload", ev.Type)
		}
	}
}
