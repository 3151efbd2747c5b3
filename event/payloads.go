package event

import "github.com/moteur/moteur/llm"

// SessionStartedPayload opens a session: what it runs with.
type SessionStartedPayload struct {
	Provider      string   `json:"provider"`
	Model         string   `json:"model"`
	ProjectRoot   string   `json:"project_root,omitempty"`
	Instructions  []string `json:"instructions,omitempty"`
	Tools         []string `json:"tools"`
	MaxIterations int      `json:"max_iterations"`
	Lang          string   `json:"lang"`
}

// UserMessagePayload is the user's input of a turn.
type UserMessagePayload struct {
	Text        string `json:"text"`
	Typed       string `json:"typed,omitempty"`
	Skill       string `json:"skill,omitempty"`
	SkillSHA256 string `json:"skill_sha256,omitempty"`
}

// AssistantMessagePayload is one model response kept in the conversation:
// a round that called tools, or the turn's answer.
type AssistantMessagePayload struct {
	Text      string         `json:"text"`
	Reasoning string         `json:"reasoning,omitempty"`
	ToolCalls []llm.ToolCall `json:"tool_calls,omitempty"`
	// Finish is the normalised finish reason of the response.
	Finish llm.FinishReason `json:"finish,omitempty"`
	// Truncated marks an answer cut by the output limit.
	Truncated bool `json:"truncated,omitempty"`
	// Synthetic marks text Moteur wrote itself (a fallback or the content
	// filter's notice) rather than the model.
	Synthetic bool       `json:"synthetic,omitempty"`
	Round     int        `json:"round"`
	Usage     *llm.Usage `json:"usage,omitempty"`
	Provider  string     `json:"provider,omitempty"`
	Model     string     `json:"model,omitempty"`
}

// ToolResultPayload is the outcome of one tool call.
type ToolResultPayload struct {
	CallID     string `json:"call_id"`
	Name       string `json:"name"`
	Content    string `json:"content"`
	IsError    bool   `json:"is_error,omitempty"`
	Display    string `json:"display,omitempty"`
	Truncated  bool   `json:"truncated,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Round      int    `json:"round"`
}

// ProviderRetryPayload records a transient provider failure about to be
// retried.
type ProviderRetryPayload struct {
	Attempt int    `json:"attempt"`
	DelayMS int64  `json:"delay_ms"`
	Error   string `json:"error"`
}

// Stop reasons of a turn, in TurnCompletedPayload.Reason.
const (
	StopNatural       = "stop"
	StopEmptyFallback = "empty_fallback"
	StopTruncated     = "truncated"
	StopLengthLimit   = "length_limit"
	StopContentFilter = "content_filter"
	StopRepeated      = "repeated"
	StopCancelled     = "cancelled"
	StopProviderError = "provider_error"
	StopMaxIterations = "max_iterations"
	StopError         = "error"
)

// TurnCompletedPayload closes a turn.
type TurnCompletedPayload struct {
	Reason string `json:"reason"`
	Answer string `json:"answer"`
	Rounds int    `json:"rounds"`
	// Requests counts every request sent to the provider, retries included.
	Requests  int       `json:"requests"`
	Usage     llm.Usage `json:"usage"`
	Truncated bool      `json:"truncated,omitempty"`
}

// ErrorPayload reports a failure the user must see.
type ErrorPayload struct {
	Message string `json:"message"`
	// Kind is "provider", "audit", "cancelled" or "internal".
	Kind      string `json:"kind"`
	Transient bool   `json:"transient,omitempty"`
	Status    int    `json:"status,omitempty"`
}

// DeltaPayload is a streamed fragment of the answer or of the reasoning.
type DeltaPayload struct {
	Text  string `json:"text"`
	Round int    `json:"round"`
}
