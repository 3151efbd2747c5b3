package rag_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/rag"
)

// TestAgentOptionsReachTheGeneration: a custom agent's temperature, max
// tokens and instructions are in the generation's body; the rewrite keeps
// its own budget.
func TestAgentOptionsReachTheGeneration(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Answer("Combien de jours de télétravail par semaine ?"),
		openaitest.Answer("Deux jours [c1]."))
	temp := 0.0
	p := pipeline(t, rag.Config{Router: router(t, srv, false), Temperature: &temp, MaxTokens: 1234,
		Instructions: "Réponds en une phrase."})
	history := []llm.Message{
		{Role: llm.RoleUser, Content: "Parle-moi du télétravail."},
		{Role: llm.RoleAssistant, Content: "Le télétravail est encadré [c1]."},
	}
	if _, err := p.Ask(context.Background(), "Combien de jours par semaine ?", history, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the rewrite and the generation", len(reqs))
	}
	type options struct {
		Temperature *float64 `json:"temperature"`
		MaxTokens   int      `json:"max_tokens"`
	}
	var rewrite, gen options
	if err := json.Unmarshal(reqs[0].Body, &rewrite); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(reqs[1].Body, &gen); err != nil {
		t.Fatal(err)
	}
	if gen.Temperature == nil || *gen.Temperature != 0 || gen.MaxTokens != 1234 {
		t.Errorf("generation body %s, want temperature 0 and max_tokens 1234", reqs[1].Body)
	}
	if !strings.HasSuffix(reqs[1].Messages[0].Content, "\n\nRéponds en une phrase.") {
		t.Errorf("generation system prompt %q, want the agent's instructions after Moteur's", reqs[1].Messages[0].Content)
	}
	if rewrite.MaxTokens != 200 || rewrite.Temperature != nil {
		t.Errorf("rewrite body %s, want its own budget of 200 and no temperature", reqs[0].Body)
	}
}
