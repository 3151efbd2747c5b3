package hooks

import (
	"encoding/json"
)

// wireInput is the JSON a hook reads on its standard input, with the
// fields Claude Code sends for each event.
type wireInput struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	CWD            string          `json:"cwd"`
	HookEventName  Event           `json:"hook_event_name"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse   json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	Prompt         *string         `json:"prompt,omitempty"`
	Message        *string         `json:"message,omitempty"`
	Source         *string         `json:"source,omitempty"`  // SessionStart
	Reason         *string         `json:"reason,omitempty"`  // SessionEnd
	Trigger        *string         `json:"trigger,omitempty"` // PreCompact
	// CustomInstructions: PreCompact; Moteur has none, sent empty.
	CustomInstructions *string `json:"custom_instructions,omitempty"`
	StopHookActive     *bool   `json:"stop_hook_active,omitempty"`
}

// encodeInput returns the stdin of a hook seeing in in the shape v.
func encodeInput(in Input, cwd, root string, v view) []byte {
	w := wireInput{SessionID: in.SessionID, TranscriptPath: in.TranscriptPath, CWD: cwd, HookEventName: in.Event}
	str := func(s string) *string { return &s }
	switch in.Event {
	case PreToolUse, PostToolUse:
		w.ToolName, w.ToolInput, w.ToolUseID = in.ToolName, in.ToolInput, in.ToolUseID
		if v == viewClaude {
			w.ToolName, w.ToolInput = toClaude(in.ToolName, in.ToolInput, root)
		}
		if len(w.ToolInput) == 0 {
			w.ToolInput = json.RawMessage("{}")
		}
		if in.Event == PostToolUse {
			w.ToolResponse = in.ToolResponse
			if len(w.ToolResponse) == 0 {
				w.ToolResponse = json.RawMessage("null")
			}
		}
	case UserPromptSubmit:
		w.Prompt = str(in.Prompt)
	case Notification:
		w.Message = str(in.Message)
	case SessionStart:
		w.Source = str(orDefault(in.Reason, "startup"))
	case SessionEnd:
		w.Reason = str(orDefault(in.Reason, "other"))
	case PreCompact:
		w.Trigger = str(orDefault(in.Reason, "auto"))
		w.CustomInstructions = str("")
	case Stop, SubagentStop:
		w.StopHookActive = &in.StopHookActive
	}
	data, err := json.Marshal(w)
	if err != nil {
		// Only invalid raw JSON from the caller can get here: send the
		// call without it rather than nothing.
		w.ToolInput, w.ToolResponse = json.RawMessage("{}"), json.RawMessage("null")
		data, _ = json.Marshal(w)
	}
	return data
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// subject is what a group's matcher is tested against for events other
// than tool calls, as in Claude Code: SessionStart's source, PreCompact's
// trigger, SessionEnd's reason; "" for events without one (every matcher
// matches).
func subject(in Input) string {
	switch in.Event {
	case SessionStart:
		return orDefault(in.Reason, "startup")
	case SessionEnd:
		return orDefault(in.Reason, "other")
	case PreCompact:
		return orDefault(in.Reason, "auto")
	}
	return ""
}
