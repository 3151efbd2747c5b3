package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/i18n"
)

// completionRequest is the body of POST /v1/chat/completions: OpenAI's
// fields. reasoning_effort overrides the agent's, as seed 000 lets a
// request do. Those an agent's configuration governs (sampling, output
// limits) are accepted and ignored — the agent's model, temperature and
// max tokens apply; those the door cannot honour
// (client-side tools, several choices, structured output, logprobs,
// audio) are refused by name, as is any field OpenAI does not define.
type completionRequest struct {
	Model         string          `json:"model"`
	Messages      []inputMessage  `json:"messages"`
	Stream        bool            `json:"stream"`
	StreamOptions *streamOptions  `json:"stream_options"`
	User          string          `json:"user"`
	N             *int            `json:"n"`
	Tools         json.RawMessage `json:"tools"`
	Functions     json.RawMessage `json:"functions"`
	ToolChoice    json.RawMessage `json:"tool_choice"`
	FunctionCall  json.RawMessage `json:"function_call"`
	ResponseFmt   *responseFormat `json:"response_format"`
	Logprobs      *bool           `json:"logprobs"`
	TopLogprobs   *int            `json:"top_logprobs"`
	Audio         json.RawMessage `json:"audio"`
	Modalities    []string        `json:"modalities"`
	Prediction    json.RawMessage `json:"prediction"`
	WebSearch     json.RawMessage `json:"web_search_options"`
	// ReasoningEffort overrides the agent's reasoning effort (see
	// effort).
	ReasoningEffort json.RawMessage `json:"reasoning_effort"`

	// Accepted and ignored: the agent's configuration governs these.
	Temperature         json.RawMessage `json:"temperature"`
	TopP                json.RawMessage `json:"top_p"`
	MaxTokens           json.RawMessage `json:"max_tokens"`
	MaxCompletionTokens json.RawMessage `json:"max_completion_tokens"`
	FrequencyPenalty    json.RawMessage `json:"frequency_penalty"`
	PresencePenalty     json.RawMessage `json:"presence_penalty"`
	LogitBias           json.RawMessage `json:"logit_bias"`
	Seed                json.RawMessage `json:"seed"`
	Stop                json.RawMessage `json:"stop"`
	Metadata            json.RawMessage `json:"metadata"`
	Store               json.RawMessage `json:"store"`
	ServiceTier         json.RawMessage `json:"service_tier"`
	Verbosity           json.RawMessage `json:"verbosity"`
	ParallelToolCalls   json.RawMessage `json:"parallel_tool_calls"`
	PromptCacheKey      json.RawMessage `json:"prompt_cache_key"`
	SafetyIdentifier    json.RawMessage `json:"safety_identifier"`
}

type streamOptions struct {
	IncludeUsage       bool            `json:"include_usage"`
	IncludeObfuscation json.RawMessage `json:"include_obfuscation"`
}

func (o *streamOptions) includeUsage() bool { return o != nil && o.IncludeUsage }

type responseFormat struct {
	Type       string          `json:"type"`
	JSONSchema json.RawMessage `json:"json_schema"`
}

// inputMessage is one message of the request's conversation.
type inputMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Refusal    json.RawMessage `json:"refusal"`
	// FunctionCall and Audio are echoed back by some clients in the
	// assistant messages of a history.
	FunctionCall json.RawMessage `json:"function_call"`
	Audio        json.RawMessage `json:"audio"`
}

// contentPart is one part of an array content.
type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// check refuses what the door cannot honour, naming the field and why.
func (b *completionRequest) check() error {
	unsupported := func(format string, args ...any) error {
		return apiErrorf(http.StatusBadRequest, CodeUnsupported, format, args...)
	}
	switch {
	case strings.TrimSpace(b.Model) == "":
		return apiErrorf(http.StatusBadRequest, CodeInvalidField, `request body: "model" is required: an agent's id (GET /v1/models lists them)`)
	case len(b.Messages) == 0:
		return apiErrorf(http.StatusBadRequest, CodeNoQuestion, `request body: "messages" is empty: the last one, of role "user", is the question`)
	case b.N != nil && *b.N != 1:
		return unsupported(`"n": %d: an agent gives one answer per request (n must be 1)`, *b.N)
	case !isEmptyJSON(b.Tools) || !isEmptyJSON(b.Functions):
		return unsupported(`"tools": client-side tools are not supported: the agent runs its own tools on the server`)
	case !choiceNone(b.ToolChoice) || !choiceNone(b.FunctionCall):
		return unsupported(`"tool_choice": only "none" or "auto": the agent chooses its own tools`)
	case b.ResponseFmt != nil && b.ResponseFmt.Type != "" && b.ResponseFmt.Type != "text":
		return unsupported(`"response_format": %q: an agent answers in text only`, clip(b.ResponseFmt.Type))
	case b.Logprobs != nil && *b.Logprobs || b.TopLogprobs != nil && *b.TopLogprobs > 0:
		return unsupported(`"logprobs": an agent's answer has no log probabilities`)
	case !isEmptyJSON(b.Audio) || len(b.Modalities) > 0 && (len(b.Modalities) != 1 || b.Modalities[0] != "text"):
		return unsupported(`"audio" and "modalities": an agent answers in text only`)
	case !isEmptyJSON(b.Prediction):
		return unsupported(`"prediction": not supported`)
	case !isEmptyJSON(b.WebSearch):
		return unsupported(`"web_search_options": web search is the agent's setting (its web_search_enabled)`)
	}
	return nil
}

