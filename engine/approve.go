package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/tools"
)

// DefaultApprovalTimeout is how long a call waits for the user's answer
// (seed 000: 10 minutes) before it is refused.
const DefaultApprovalTimeout = 10 * time.Minute

// ErrUnknownPermission: Respond with an id that is unknown or already
// resolved.
var ErrUnknownPermission = errors.New("unknown permission request")

// Reply answers a PermissionRequested. Network grants the network to the
// sandboxed shell command of this one call: Remember never keeps it.
// Reason, when the user gives one for a refusal, reaches the model so it
// can change course.
type Reply struct {
	Allow, Remember, Network bool
	Reason                   string
}

// Respond resolves a pending PermissionRequested. It returns
// ErrUnknownPermission for an id that is unknown or already resolved (by
// an earlier reply, the timeout, or the turn's end).
func (e *Engine) Respond(permissionID string, r Reply) error {
	e.approvalsMu.Lock()
	ch, ok := e.approvals[permissionID]
	delete(e.approvals, permissionID)
	e.approvalsMu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownPermission, permissionID)
	}
	ch <- r // buffered: never blocks
	return nil
}

// grant is what authorize decided for one call.
type grant struct {
	allowed bool
	network bool
	result  tools.Result // the refusal, when not allowed
}

// authorize decides every call of a round before any runs, asking the user
// one call at a time where a rule or the mode says so. Waiting for an
// answer counts against no tool's timeout.
func (t *turn) authorize(ctx context.Context, calls []llm.ToolCall) []grant {
	grants := make([]grant, len(calls))
	perms := t.e.deps.Permissions
	for i, c := range calls {
		if perms == nil {
			grants[i] = grant{allowed: true}
			continue
		}
		req := policy.Request{Session: t.s.id, Tool: c.Name, Risk: t.risk(c), Args: json.RawMessage(c.Arguments), Confirm: t.mustConfirm(c)}
		v := perms.Check(req)
		switch v.Decision {
		case policy.Allow:
			grants[i] = grant{allowed: true}
		case policy.Deny:
			grants[i] = refused(fmt.Sprintf("Permission denied (%s): %s", v.Rule, v.Reason))
		default:
			grants[i] = t.ask(ctx, c, req, v)
		}
		if t.auditErr != nil {
			return grants
		}
	}
	return grants
}

func refused(msg string) grant {
	return grant{result: tools.Result{IsError: true, Content: msg + "\nDo not retry the same call; choose another approach or ask the user."}}
}

// ask emits a PermissionRequested and waits for Respond, the timeout or
// the turn's end; the answer is recorded as PermissionResolved.
func (t *turn) ask(ctx context.Context, c llm.ToolCall, req policy.Request, v policy.Verdict) grant {
	t.s.permSeq++
	n := t.s.permSeq
	id := fmt.Sprintf("%s/%d", t.s.id, n)
	ch := make(chan Reply, 1)
	t.e.approvalsMu.Lock()
	t.e.approvals[id] = ch
	t.e.approvalsMu.Unlock()
	err := t.emit(event.PermissionRequested, event.PermissionRequestedPayload{
		ID: id, Number: n, CallID: c.ID, Tool: c.Name, Summary: t.callSummary(c), Risk: string(req.Risk),
		Sandboxed: t.e.deps.ShellSandboxed && isShell(c.Name),
	})
	if err != nil {
		t.e.forget(id)
		return refused("The call was not run: the audit log failed.")
	}
	reply, by := t.wait(ctx, id, ch)
	_ = t.emit(event.PermissionResolved, event.PermissionResolvedPayload{
		ID: id, CallID: c.ID, Tool: c.Name, Allow: reply.Allow, Remember: reply.Remember,
		Network: reply.Network, By: by, Reason: reply.Reason,
	})
	if !reply.Allow {
		return refused(refusalText(c.Name, by, reply.Reason, t.e.deps.ApprovalTimeout))
	}
	if reply.Remember {
		t.e.deps.Permissions.Remember(req)
	}
	return grant{allowed: true, network: reply.Network}
}

// wait returns the user's reply, or a refusal when the timeout or the
// turn's end comes first. A reply that raced them is still honoured.
func (t *turn) wait(ctx context.Context, id string, ch chan Reply) (Reply, string) {
	timer := time.NewTimer(t.e.deps.ApprovalTimeout)
	defer timer.Stop()
	by := "user"
	select {
	case r := <-ch:
		return r, by
	case <-timer.C:
		by = "timeout"
	case <-ctx.Done():
		by = "cancelled"
	}
	if !t.e.forget(id) {
		// Respond took the request just now: its reply is in ch.
		return <-ch, "user"
	}
	return Reply{}, by
}

// forget drops a pending request; it reports whether it was still pending.
func (e *Engine) forget(id string) bool {
	e.approvalsMu.Lock()
	defer e.approvalsMu.Unlock()
	_, ok := e.approvals[id]
	delete(e.approvals, id)
	return ok
}

func refusalText(tool, by, reason string, timeout time.Duration) string {
	switch by {
	case "timeout":
		return fmt.Sprintf("The user did not answer the request to run %s within %s, so it was not run.", tool, timeout)
	case "cancelled":
		return fmt.Sprintf("The turn was stopped while %s waited for the user's approval; it was not run.", tool)
	}
	// Neutral wording: the refusal may come from a person or from an
	// interface that had no one to ask, and its reason says which.
	msg := fmt.Sprintf("The request to run %s was refused.", tool)
	if reason != "" {
		msg += " Reason: " + reason
	}
	return msg
}

// isShell reports whether a tool runs shell commands.
func isShell(name string) bool { return name == "shell_exec" || name == "bash" }

// callSummary is the call as the tool sums it up (tools.Summarizer: a
// shell command with its env and stdin), or else as summarize does.
func (t *turn) callSummary(c llm.ToolCall) string {
	if tool, ok := t.e.deps.Tools.Lookup(c.Name); ok {
		if sm, ok := tool.(tools.Summarizer); ok {
			if s := strings.Join(strings.Fields(sm.Summary(json.RawMessage(c.Arguments))), " "); s != "" {
				if utf8.RuneCountInString(s) > 300 {
					s = string([]rune(s)[:299]) + "…"
				}
				return c.Name + ": " + s
			}
		}
	}
	return summarize(c)
}

// summarize is a readable one-line account of a call for the user.
func summarize(c llm.ToolCall) string {
	var args map[string]any
	s := c.Arguments
	if json.Unmarshal([]byte(c.Arguments), &args) == nil {
		for _, key := range []string{"command", "path", "file_path", "url"} {
			if v, ok := args[key].(string); ok {
				s = v
				break
			}
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 300 {
		s = string([]rune(s)[:299]) + "…"
	}
	return c.Name + ": " + s
}
