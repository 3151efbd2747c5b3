package tui

import (
	"fmt"
	"strings"

	"github.com/moteur/moteur/event"
)

// event shows one event of the session; live is false for the stored
// events of a resumed session, which open no dialog and run no clock.
func (m *Model) event(ev event.Event, live bool) {
	if live {
		m.lastEvent = m.now()
	}
	if p, ok := ev.Payload.(event.AssistantMessagePayload); ok {
		for _, c := range p.ToolCalls {
			m.calls[c.ID] = c
		}
	}
	if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok {
		if live {
			m.approval = m.newApproval(p)
		}
		return
	}
	if p, ok := ev.Payload.(event.PermissionResolvedPayload); ok {
		// How it was resolved without the dialog (a timeout, another
		// terminal) the approvals say, in a note of their own.
		if m.approval != nil && m.approval.req.ID == p.ID {
			m.approval = nil
		}
		return
	}
	// A sub-agent's events would interleave with the parent's; its result
	// reaches the screen through the parent's tool result.
	if ev.ParentCallID != "" {
		return
	}
	switch p := ev.Payload.(type) {
	case event.UserMessagePayload:
		if !live {
			text := p.Text
			if p.Typed != "" {
				text = p.Typed
			}
			m.add(&block{kind: blockUser, text: text})
		}
	case event.DeltaPayload:
		switch ev.Type {
		case event.AssistantDelta:
			m.answerDelta(p)
		case event.ReasoningDelta:
			m.reasoningDelta(p)
		}
	case event.AssistantMessagePayload:
		m.assistantMessage(p, live)
	case event.ToolResultPayload:
		m.toolResult(p)
	case event.ToolProgressPayload:
		if b := m.toolBlock(p.CallID); b != nil {
			b.progress = progressLine(p)
		}
	case event.ProviderRetryPayload:
		m.endStreams()
		m.dropStream()
		m.add(&block{kind: blockNote, text: fmt.Sprintf(m.tx.retry, OneLine(p.Error, 300), p.Attempt, p.DelayMS)})
	case event.McpServerDownPayload:
		m.add(&block{kind: blockError, text: fmt.Sprintf("MCP %s: %s", OneLine(p.Name, 60), OneLine(p.Error, 300))})
	case event.ProviderSelectedPayload:
		m.add(&block{kind: blockNote, text: fmt.Sprintf("%s (%s)", OneLine(p.Provider, 60), OneLine(p.Reason, 300))})
	case event.SessionClassifiedPayload:
		m.add(&block{kind: blockNote, text: fmt.Sprintf(m.tx.classified, OneLine(p.Marking, 80))})
	case event.WarningPayload:
		m.add(&block{kind: blockError, text: OneLine(p.Message, 500)})
	case event.ContextCompactedPayload:
		m.add(&block{kind: blockNote, text: fmt.Sprintf(m.tx.compacted, p.TokensBefore, p.TokensAfter)})
	case event.ErrorPayload:
		if live {
			m.add(&block{kind: blockError, text: OneLine(p.Message, 2000)})
		}
	case event.TurnCompletedPayload:
		m.endStreams()
		if live {
			m.used.prompt += p.Usage.PromptTokens
			m.used.completion += p.Usage.CompletionTokens
			m.turnUsage = usage{}
		}
	}
}

// stream is the answer block being streamed, nil when none.
func (m *Model) stream() *block {
	if n := len(m.blocks); n > 0 && m.blocks[n-1].kind == blockAnswer && m.blocks[n-1].streaming {
		return m.blocks[n-1]
	}
	return nil
}

func (m *Model) answerDelta(p event.DeltaPayload) {
	b := m.stream()
	if b == nil || b.round != p.Round {
		m.endStreams()
		b = &block{kind: blockAnswer, streaming: true, round: p.Round}
		m.add(b)
	}
	b.stream.WriteString(p.Text)
}

func (m *Model) reasoningDelta(p event.DeltaPayload) {
	n := len(m.blocks)
	if n > 0 && m.blocks[n-1].kind == blockReasoning && m.blocks[n-1].round == p.Round {
		b := m.blocks[n-1]
		b.text += p.Text
		b.dirty = true
		return
	}
	m.endStreams()
	m.add(&block{kind: blockReasoning, text: p.Text, round: p.Round})
}

// endStreams ends the streamed answer: it is shown as Markdown from now on.
func (m *Model) endStreams() {
	if b := m.stream(); b != nil {
		b.streaming = false
		b.text = b.stream.String()
		b.stream.Reset()
		b.wrapped, b.dirty = nil, true
		if strings.TrimSpace(b.text) == "" {
			m.blocks = m.blocks[:len(m.blocks)-1]
		}
	}
}

// dropStream removes a streamed answer a retry makes void.
func (m *Model) dropStream() {
	if n := len(m.blocks); n > 0 && m.blocks[n-1].kind == blockAnswer && m.blocks[n-1].streaming {
		m.blocks = m.blocks[:n-1]
	}
}

func (m *Model) assistantMessage(p event.AssistantMessagePayload, live bool) {
	if p.Usage != nil && live {
		m.turnUsage.prompt += p.Usage.PromptTokens
		m.turnUsage.completion += p.Usage.CompletionTokens
		m.contextLen = p.Usage.PromptTokens + p.Usage.CompletionTokens
	}
	if p.Reasoning != "" && !live {
		m.add(&block{kind: blockReasoning, text: p.Reasoning, round: p.Round})
	}
	b := m.stream()
	text := strings.TrimSpace(p.Text)
	switch {
	case b != nil && b.round == p.Round:
		// What streamed is replaced by the message's text, which counts.
		if text != "" {
			b.stream.Reset()
			b.stream.WriteString(p.Text)
		}
		m.endStreams()
	case text != "":
		m.endStreams()
		m.add(&block{kind: blockAnswer, text: p.Text, round: p.Round})
	default:
		m.endStreams()
	}
	at := m.now()
	for _, c := range p.ToolCalls {
		m.add(&block{kind: blockTool, call: c, started: at, done: !live})
	}
}

func (m *Model) toolResult(p event.ToolResultPayload) {
	b := m.toolBlock(p.CallID)
	if b == nil {
		return
	}
	b.done, b.isError, b.output, b.progress = true, p.IsError, p.Content, ""
	b.duration = msDuration(p.DurationMS)
	if p.Display != "" && !p.IsError {
		b.output = p.Display
	}
	b.dirty = true
}

func (m *Model) toolBlock(callID string) *block {
	for i := len(m.blocks) - 1; i >= 0; i-- {
		if b := m.blocks[i]; b.kind == blockTool && b.call.ID == callID {
			return b
		}
	}
	return nil
}

func progressLine(p event.ToolProgressPayload) string {
	line := OneLine(p.Message, 200)
	switch {
	case p.Total > 0:
		line += fmt.Sprintf(" (%g/%g)", p.Done, p.Total)
	case p.Done > 0:
		line += fmt.Sprintf(" (%g)", p.Done)
	}
	return line
}

// showRecent shows the last turns of a resumed session's stored events.
func (m *Model) showRecent(evs []event.Event) {
	if len(evs) == 0 {
		return
	}
	from := max(0, len(evs)-recentEvents)
	// Start at a user message, so that no turn shows half.
	for i := from; i < len(evs); i++ {
		if evs[i].Type == event.UserMessage {
			from = i
			break
		}
	}
	m.add(&block{kind: blockNote, text: fmt.Sprintf(m.tx.continued, len(evs))})
	for _, ev := range evs[from:] {
		m.event(ev, false)
	}
	m.endStreams()
}