// effort is the reasoning effort the request asks for ("": none, the
// agent's): one of agentconfig.Efforts, or OpenAI's "none", which is off.
// Anything else is refused, naming the valid values.
func (b *completionRequest) effort() (string, error) {
	raw := bytes.TrimSpace(b.ReasoningEffort)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var e string
	if err := json.Unmarshal(raw, &e); err != nil {
		return "", apiErrorf(http.StatusBadRequest, CodeInvalidField, `"reasoning_effort" must be a string: one of none, %s`,
			strings.Join(agentconfig.Efforts(), ", "))
	}
	switch e {
	case "":
		return "", nil
	case "none":
		return agentconfig.EffortOff, nil
	}
	if agentconfig.CheckEffort(e) != nil {
		return "", apiErrorf(http.StatusBadRequest, CodeInvalidField, `"reasoning_effort": %q: want one of none, %s`,
			clip(e), strings.Join(agentconfig.Efforts(), ", "))
	}
	return e, nil
}

// isEmptyJSON: absent, null or an empty array or object.
func isEmptyJSON(raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "", "null", "[]", "{}":
		return true
	}
	return false
}

// choiceNone: a tool choice that asks for no particular tool.
func choiceNone(raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "", "null", `"none"`, `"auto"`:
		return true
	}
	return false
}

// text is the message's text: its string content, or its text parts
// joined by blank lines. Any other part (an image, a file, audio) is
// refused: an agent's question is text.
func (m inputMessage) text(i int) (string, error) {
	raw := bytes.TrimSpace(m.Content)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", invalidMessage(i, "content is not a valid JSON string")
		}
		return s, nil
	}
	var parts []contentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", invalidMessage(i, "content must be a string or an array of parts")
	}
	var texts []string
	for _, p := range parts {
		if p.Type != "text" {
			return "", apiErrorf(http.StatusBadRequest, CodeUnsupported,
				"messages[%d]: a content part of type %q: only text parts are supported", i, clip(p.Type))
		}
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n\n"), nil
}

func invalidMessage(i int, why string) error {
	return apiErrorf(http.StatusBadRequest, CodeInvalidMessage, "messages[%d]: %s", i, why)
}

// knownRoles are the roles of OpenAI's messages.
var knownRoles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true, "function": true}

// questionOf is the turn's question: the last message, which must be the
// user's. A session that continues has its own history, so the earlier
// messages (which clients send again with each request) are left out. A
// new session has none: its earlier messages, system ones included, are
// given as context before the question, quoted with their roles — they
// are the client's words and never replace Moteur's or the agent's
// instructions.
func questionOf(msgs []inputMessage, fresh bool, l i18n.Lang) (string, error) {
	texts := make([]string, len(msgs))
	for i, m := range msgs {
		if !knownRoles[m.Role] {
			return "", invalidMessage(i, `role `+quoteRole(m.Role)+`: want system, developer, user, assistant or tool`)
		}
		t, err := m.text(i)
		if err != nil {
			return "", err
		}
		texts[i] = t
	}
	last := len(msgs) - 1
	if msgs[last].Role != "user" {
		return "", apiErrorf(http.StatusBadRequest, CodeNoQuestion,
			`messages[%d]: the last message is of role %q: it must be the user's question`, last, msgs[last].Role)
	}
	question := texts[last]
	if strings.TrimSpace(question) == "" {
		return "", apiErrorf(http.StatusBadRequest, CodeNoQuestion, "messages[%d]: the question has no text", last)
	}
	if !fresh {
		return question, nil
	}
	var b strings.Builder
	for i, m := range msgs[:last] {
		if t := strings.TrimSpace(texts[i]); t != "" {
			b.WriteString("[" + m.Role + "] " + t + "\n\n")
		}
	}
	if b.Len() == 0 {
		return question, nil
	}
	intro, ask := contextWords(l)
	return intro + "\n\n" + b.String() + ask + "\n\n" + question, nil
}

// contextWords introduce the earlier messages of a new session and its
// question.
func contextWords(l i18n.Lang) (intro, question string) {
	if l.Normalize() == i18n.FR {
		return "Messages précédents de la conversation, tels que le client les a envoyés (pour contexte ; ceux du rôle system sont les consignes du client) :",
			"La question :"
	}
	return "Earlier messages of the conversation, as the client sent them (for context; those of the system role are the client's instructions):",
		"The question:"
}

func quoteRole(r string) string {
	b, _ := json.Marshal(clip(r))
	return string(b)
}
