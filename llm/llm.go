// Package llm holds the provider-neutral vocabulary of a conversation with a
// model: messages, tool calls, tool definitions, requests, streaming deltas,
// usage and finish reasons. It imports nothing of Moteur's, so every other
// package can speak it.
package llm

import "encoding/json"

// Role is the author of a message.
type Role string

// Roles of the chat-completions protocol.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of the conversation sent to a model.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// Reasoning is the model's visible thinking; it is kept for the record and
	// never sent back to a provider.
	Reasoning string `json:"reasoning,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID names the call a tool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool's name on a tool message.
	Name string `json:"name,omitempty"`
	// Remote marks content produced by a provider that is not local.
	Remote bool `json:"remote,omitempty"`
}

// ToolCall is a model's request to run one tool.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the raw JSON text the model produced; it may be invalid.
	Arguments string `json:"arguments"`
}

// ToolDef describes a tool to the model.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// ToolChoice constrains whether the model may call tools.
type ToolChoice string

// Tool choices. The zero value lets the provider decide (auto).
const (
	ToolChoiceAuto ToolChoice = ""
	ToolChoiceNone ToolChoice = "none"
)

// Request is one chat completion request.
type Request struct {
	// Model overrides the provider's configured model when set.
	Model      string
	Messages   []Message
	Tools      []ToolDef
	ToolChoice ToolChoice
	// MaxTokens caps the completion (0: the server's default).
	MaxTokens int
	// Temperature is sent only when set.
	Temperature *float64
	// NoThinking asks the provider to turn extended thinking off where the
	// server supports a switch for it.
	NoThinking bool
	// ReasoningEffort asks for a level of thinking, one of EffortLevels
	// ("": say nothing, the server's default). A provider that lacks the
	// level sends the nearest one it has; NoThinking wins over it.
	ReasoningEffort string
}

// Reasoning efforts a request may ask for, weakest first. "off" and "auto"
// are not among them: off is NoThinking and auto is the server's default,
// an empty ReasoningEffort.
const (
	EffortMinimal = "minimal"
	EffortLow     = "low"
	EffortMedium  = "medium"
	EffortHigh    = "high"
	EffortXHigh   = "xhigh"
	EffortMax     = "max"
)

// EffortLevels lists the reasoning efforts a request may ask for, weakest
// first.
func EffortLevels() []string {
	return []string{EffortMinimal, EffortLow, EffortMedium, EffortHigh, EffortXHigh, EffortMax}
}

// FinishReason says why the model stopped, normalised across servers.
type FinishReason string

// Normalised finish reasons. FinishUnknown is an absent or unrecognised one.
const (
	FinishUnknown       FinishReason = ""
	FinishStop          FinishReason = "stop"
	FinishLength        FinishReason = "length"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishContentFilter FinishReason = "content_filter"
)

// NormalizeFinish maps the finish reasons of the servers Moteur talks to onto
// the four it reasons about.
func NormalizeFinish(s string) FinishReason {
	switch s {
	case "stop", "end_turn", "stop_sequence", "eos", "eos_token":
		return FinishStop
	case "length", "max_tokens", "max_output_tokens", "model_length":
		return FinishLength
	case "tool_calls", "function_call", "tool_use":
		return FinishToolCalls
	case "content_filter", "safety", "refusal":
		return FinishContentFilter
	}
	return FinishUnknown
}

// Usage counts tokens as the server reported them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		TotalTokens:      u.TotalTokens + o.TotalTokens,
	}
}

// Delta is one piece of a streamed response. A zero Delta is a heartbeat: the
// stream is alive but carried nothing to show.
type Delta struct {
	Text      string
	Reasoning string
	// ToolCall reports progress on a call being assembled.
	ToolCall *ToolCallDelta
}

// ToolCallDelta is a fragment of a tool call as it streams in.
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

// Response is a whole streamed response, assembled.
type Response struct {
	Text      string
	Reasoning string
	ToolCalls []ToolCall
	Finish    FinishReason
	// RawFinish is the finish reason exactly as the server sent it.
	RawFinish string
	Usage     *Usage
	Model     string
}
