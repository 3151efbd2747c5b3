package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/moteur/moteur/llm"
)

// This file holds the wire shape of what servers send back: the streamed
// chunk (chat.completion.chunk) and the whole completion (chat.completion),
// which differ only in "delta" versus "message". Decoding is lenient where
// servers differ and the difference is harmless (content as parts, arguments
// as an object, odd usage), strict where guessing would corrupt the answer.

// wireChunk is one streamed chunk or a whole completion.
type wireChunk struct {
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   wireUsage    `json:"usage"`
	// Error is an in-stream failure; its shapes vary (object or string), so
	// it is parsed by parseErrorBody.
	Error json.RawMessage `json:"error"`
}

type wireChoice struct {
	Index        int          `json:"index"`
	Delta        *wireMessage `json:"delta"`
	Message      *wireMessage `json:"message"`
	FinishReason *string      `json:"finish_reason"`
}

// wireMessage is a delta or a whole message.
type wireMessage struct {
	Content wireContent `json:"content"`
	// DeepSeek, and vLLM and llama.cpp with a reasoning parser, send
	// reasoning_content; OpenRouter and newer vLLM send reasoning.
	ReasoningContent string             `json:"reasoning_content"`
	Reasoning        string             `json:"reasoning"`
	ToolCalls        []wireToolCallFrag `json:"tool_calls"`
}

// reasoning returns the message's reasoning field. Servers in transition
// from one name to the other send both with the same text, so one is taken,
// not both.
func (m *wireMessage) reasoning() string {
	if m.ReasoningContent != "" {
		return m.ReasoningContent
	}
	return m.Reasoning
}

// wireToolCallFrag is a tool call or a fragment of one.
type wireToolCallFrag struct {
	// Index is a pointer because some servers omit it, and 0 is an index.
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string   `json:"name"`
		Arguments wireArgs `json:"arguments"`
	} `json:"function"`
}

// wireContent is a content field: a string, null, or (Mistral's reasoning
// models) a list of parts where "thinking" parts hold the reasoning.
type wireContent struct {
	Text, Thinking string
}

func (c *wireContent) UnmarshalJSON(b []byte) error {
	switch firstByte(b) {
	case 'n':
		return nil
	case '"':
		return unquote(b, &c.Text)
	case '[':
		return c.unmarshalParts(b)
	}
	return fmt.Errorf("content is neither a string nor a list of parts: %.40s", b)
}

type wirePart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

func (c *wireContent) unmarshalParts(b []byte) error {
	var parts []wirePart
	if err := json.Unmarshal(b, &parts); err != nil {
		return err
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			c.Text += p.Text
		case "thinking":
			// Mistral nests text parts in "thinking"; a plain string is
			// accepted too.
			var inner wireContent
			if len(p.Thinking) > 0 {
				if err := inner.UnmarshalJSON(p.Thinking); err != nil {
					return err
				}
			}
			c.Thinking += inner.Text + inner.Thinking
		}
	}
	return nil
}

// wireArgs is a tool call's arguments: a JSON string as the protocol says,
// or the object itself, as a few servers send it in whole completions.
type wireArgs string

func (a *wireArgs) UnmarshalJSON(b []byte) error {
	switch firstByte(b) {
	case 'n':
		return nil
	case '"':
		return unquote(b, (*string)(a))
	}
	*a = wireArgs(bytes.TrimSpace(b))
	return nil
}

// wireUsage keeps a chunk's usage when it decodes and ignores it otherwise:
// token counts are bookkeeping, and a server's odd usage (a float, a string)
// must not cost the answer. Extra fields (completion_tokens_details, cost)
// are ignored as encoding/json does.
type wireUsage struct {
	u *llm.Usage
}

func (w *wireUsage) UnmarshalJSON(b []byte) error {
	if firstByte(b) != '{' {
		return nil
	}
	var u llm.Usage
	if json.Unmarshal(b, &u) != nil {
		return nil
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	w.u = &u
	return nil
}

// unquote decodes a JSON string. Most streamed fragments have no escape, and
// taking their bytes as they are spares a second pass of encoding/json.
func unquote(b []byte, s *string) error {
	b = bytes.TrimSpace(b)
	if n := len(b); n >= 2 && b[0] == '"' && b[n-1] == '"' {
		inner := b[1 : n-1]
		if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			*s = string(inner)
			return nil
		}
	}
	return json.Unmarshal(b, s)
}

func firstByte(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
