package engine

import (
	"context"
	"strings"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
)

// analyze applies seed 000's stop conditions to one response. It returns
// done when the turn ends; otherwise it has acted on the response (run its
// tools, or queued a nudge) and the loop goes on.
func (t *turn) analyze(ctx context.Context, resp llm.Response) (outcome, bool) {
	text := strings.TrimSpace(resp.Text)
	if resp.Finish == llm.FinishLength {
		t.lengthRounds++
	} else {
		t.lengthRounds = 0
	}
	lang := t.e.deps.Lang
	if t.lengthRounds >= maxConsecutiveLengthRounds {
		// Calls cut by the limit cannot run; the final message drops them
		// so that none is left unanswered.
		resp.ToolCalls = nil
		return t.answer(resp, event.StopLengthLimit, orDefault(text, i18n.T(lang, i18n.LengthLimit)), text == "", true), true
	}
	if len(resp.ToolCalls) > 0 {
		return t.withTools(ctx, resp)
	}
	switch {
	case resp.Finish == llm.FinishContentFilter:
		return t.answer(resp, event.StopContentFilter, orDefault(text, i18n.T(lang, i18n.ContentFiltered)), text == "", false), true
	case text == "":
		return t.empty(resp)
	case resp.Finish == llm.FinishLength:
		return t.answer(resp, event.StopTruncated, resp.Text, false, true), true
	case resp.Finish == llm.FinishToolCalls:
		// The model said it would call a tool and called none: the text is
		// not an answer. Keep it and let the model go on; two identical
		// such rounds in a row are a stall.
		return t.intermediate(resp)
	}
	// stop, end_turn, stop_sequence, and servers that send no finish
	// reason at all: the text is the answer.
	return t.answer(resp, event.StopNatural, resp.Text, false, false), true
}

// empty handles an answer with no text and no tool call: nudge the model up
// to maxEmptyResponseRetries times without consuming a round, then give the
// fixed fallback.
func (t *turn) empty(resp llm.Response) (outcome, bool) {
	if t.emptyRetries < maxEmptyResponseRetries {
		t.emptyRetries++
		t.extra = append(t.extra, llm.Message{Role: llm.RoleUser, Content: i18n.Nudge})
		return outcome{}, false
	}
	return t.answer(resp, event.StopEmptyFallback, i18n.T(t.e.deps.Lang, i18n.EmptyFallback), true, false), true
}

// intermediate keeps a non-final text and detects a stalled model.
func (t *turn) intermediate(resp llm.Response) (outcome, bool) {
	if resp.Text == t.lastNoTool {
		t.repeats++
	} else {
		t.lastNoTool, t.repeats = resp.Text, 1
	}
	if t.repeats >= maxRepeatedResponseRounds {
		return t.answer(resp, event.StopRepeated, resp.Text, false, false), true
	}
	t.round++
	t.record(resp, false, false)
	return outcome{}, false
}

// answer records the turn's final assistant message.
func (t *turn) answer(resp llm.Response, reason, text string, synthetic, truncated bool) outcome {
	resp.Text = text
	t.round++
	t.extra = nil
	t.record(resp, synthetic, truncated)
	return outcome{reason: reason, answer: text, truncated: truncated}
}

// record emits an AssistantMessage, which the state appends to the
// history.
func (t *turn) record(resp llm.Response, synthetic, truncated bool) {
	p := t.current().Provider // open made it the default candidate
	_, _ = t.emit(event.AssistantMessage, event.AssistantMessagePayload{
		Text: resp.Text, Reasoning: resp.Reasoning, ToolCalls: resp.ToolCalls, Finish: resp.Finish,
		Truncated: truncated, Synthetic: synthetic, Round: t.round, Usage: resp.Usage,
		Provider: p.Name(), Model: orDefault(resp.Model, p.Model()),
		Citations: t.conv().aliases.Citations(resp.Text),
	})
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// isLocal reports whether a provider declares itself local (it runs on this
// machine or network), through an optional Local method.
func isLocal(p any) bool {
	l, ok := p.(interface{ Local() bool })
	return ok && l.Local()
}
