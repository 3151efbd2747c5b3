package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

func TestFitToWindowShortensOldestToolResultsFirst(t *testing.T) {
	big := strings.Repeat("é", 4000) // 8000 bytes, about 2000 tokens
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: "sys"},
		{Role: llm.RoleUser, Content: "q"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "t"}}},
		{Role: llm.RoleTool, ToolCallID: "1", Content: big},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "2", Name: "t"}}},
		{Role: llm.RoleTool, ToolCallID: "2", Content: big},
	}
	budget := estimateMessages(msgs) - 1000
	got := fitToWindow(msgs, budget)
	if est := estimateMessages(got); est > budget {
		t.Errorf("fitted estimate %d over budget %d", est, budget)
	}
	if got[3].Content == big || !strings.HasSuffix(got[3].Content, shortenedMarker) {
		t.Errorf("the oldest result was not shortened")
	}
	if got[5].Content != big {
		t.Errorf("the newest result was shortened although the oldest sufficed")
	}
	if !utf8.ValidString(got[3].Content) {
		t.Errorf("shortening split a rune")
	}
	if msgs[3].Content != big {
		t.Errorf("fitToWindow changed its input")
	}
}

func TestFitToWindowLeavesSmallHistoryAlone(t *testing.T) {
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "q"}, {Role: llm.RoleTool, Content: "r"}}
	if got := fitToWindow(msgs, 1000); &got[0] != &msgs[0] {
		t.Errorf("a history within budget must be returned as is")
	}
}

func TestClosingSynthesisFitsTheWindow(t *testing.T) {
	huge := strings.Repeat("ligne de résultat\n", 3000) // about 14k tokens
	steps := []scripted.Step{scripted.Call("c1", "big", `{}`), scripted.Call("c2", "big", `{}`), {Text: "fin"}}
	bigTool := &fakeTool{name: "big", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: huge}, nil
	}}
	h := newHarness(t, steps, nil, func(d *Deps) {
		d.MaxIterations = 2
		d.ContextWindow = 20000
		d.Tools = tools.NewRegistry(tools.Config{MaxOutput: 1 << 20})
		_ = d.Tools.Register(bigTool)
	})
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	reqs := h.p.Requests()
	closing := reqs[len(reqs)-1]
	if est := estimateMessages(closing.Messages); est > h.e.synthesisBudget() {
		t.Errorf("closing request estimated at %d tokens, budget %d", est, h.e.synthesisBudget())
	}
	var results []string
	for _, m := range closing.Messages {
		if m.Role == llm.RoleTool {
			results = append(results, m.Content)
		}
	}
	if len(results) != 2 || !strings.HasSuffix(results[0], shortenedMarker) || results[1] != huge {
		t.Errorf("want the oldest result shortened and the newest intact, got %d results", len(results))
	}
}
