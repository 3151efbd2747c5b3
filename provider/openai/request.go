package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/moteur/moteur/llm"
)

// wireRequest is the body of POST /chat/completions.
type wireRequest struct {
	Model         string        `json:"model"`
	Messages      []wireOutMsg  `json:"messages"`
	Tools         []wireTool    `json:"tools,omitempty"`
	ToolChoice    string        `json:"tool_choice,omitempty"`
	Stream        bool          `json:"stream"`
	StreamOptions streamOptions `json:"stream_options"`
	MaxTokens     int           `json:"max_tokens,omitempty"`
	Temperature   *float64      `json:"temperature,omitempty"`
	// ReasoningEffort is the level sent, adjusted to the server's (see
	// Client.EffortFor), or none.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
}

// streamOptions asks for the usage chunk at the end of the stream.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// wireOutMsg is a message as sent. Reasoning and Remote stay home: they are
// Moteur's record, and servers reject or misread fields they do not know.
type wireOutMsg struct {
	Role string `json:"role"`
	// Content is always sent, "" for an assistant message made only of tool
	// calls: a few servers reject a missing content, none reject "".
	Content    string        `json:"content"`
	ToolCalls  []wireOutCall `json:"tool_calls,omitempty"`
	ToolCallID string        `json:"tool_call_id,omitempty"`
}

type wireOutCall struct {
	ID       string      `json:"id"`
	Type     string      `json:"type"`
	Function wireOutFunc `json:"function"`
}

type wireOutFunc struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string      `json:"type"`
	Function wireToolDef `json:"function"`
}

type wireToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema stands for a tool without parameters: several servers require
// "parameters" to be an object schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildRequest maps an llm.Request onto the wire; model is the model to ask
// for (the request's, else the configured one).
func buildRequest(req llm.Request, model string) wireRequest {
	w := wireRequest{
		Model:         model,
		Messages:      make([]wireOutMsg, len(req.Messages)),
		Stream:        true,
		StreamOptions: streamOptions{IncludeUsage: true},
		MaxTokens:     max(req.MaxTokens, 0),
		Temperature:   req.Temperature,
	}
	for i, m := range req.Messages {
		w.Messages[i] = outMessage(m)
	}
	for _, t := range req.Tools {
		w.Tools = append(w.Tools, outTool(t))
	}
	if req.ToolChoice == llm.ToolChoiceNone {
		w.ToolChoice = string(llm.ToolChoiceNone)
	}
	return w
}

func outMessage(m llm.Message) wireOutMsg {
	w := wireOutMsg{Role: string(m.Role), Content: m.Content}
	if m.Role == llm.RoleTool {
		w.ToolCallID = m.ToolCallID
	}
	for _, c := range m.ToolCalls {
		w.ToolCalls = append(w.ToolCalls, wireOutCall{
			ID: c.ID, Type: "function",
			Function: wireOutFunc{Name: c.Name, Arguments: outArguments(c.Arguments)},
		})
	}
	return w
}

// outArguments sends "{}" for empty arguments: servers whose chat template
// parses the arguments of past calls fail on "".
func outArguments(args string) string {
	if strings.TrimSpace(args) == "" {
		return "{}"
	}
	return args
}

func outTool(t llm.ToolDef) wireTool {
	params := t.Parameters
	if len(params) == 0 || string(params) == "null" {
		params = emptySchema
	}
	return wireTool{Type: "function", Function: wireToolDef{
		Name: t.Name, Description: t.Description, Parameters: params,
	}}
}

// objectFields checks that raw is a JSON object and returns its members
// without the braces (nil for an absent or empty object).
func objectFields(raw json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("want a JSON object, got %.80q", raw)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	inner := bytes.TrimSpace(buf.Bytes()[1 : buf.Len()-1])
	if len(inner) == 0 {
		return nil, nil
	}
	return inner, nil
}

// addFields appends object members to an encoded JSON object.
func addFields(body, fields []byte) []byte {
	if len(fields) == 0 {
		return body
	}
	out := make([]byte, 0, len(body)+len(fields)+1)
	out = append(out, body[:len(body)-1]...)
	out = append(out, ',')
	out = append(out, fields...)
	return append(out, '}')
}
