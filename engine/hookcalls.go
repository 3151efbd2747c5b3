package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/hooks"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
)

// Where the user's hooks (Deps.Hooks) run in the loop: SessionStart when
// this Engine opens a session, UserPromptSubmit before the user message is
// recorded, PreToolUse before a call's permission check, PostToolUse
// after it ran, Stop and SubagentStop when a loop would end with its
// answer, PreCompact before a compaction, Notification while a permission
// request waits (Deps.Notify), SessionEnd in EndSession. Every hook run is
// recorded as HookStarted then HookCompleted, with the parent's call id
// when a sub-agent runs it. A hook tightens, never loosens: its "allow"
// changes nothing, so the permission rules, the organisation's floor and
// the classification still decide.

// StopBlocked is TurnCompleted.Reason for a turn whose prompt a
// UserPromptSubmit hook blocked.
const StopBlocked = "blocked"

// ErrPromptBlocked: a UserPromptSubmit hook blocked the prompt; the error
// wrapping it gives the hook's reason, which the turn's Warning shows too.
var ErrPromptBlocked = errors.New("prompt blocked by a hook")

// hookObserver records each hook's start and end as events of the session
// (or of a child); hooks of one event run at once, so it keeps the first
// audit failure under a lock.
type hookObserver struct {
	e *Engine
	s *session
	c *subAgent

	mu  sync.Mutex
	err error
}

func (o *hookObserver) Started(ev hooks.Event, h hooks.Hook) {
	o.record(event.HookStarted, event.HookStartedPayload{Hook: h.Name, Event: string(ev)})
}

func (o *hookObserver) Completed(ev hooks.Event, h hooks.Hook, r hooks.Result) {
	out := r.Output
	if r.Err != nil {
		out = strings.TrimSpace(out + "\n" + r.Err.Error())
	}
	o.record(event.HookCompleted, event.HookCompletedPayload{Hook: h.Name, Event: string(ev), ExitCode: r.ExitCode,
		Blocked: r.Blocked, Output: out})
}

func (o *hookObserver) record(typ event.Type, p any) {
	if _, err := o.e.emitAs(o.s, o.c, typ, p); err != nil {
		o.mu.Lock()
		o.err = firstOf(o.err, err)
		o.mu.Unlock()
	}
}

// runHooks runs the hooks of in.Event for session s (c: the sub-agent
// that runs them, or nil). No hook configured for the event: nothing runs
// and nothing is recorded.
func (e *Engine) runHooks(ctx context.Context, s *session, c *subAgent, in hooks.Input) (hooks.Outcome, error) {
	if !e.deps.Hooks.Has(in.Event) {
		return hooks.Outcome{}, nil
	}
	in.SessionID, in.TranscriptPath, in.CWD = s.id, e.deps.TranscriptPath, e.deps.ProjectRoot
	obs := &hookObserver{e: e, s: s, c: c}
	out := e.deps.Hooks.Run(ctx, in, obs)
	return out, obs.err
}

// hook runs hooks from the turn's own goroutine.
func (t *turn) hook(ctx context.Context, in hooks.Input) hooks.Outcome {
	out, err := t.e.runHooks(ctx, t.s, t.child, in)
	if err != nil && t.auditErr == nil {
		t.auditErr = err
	}
	return out
}

// sessionStart runs SessionStart when this Engine opens the session; its
// context waits on the session for the next user message that is not
// blocked.
func (t *turn) sessionStart(ctx context.Context) {
	source := "startup"
	if len(t.s.st.history) > 0 {
		source = "resume"
	}
	o := t.hook(ctx, hooks.Input{Event: hooks.SessionStart, Reason: source})
	t.s.hookContext = joinHookText(t.s.hookContext, o.Context)
}

