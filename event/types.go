package event

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Event types of this version.
const (
	SessionStarted   Type = "SessionStarted"
	UserMessage      Type = "UserMessage"
	AssistantMessage Type = "AssistantMessage"
	ToolResult       Type = "ToolResult"
	ProviderRetry    Type = "ProviderRetry"
	TurnCompleted    Type = "TurnCompleted"
	Error            Type = "Error"
	AssistantDelta   Type = "AssistantDelta"
	ReasoningDelta   Type = "ReasoningDelta"
)

// Spec is the explicit decision taken for an event type: whether it is
// persisted (and so reaches the sinks) and whether Restore reads it back to
// rebuild a session.
type Spec struct {
	Persisted bool
	Restored  bool
	payload   reflect.Type
}

var specs = map[Type]Spec{
	SessionStarted:   {Persisted: true, Restored: true, payload: reflect.TypeFor[SessionStartedPayload]()},
	UserMessage:      {Persisted: true, Restored: true, payload: reflect.TypeFor[UserMessagePayload]()},
	AssistantMessage: {Persisted: true, Restored: true, payload: reflect.TypeFor[AssistantMessagePayload]()},
	ToolResult:       {Persisted: true, Restored: true, payload: reflect.TypeFor[ToolResultPayload]()},
	ProviderRetry:    {Persisted: true, Restored: false, payload: reflect.TypeFor[ProviderRetryPayload]()},
	TurnCompleted:    {Persisted: true, Restored: false, payload: reflect.TypeFor[TurnCompletedPayload]()},
	Error:            {Persisted: true, Restored: false, payload: reflect.TypeFor[ErrorPayload]()},
	AssistantDelta:   {Persisted: false, Restored: false, payload: reflect.TypeFor[DeltaPayload]()},
	ReasoningDelta:   {Persisted: false, Restored: false, payload: reflect.TypeFor[DeltaPayload]()},
}

// SpecOf returns the decision for t; ok is false for a type this version
// does not know (such events are persisted as they are and not restored).
func SpecOf(t Type) (s Spec, ok bool) {
	s, ok = specs[t]
	if !ok {
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
