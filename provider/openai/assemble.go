package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
)

// assembler turns decoded chunks into deltas, handing each to onDelta as it
// comes, and accumulates them into the Response. Response.Text and Reasoning
// are exactly the concatenation of the deltas' Text and Reasoning, so a
// caller that shows the deltas shows the answer.
type assembler struct {
	name    string // provider name, for errors
	onDelta func(llm.Delta)

	think     thinkSplitter
	calls     *callAssembler
	text      strings.Builder
	reasoning strings.Builder

	model     string
	rawFinish string
	finished  bool // a choice carried a finish reason
	usage     *llm.Usage
}

// newAssembler returns an assembler for one response. stamp returns what
// goes into the ids made up for tool calls that come without one.
func newAssembler(name string, stamp func() string, onDelta func(llm.Delta)) *assembler {
	if onDelta == nil {
		onDelta = func(llm.Delta) {}
	}
	return &assembler{
		name:    name,
		onDelta: onDelta,
		calls:   newCallAssembler(func(pos int) string { return syntheticID(pos, stamp()) }),
	}
}

// chunk decodes and applies one streamed chunk.
//
// A chunk that is not valid JSON fails the whole response with a Permanent
// error naming the chunk: skipping it could drop a piece of a tool call's
// arguments or of the answer and hand the engine something the model never
// said, and a server that emits broken JSON will likely do it again.
func (a *assembler) chunk(data []byte) error {
	var c wireChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return &provider.Error{Provider: a.name, Kind: provider.Permanent,
			Message: fmt.Sprintf("malformed stream chunk %q: %v", snippet(data, 200), err), Err: err}
	}
	return a.apply(&c, false)
}

// whole applies a non-streamed completion (a server ignoring stream:true).
func (a *assembler) whole(data []byte) error {
	var c wireChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return &provider.Error{Provider: a.name, Kind: provider.Permanent,
			Message: fmt.Sprintf("malformed completion %q: %v", snippet(data, 200), err), Err: err}
	}
	if err := a.apply(&c, true); err != nil {
		return err
	}
	if len(c.Choices) == 0 {
		return &provider.Error{Provider: a.name, Kind: provider.Permanent,
			Message: fmt.Sprintf("completion without choices: %q", snippet(data, 200))}
	}
	return nil
}

// apply hands out the deltas of one chunk (at least one, a zero Delta when
// the chunk shows nothing) and records its finish reason, usage and model.
// In a whole completion the choice's "message" is read instead of "delta".
func (a *assembler) apply(c *wireChunk, whole bool) error {
	if isErrorValue(c.Error) {
		return streamError(a.name, c.Error)
	}
	if c.Model != "" {
		a.model = c.Model
	}
	if c.Usage.u != nil {
		a.usage = c.Usage.u
	}
	var d llm.Delta
	var tcs []llm.ToolCallDelta
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // one choice is asked for; others are not this answer
		}
		m := ch.Delta
		if whole {
			m = ch.Message
		}
		if m != nil {
			text, thought := a.think.write(m.Content.Text)
			d.Text += text
			d.Reasoning += m.reasoning() + m.Content.Thinking + thought
			tcs = append(tcs, a.calls.apply(m.ToolCalls)...)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.rawFinish, a.finished = *ch.FinishReason, true
		}
	}
	a.send(d, tcs)
	return nil
}

// send delivers a delta per tool call fragment, the first one carrying the
// chunk's text and reasoning too, or d alone when there is no fragment.
func (a *assembler) send(d llm.Delta, tcs []llm.ToolCallDelta) {
	if len(tcs) > 0 {
		d.ToolCall = &tcs[0]
	}
	a.deliver(d)
	for i := 1; i < len(tcs); i++ {
		a.deliver(llm.Delta{ToolCall: &tcs[i]})
	}
}

func (a *assembler) deliver(d llm.Delta) {
	a.text.WriteString(d.Text)
	a.reasoning.WriteString(d.Reasoning)
	a.onDelta(d)
}

// response assembles the Response. At the end of a whole stream (flush),
// what the think splitter held back goes out first; after a failure it is
// left out, as the response is only what came before the failure.
func (a *assembler) response(flush bool) llm.Response {
	if text, thought := a.think.flush(); flush && (text != "" || thought != "") {
		a.deliver(llm.Delta{Text: text, Reasoning: thought})
	}
	return llm.Response{
		Text:      a.text.String(),
		Reasoning: a.reasoning.String(),
		ToolCalls: a.calls.result(),
		Finish:    llm.NormalizeFinish(a.rawFinish),
		RawFinish: a.rawFinish,
		Usage:     a.usage,
		Model:     a.model,
	}
}

// snippet returns at most n bytes of b, for error messages.
func snippet(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
