package event

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Event types of this version. A new type must also get its Spec below:
// a test fails for any Type constant without one.
const (
	SessionStarted      Type = "SessionStarted"
	UserMessage         Type = "UserMessage"
	AssistantMessage    Type = "AssistantMessage"
	ToolResult          Type = "ToolResult"
	ProviderRetry       Type = "ProviderRetry"
	TurnCompleted       Type = "TurnCompleted"
	Error               Type = "Error"
	PermissionRequested Type = "PermissionRequested"
	PermissionResolved  Type = "PermissionResolved"
	Warning             Type = "Warning"
	ContextCompacted    Type = "ContextCompacted"
	SessionClassified   Type = "SessionClassified"
	ProviderSelected    Type = "ProviderSelected"
	McpServerDown       Type = "McpServerDown"
	HookStarted         Type = "HookStarted"
	HookCompleted       Type = "HookCompleted"
	Rewound             Type = "Rewound"
	KnowledgeRetrieved  Type = "KnowledgeRetrieved"
	AssistantDelta      Type = "AssistantDelta"
	ReasoningDelta      Type = "ReasoningDelta"
	ToolProgress        Type = "ToolProgress"
)

// Spec is the explicit decision taken for an event type: whether it is
// persisted (and so reaches the sinks), and what Engine.Restore does with it
// ("" when Restore ignores it).
type Spec struct {
	Persisted bool
	Restore   string
	payload   reflect.Type
}

// Restored reports whether Restore reads events of this type.
func (s Spec) Restored() bool { return s.Restore != "" }

func spec[P any](persisted bool, restore string) Spec {
	return Spec{Persisted: persisted, Restore: restore, payload: reflect.TypeFor[P]()}
}

// specs is the one place where each type's fate is decided.
var specs = map[Type]Spec{
	SessionStarted:      spec[SessionStartedPayload](true, "sets the current provider (remote or local)"),
	UserMessage:         spec[UserMessagePayload](true, "appends a user message, hook context joined; a blocked one is skipped"),
	AssistantMessage:    spec[AssistantMessagePayload](true, "appends an assistant message, marked remote when a remote provider wrote it"),
	ToolResult:          spec[ToolResultPayload](true, "appends a tool message answering its call"),
	ProviderRetry:       spec[ProviderRetryPayload](true, ""),
	TurnCompleted:       spec[TurnCompletedPayload](true, "restores the token-estimate calibration"),
	Error:               spec[ErrorPayload](true, ""),
	PermissionRequested: spec[PermissionRequestedPayload](true, "advances the permission-request counter"),
	PermissionResolved:  spec[PermissionResolvedPayload](true, ""),
	Warning:             spec[WarningPayload](true, ""),
	ContextCompacted:    spec[ContextCompactedPayload](true, "replaces the first Replaced messages with the summary"),
	SessionClassified:   spec[SessionClassifiedPayload](true, "makes the session sensitive, for good"),
	ProviderSelected:    spec[ProviderSelectedPayload](true, "sets the current provider (remote or local)"),
	McpServerDown:       spec[McpServerDownPayload](true, ""),
	HookStarted:         spec[HookStartedPayload](true, ""),
	HookCompleted:       spec[HookCompletedPayload](true, ""),
	Rewound:             spec[RewoundPayload](true, "truncates the history (conversation, both) or keeps the note for the next message (code)"),
	KnowledgeRetrieved:  spec[KnowledgeRetrievedPayload](true, "adds its references to the session's citation aliases"),
	AssistantDelta:      spec[DeltaPayload](false, ""),
	ReasoningDelta:      spec[DeltaPayload](false, ""),
	ToolProgress:        spec[ToolProgressPayload](false, ""),
}

// SpecOf returns the decision for t; ok is false for a type this version
// does not know (such events are persisted as they are and not restored).
func SpecOf(t Type) (s Spec, ok bool) {
	s, ok = specs[t]
	if !ok {
		// Unknown types (written by a newer version) are kept, never
		// interpreted.
		return Spec{Persisted: true}, false
	}
	return s, true
}

// Types lists every known type.
func Types() []Type {
	out := make([]Type, 0, len(specs))
	for t := range specs {
		out = append(out, t)
	}
	return out
}

func decodePayload(t Type, raw json.RawMessage) (any, error) {
	s, ok := specs[t]
	if !ok {
		return raw, nil
	}
	v := reflect.New(s.payload)
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, v.Interface()); err != nil {
			return nil, fmt.Errorf("payload: %w", err)
		}
	}
	return v.Elem().Interface(), nil
}
