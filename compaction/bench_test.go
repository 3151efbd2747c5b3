package compaction

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/moteur/moteur/llm"
)

const english = `The engine keeps the conversation within the model's context window. Before each request it estimates the size of the prompt, preferring the count the provider reported for the previous request, and compacts the oldest messages into a summary when the estimate passes the threshold. Tool results are the usual culprits: a single file read or test log can take thousands of tokens, and the model rarely needs it verbatim after a few steps. `

const french = `Le moteur garde la conversation dans la fenêtre de contexte du modèle. Avant chaque requête, il estime la taille de l'invite, en préférant le décompte que le fournisseur a renvoyé pour la requête précédente, et résume les messages les plus anciens lorsque l'estimation dépasse le seuil. Les résultats d'outils sont les coupables habituels : une seule lecture de fichier ou un journal de tests peut occuper des milliers de jetons, et le modèle en a rarement besoin mot pour mot après quelques étapes. `

func BenchmarkEstimator(b *testing.B) {
	code, err := os.ReadFile("compact.go")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, text string }{
		{"english", strings.Repeat(english, 40)},
		{"french", strings.Repeat(french, 40)},
		{"go", string(code)},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := NewEstimator()
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				e.Text(c.text)
			}
		})
	}
}

func history2000() []llm.Message {
	h := make([]llm.Message, 0, 2000)
	for i := 0; len(h) < 2000; i++ {
		id := fmt.Sprintf("c%d", i)
		h = append(h,
			llm.Message{Role: llm.RoleAssistant, Content: english[:100], ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, i)}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: fmt.Sprintf("%d %s", i, english)})
	}
	return h
}

// BenchmarkDue2000 measures the decision before a send when nothing is due:
// with the reported usage (the usual case: one new message to estimate) and
// without (a full count through the per-message cache, warm).
func BenchmarkDue2000(b *testing.B) {
	h := history2000()
	c := New(Config{Window: 1 << 30})
	b.Run("usage", func(b *testing.B) {
		u := &llm.Usage{PromptTokens: 200000, CompletionTokens: 100}
		for b.Loop() {
			if c.Due(h, 1000, u, len(h)-1) {
				b.Fatal("due")
			}
		}
	})
	b.Run("full-cached", func(b *testing.B) {
		c.Due(h, 1000, nil, 0) // warm the cache
		for b.Loop() {
			if c.Due(h, 1000, nil, 0) {
				b.Fatal("due")
			}
		}
	})
}