// promptSubmit runs UserPromptSubmit on the user's text: the context to
// join to the message, or blocked with the reason to show the user.
func (t *turn) promptSubmit(ctx context.Context, text string) (hookContext string, blocked bool, reason string) {
	o := t.hook(ctx, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: text})
	hookContext = joinHookText(t.s.hookContext, o.Context)
	if o.Block || o.Stop {
		return hookContext, true, orDefault(joinHookText(o.Reason, o.StopReason), "a UserPromptSubmit hook blocked the prompt")
	}
	return hookContext, false, ""
}

// preToolUse runs PreToolUse on a call: refused says why the call must not
// run; otherwise the call as the hooks updated it, and whether they want
// the user asked.
func (t *turn) preToolUse(ctx context.Context, c llm.ToolCall) (_ llm.ToolCall, ask bool, refusal string) {
	if !t.e.deps.Hooks.Has(hooks.PreToolUse) {
		return c, false, ""
	}
	o := t.hook(ctx, hooks.Input{Event: hooks.PreToolUse, ToolName: c.Name, ToolInput: json.RawMessage(c.Arguments), ToolUseID: c.ID})
	if o.Block || o.Decision == "deny" || o.Stop {
		return c, false, "The call was refused by a PreToolUse hook: " + orDefault(joinHookText(o.Reason, o.StopReason), "no reason given")
	}
	if o.UpdatedInput != nil && json.Valid(o.UpdatedInput) {
		c.Arguments = string(o.UpdatedInput)
	}
	return c, o.Decision == "ask", ""
}

// postToolUse runs PostToolUse on a call's result (from the call's own
// goroutine): a block's reason and the hooks' context are added to what
// the model reads.
func (t *turn) postToolUse(ctx context.Context, c llm.ToolCall, res tools.Result) tools.Result {
	if !t.e.deps.Hooks.Has(hooks.PostToolUse) {
		return res
	}
	resp, _ := json.Marshal(struct {
		Content string `json:"content"`
		IsError bool   `json:"is_error"`
	}{res.Content, res.IsError})
	o, _ := t.e.runHooks(ctx, t.s, t.child, hooks.Input{Event: hooks.PostToolUse, ToolName: c.Name,
		ToolInput: json.RawMessage(c.Arguments), ToolResponse: resp, ToolUseID: c.ID})
	if o.Block {
		res.Content += "\n\n[PostToolUse hook] " + orDefault(o.Reason, "the hook blocked this result")
	}
	if strings.TrimSpace(o.Context) != "" {
		res.Content += "\n\n" + o.Context
	}
	return res
}

// sendBack runs Stop (SubagentStop for a child) when the loop would end
// with its answer: a block sends the agent back to work once, its reason
// recorded as the next user message.
func (t *turn) sendBack(ctx context.Context, out outcome) bool {
	ev := t.stopEvent()
	if out.reason != event.StopNatural || out.err != nil || !t.e.deps.Hooks.Has(ev) {
		return false
	}
	o := t.hook(ctx, hooks.Input{Event: ev, StopHookActive: t.stopHookActive})
	if !o.Block || o.Stop || t.stopHookActive || t.auditErr != nil {
		return false
	}
	t.stopHookActive = true
	reason := orDefault(o.Reason, fmt.Sprintf("A %s hook asked you to go on.", ev))
	if _, err := t.emit(event.UserMessage, event.UserMessagePayload{Text: reason}); err != nil {
		return false
	}
	t.lastNoTool, t.repeats, t.emptyRetries = "", 0, 0
	return true
}

// preCompact runs PreCompact before a compaction (trigger auto or manual,
// as Claude Code says); its context is joined to the summary.
func (t *turn) preCompact(ctx context.Context, trigger string) string {
	return t.hook(ctx, hooks.Input{Event: hooks.PreCompact, Reason: trigger}).Context
}

// notify runs Notification while a permission request waits, when
// Deps.Notify turns it on.
func (t *turn) notify(ctx context.Context, tool string) {
	if !t.e.deps.Notify {
		return
	}
	t.hook(ctx, hooks.Input{Event: hooks.Notification, Message: "Moteur needs your permission to use " + tool})
}

func joinHookText(a, b string) string {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
