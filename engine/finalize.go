package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
)

func (e *Engine) closingInstruction() string { return i18n.T(e.deps.Lang, i18n.ClosingInstruction) }

// synthesize asks for a final answer without tools (tool_choice=none,
// thinking off) from the history so far, fitted to the context window. It is
// the closing request at the iteration limit and the graceful way out of a
// provider failure; a cancelled turn sends nothing more (see cancelled).
func (t *turn) synthesize(ctx context.Context, reason, instruction string) outcome {
	if err := ctx.Err(); err != nil {
		// Never send on a dead context.
		return outcome{reason: event.StopCancelled, err: err}
	}
	req := t.request()
	req.Messages = append(slices.Clip(req.Messages[:len(req.Messages)-len(t.extra)]),
		llm.Message{Role: llm.RoleUser, Content: instruction})
	req.Messages = fitToWindow(req.Messages, t.e.synthesisBudget())
	req.ToolChoice, req.NoThinking = llm.ToolChoiceNone, true
	resp, err := t.think(ctx, req)
	if t.auditErr != nil {
		return outcome{}
	}
	if err != nil {
		return outcome{reason: event.StopError, err: fmt.Errorf("closing synthesis: %w", err)}
	}
	resp.ToolCalls = nil // tool_choice=none: calls a model makes anyway are dropped
	text := strings.TrimSpace(resp.Text)
	synthetic := text == ""
	out := t.answer(resp, reason, orDefault(text, i18n.T(t.e.deps.Lang, i18n.EmptyFallback)), synthetic,
		resp.Finish == llm.FinishLength)
	return out
}

// synthesisBudget is the prompt budget of a synthesis: the window less room
// for the answer.
func (e *Engine) synthesisBudget() int {
	w := e.deps.ContextWindow
	reserve := min(4096, w/4)
	return w - reserve
}

// Token estimates here use the seed's fallback of one token per four bytes
// of text plus a per-message overhead; the calibrated BPE estimator replaces
// it where compaction needs precision.
const perMessageOverhead = 3

func estimateTokens(s string) int { return (len(s) + 3) / 4 }

func estimateMessages(msgs []llm.Message) int {
	n := 3
	for _, m := range msgs {
		n += perMessageOverhead + estimateTokens(m.Content)
		for _, c := range m.ToolCalls {
			n += estimateTokens(c.Name) + estimateTokens(c.Arguments)
		}
	}
	return n
}

// fitToWindow shortens tool results, oldest first, until the messages fit
// budget. Each result keeps its head so the model still sees what it was.
// Messages are copied, never changed in place.
func fitToWindow(msgs []llm.Message, budget int) []llm.Message {
	over := estimateMessages(msgs) - budget
	if over <= 0 {
		return msgs
	}
	out := append([]llm.Message(nil), msgs...)
	for i := range out {
		if over <= 0 {
			break
		}
		if out[i].Role != llm.RoleTool {
			continue
		}
		before := estimateTokens(out[i].Content)
		out[i].Content = shorten(out[i].Content, max(0, before-over)*4)
		over -= before - estimateTokens(out[i].Content)
	}
	return out
}

const shortenedMarker = "\n[… result shortened to fit the context window …]"

// shorten keeps at most keep bytes of s (on a rune boundary) and marks the
// cut.
func shorten(s string, keep int) string {
	if len(s) <= keep {
		return s
	}
	keep = max(0, keep-len(shortenedMarker))
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + shortenedMarker
}
