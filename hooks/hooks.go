// Package hooks runs the user's hooks with the Claude Code hooks protocol,
// so that scripts written for Claude Code work unchanged: the events, the
// JSON a hook reads on its standard input, its exit code and its JSON
// output. A Set is immutable once built and safe for concurrent use.
package hooks

import "encoding/json"

// Event is a hook event, named as Claude Code names them.
type Event string

// The events.
const (
	SessionStart     Event = "SessionStart"
	UserPromptSubmit Event = "UserPromptSubmit"
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	Stop             Event = "Stop"
	SubagentStop     Event = "SubagentStop"
	PreCompact       Event = "PreCompact"
	Notification     Event = "Notification"
	SessionEnd       Event = "SessionEnd"
)

// Input is what the engine knows of the moment a hook runs; Run turns it
// into the JSON the hook reads (session_id, transcript_path, cwd,
// hook_event_name, tool_name, tool_input, tool_response, prompt, …), in
// Claude Code's shape for a hook whose matcher names a Claude Code tool.
type Input struct {
	Event          Event
	SessionID      string
	TranscriptPath string
	CWD            string
	// ToolName and ToolInput are Moteur's (PreToolUse, PostToolUse);
	// ToolResponse is the result (PostToolUse).
	ToolName     string
	ToolInput    json.RawMessage
	ToolResponse json.RawMessage
	// Prompt is the user's message (UserPromptSubmit).
	Prompt string
	// Message is a Notification's text; Reason, SessionEnd's or
	// PreCompact's trigger ("manual", "auto").
	Message, Reason string
	// StopHookActive: the turn already went on once because of a Stop
	// hook (Stop, SubagentStop), so that a hook can avoid looping.
	StopHookActive bool
	// ToolUseID is the call's id (PreToolUse, PostToolUse), sent as
	// tool_use_id; optional.
	ToolUseID string
}

// Hook is one configured command, as HookStarted and HookCompleted name it.
type Hook struct {
	// Name identifies it in events: its command, shortened.
	Name    string
	Command string
	// Source is where it is configured: the file and the key, e.g.
	// "/p/.moteur/config.yaml: hooks.PreToolUse[0].hooks[1]".
	Source string
}

// Result is one hook's run, for HookCompleted.
type Result struct {
	ExitCode int
	// Blocked: the hook blocked (exit 2, or a JSON decision that blocks).
	Blocked bool
	// Output is what it printed (stdout, or stderr when it blocked), cut.
	Output string
	// Err is why it could not run or was stopped (timeout); it is
	// reported and otherwise ignored.
	Err error
}

// Outcome is what the hooks of one event decided together: any block
// wins, contexts are joined, the strictest permission decision counts.
type Outcome struct {
	// Block: the action is refused (a tool call, a prompt), or, for Stop,
	// the agent must go on; Reason says why (to the model for PreToolUse
	// and Stop, to the user for UserPromptSubmit).
	Block  bool
	Reason string
	// Context is text to add for the model (SessionStart and
	// UserPromptSubmit output, additionalContext).
	Context string
	// Decision is PreToolUse's permissionDecision: "allow", "deny", "ask"
	// or "" (none). A hook tightens only: the engine never lets "allow"
	// pass a deny rule, the organisation's floor or a classification
	// refusal.
	Decision string
	// UpdatedInput replaces a tool call's arguments (PreToolUse), in
	// Moteur's shape; nil: unchanged.
	UpdatedInput json.RawMessage
	// Stop is a hook's `"continue": false`: the turn ends, StopReason
	// shown to the user.
	Stop       bool
	StopReason string
}

// Observer is told of each hook as it starts and ends, for the HookStarted
// and HookCompleted events; its methods may be called from several
// goroutines at once (the hooks of one event run in parallel).
type Observer interface {
	Started(Event, Hook)
	Completed(Event, Hook, Result)
}
