package server

import (
	"strings"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
)

// completionJSON is a chat.completion, with the door's extra fields.
type completionJSON struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []choiceJSON `json:"choices"`
	Usage   *llm.Usage   `json:"usage,omitempty"`
	replyExtras
}

type choiceJSON struct {
	Index        int          `json:"index"`
	Message      *messageJSON `json:"message,omitempty"`
	Delta        *messageJSON `json:"delta,omitempty"`
	FinishReason *string      `json:"finish_reason"`
	Logprobs     *struct{}    `json:"logprobs"`
}

type messageJSON struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
	Refusal *string `json:"refusal,omitempty"`
}

// replyExtras are the fields Moteur adds to OpenAI's shapes.
type replyExtras struct {
	SessionID string `json:"session_id,omitempty"`
	// StopReason is the turn's TurnCompleted reason (stop, max_iterations,
	// cancelled, …).
	StopReason string `json:"stop_reason,omitempty"`
	// Citations are the sources the answer cites ([c1] …).
	Citations []cite.Ref `json:"citations,omitempty"`
	// DeniedCalls are the tool calls of the turn that were not run
	// because their approval was refused (by the door for a key that may
	// not wait, by a person, or by the timeout).
	DeniedCalls []deniedCall `json:"denied_calls,omitempty"`
	// Prompt is a call waiting for an approval, on a chunk of its own.
	Prompt *promptRef `json:"prompt,omitempty"`
}

type deniedCall struct {
	ID      string `json:"id"`
	Tool    string `json:"tool"`
	Summary string `json:"summary"`
	By      string `json:"by"`
	Reason  string `json:"reason,omitempty"`
}

// promptRef is a waiting approval: POST /api/v1/agent/prompts/{id}
// answers it.
type promptRef struct {
	ID      string `json:"id"`
	Tool    string `json:"tool"`
	Summary string `json:"summary"`
	Risk    string `json:"risk"`
}

// reply follows a turn's events and makes its answer. Only the top-level
// agent's text counts — not a sub-agent's, not reasoning, not tool calls.
// Its text is streamed as the model writes it, rounds that ended in tool
// calls included (a blank line after each), and the answer is completed
// at the end when what was streamed of it falls short of it (a fallback
// Moteur wrote, a round whose deltas did not all arrive). It is used by
// one goroutine.
type reply struct {
	round     strings.Builder // the text streamed since the last AssistantMessage
	lastText  string          // what was streamed of the last AssistantMessage
	lastFinal bool            // the last AssistantMessage called no tool
	sent      bool            // some text was sent
	sep       bool            // a blank line is due before more text
	citations []cite.Ref
	asked     map[string]event.PermissionRequestedPayload
	denied    []deniedCall
	done      *event.TurnCompletedPayload
	failure   string // the top-level Error's message
}

// feed takes one event and returns the text to send for it ("" for
// none) and the approval it waits for, if any.
func (r *reply) feed(ev event.Event) (text string, prompt *promptRef) {
	if r.asked == nil {
		r.asked = map[string]event.PermissionRequestedPayload{}
	}
	switch p := ev.Payload.(type) {
	case event.PermissionRequestedPayload:
		r.asked[p.ID] = p
		return "", &promptRef{ID: p.ID, Tool: p.Tool, Summary: p.Summary, Risk: p.Risk}
	case event.PermissionResolvedPayload:
		if !p.Allow {
			r.denied = append(r.denied, deniedCall{ID: p.ID, Tool: p.Tool, Summary: r.asked[p.ID].Summary, By: p.By, Reason: p.Reason})
		}
		return "", nil
	}
	if ev.ParentCallID != "" {
		return "", nil
	}
	switch p := ev.Payload.(type) {
	case event.DeltaPayload:
		if ev.Type == event.AssistantDelta {
			return r.text(p.Text), nil
		}
	case event.ProviderRetryPayload:
		// The attempt's text was sent; the retry writes it again.
		r.endRound()
	case event.AssistantMessagePayload:
		r.lastText, r.lastFinal = r.round.String(), len(p.ToolCalls) == 0
		r.citations = p.Citations
		r.endRound()
	case event.ErrorPayload:
		r.failure = p.Message
	case event.TurnCompletedPayload:
		r.done = &p
		return r.rest(p.Answer), nil
	}
	return "", nil
}

// text is a delta to send, after the blank line that ends the text of an
// earlier round.
func (r *reply) text(s string) string {
	if s == "" {
		return ""
	}
	r.round.WriteString(s)
	if r.sep {
		s = "\n\n" + s
		r.sep = false
	}
	r.sent = true
	return s
}

func (r *reply) endRound() {
	r.sep = r.sep || r.round.Len() > 0
	r.round.Reset()
}

// rest is what the answer needs beyond what was streamed of it.
func (r *reply) rest(answer string) string {
	streamed := r.round.String()
	if r.lastFinal {
		streamed = r.lastText
	}
	if answer == "" || !strings.HasPrefix(answer, streamed) {
		// Streamed text that is not a prefix of the answer is the answer
		// as the model wrote it (the log keeps it masked): nothing to add.
		return ""
	}
	if streamed != "" {
		r.sep = false // the answer's start is sent already
	}
	return r.text(answer[len(streamed):])
}

// failed reports a turn that ended on an error without an answer: the
// client gets an error, not an empty completion.
func (r *reply) failed() bool {
	if r.done == nil {
		return false
	}
	switch r.done.Reason {
	case event.StopError, event.StopProviderError:
		return r.done.Answer == "" && !r.sent
	}
	return false
}

// finishReason is OpenAI's finish_reason for the turn's end.
func (r *reply) finishReason() string {
	switch {
	case r.done == nil:
		return "stop"
	case r.done.Truncated || r.done.Reason == event.StopTruncated || r.done.Reason == event.StopLengthLimit:
		return "length"
	case r.done.Reason == event.StopContentFilter:
		return "content_filter"
	}
	return "stop"
}

// extras are the door's fields of the finishing chunk or the completion.
func (r *reply) extras(sessionID string) replyExtras {
	x := replyExtras{SessionID: sessionID, Citations: r.citations, DeniedCalls: r.denied}
	if r.done != nil {
		x.StopReason = r.done.Reason
	}
	return x
}

// usage is the turn's usage, as TurnCompleted counts it.
func (r *reply) usage() *llm.Usage {
	if r.done == nil {
		return &llm.Usage{}
	}
	u := r.done.Usage
	return &u
}

// failure message of a failed turn.
func (r *reply) failureMessage() string {
	if r.failure != "" {
		return "the agent's turn failed: " + r.failure
	}
	return "the agent's turn failed (" + r.done.Reason + ")"
}
