package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/moteur/moteur/cite"
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

// Respond resolves a pending PermissionRequested, whichever Engine or
// process asked when the engine's Deps.Store keeps approvals. It returns
// ErrUnknownPermission for an id that is unknown or already resolved (by
// an earlier reply, the timeout, or the turn's end): of two answers, one
// counts.
func (e *Engine) Respond(permissionID string, r Reply) error {
	return e.approvals.respond(context.Background(), permissionID, r)
}

// grant is what authorize decided for one call.
type grant struct {
	allowed bool
	network bool
	refusal string // what the model reads, when not allowed (a string, not a whole Result: a round's grants stay small)
}

// authorize decides every call of a round before any runs, asking the user
// one call at a time where a rule or the mode says so. Waiting for an
// answer counts against no tool's timeout.
func (t *turn) authorize(ctx context.Context, calls []llm.ToolCall) []grant {
	grants := make([]grant, len(calls))
	perms := t.e.deps.Permissions
	for i, c := range calls {
		c, mustAsk, refusal := t.preToolUse(ctx, c)
		calls[i] = c
		if refusal != "" {
			grants[i] = refused(refusal)
			continue
		}
		if t.auditErr != nil {
			return grants
		}
		if perms == nil && !mustAsk {
			grants[i] = grant{allowed: true}
			continue
		}
		name, args := t.judgedAs(ctx, c)
		req := policy.Request{Session: t.s.id, Tool: name, Risk: t.risk(c), Args: args, Confirm: t.mustConfirm(c)}
		v := policy.Verdict{Decision: policy.Allow}
		if perms != nil {
			v = perms.Check(req)
		}
		if mustAsk && v.Decision == policy.Allow {
			// A hook's "ask" tightens: the user decides a call the rules
			// allowed; a denied call stays denied.
			v = policy.Verdict{Decision: policy.Ask, Rule: "PreToolUse hook: ask"}
		}
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
	return grant{refusal: msg + "\nDo not retry the same call; choose another approach or ask the user."}
}

// ask records a PermissionRequested and waits for an answer (Respond, in
// this process or another), the timeout or the turn's end; the outcome is
// recorded as PermissionResolved. The request is open before the event is
// seen, so that an answer to the event always finds it.
func (t *turn) ask(ctx context.Context, c llm.ToolCall, req policy.Request, v policy.Verdict) grant {
	// The number follows the session's last one: a sibling sub-agent's
	// request is numbered and answered before this one is.
	t.s.askMu.Lock()
	defer t.s.askMu.Unlock()
	n := t.s.st.permSeq + 1
	r := request{id: fmt.Sprintf("%s/%d", t.s.id, n), session: t.s.id, number: n, callID: c.ID, tool: c.Name,
		summary: t.askSummary(c), risk: string(req.Risk), sandboxed: t.grantsNetwork(c)}
	if err := t.e.approvals.open(ctx, r); err != nil {
		return refused("The call was not run: its approval request could not be recorded: " + err.Error())
	}
	_, err := t.emit(event.PermissionRequested, event.PermissionRequestedPayload{
		ID: r.id, Number: n, CallID: c.ID, Tool: c.Name, Summary: r.summary, Risk: r.risk, Sandboxed: r.sandboxed,
	})
	if err != nil {
		t.e.approvals.withdraw(r.id, "cancelled")
		return refused("The call was not run: the audit log failed.")
	}
	t.notify(ctx, c.Name)
	reply, by := t.e.approvals.wait(ctx, r.id, t.e.deps.ApprovalTimeout)
	_, _ = t.emit(event.PermissionResolved, event.PermissionResolvedPayload{
		ID: r.id, CallID: c.ID, Tool: c.Name, Allow: reply.Allow, Remember: reply.Remember,
		Network: reply.Network, By: by, Reason: reply.Reason,
	})
	if t.auditErr != nil {
		return refused("The call was not run: the audit log failed.")
	}
	if !reply.Allow {
		return refused(refusalText(c.Name, by, reply.Reason, t.e.deps.ApprovalTimeout))
	}
	if reply.Remember && t.e.deps.Permissions != nil {
		t.e.deps.Permissions.Remember(req)
	}
	return grant{allowed: true, network: reply.Network}
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

// askSummary is the call as the user is asked about it: a sub-agent's
// request names the agent that makes it.
func (t *turn) askSummary(c llm.ToolCall) string {
	s := t.callSummary(c)
	if t.child != nil {
		s = fmt.Sprintf("[sub-agent %s] %s", t.child.agent.Name, s)
	}
	return s
}

// grantsNetwork reports whether the call's tool isolates it and can be
// given the network for it (tools.NetworkGranter): its request then offers
// "allow with network". Deps.ShellSandboxed says so of every such tool.
func (t *turn) grantsNetwork(c llm.ToolCall) bool {
	tool, ok := t.lookup(c.Name)
	if !ok {
		return false
	}
	ng, ok := tool.(tools.NetworkGranter)
	return ok && (t.e.deps.ShellSandboxed || ng.GrantsNetwork())
}

// callSummary is the call as the tool sums it up (tools.Summarizer: a
// shell command with its env and stdin), or else as summarize does.
func (t *turn) callSummary(c llm.ToolCall) string {
	if tool, ok := t.lookup(c.Name); ok {
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

// summarize is a readable one-line account of a call for the user: what
// the permission rules judged it by (policy.CallSubject), or else its
// arguments as they are.
func summarize(c llm.ToolCall) string {
	s, ok := policy.CallSubject(json.RawMessage(c.Arguments))
	if !ok {
		s = c.Arguments
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 300 {
		s = string([]rune(s)[:299]) + "…"
	}
	return c.Name + ": " + s
}

// judgedAs is the tool and arguments the permissions judge a call as: the
// call itself, or, for a tool that runs another under its own name
// (tools.Proxy: call_mcp_tool), the tool it runs, so that the rules and the
// organisation's denied tools written for that one apply whatever door the
// model used; and the session's aliases in the arguments replaced by what
// they stand for (tools.AliasResolver: web_fetch's wN), so that a rule on
// a domain holds whatever name the model gave its page.
func (t *turn) judgedAs(ctx context.Context, c llm.ToolCall) (string, json.RawMessage) {
	name, args := c.Name, json.RawMessage(c.Arguments)
	tool, ok := t.lookup(c.Name)
	if !ok {
		return name, args
	}
	if p, ok := tool.(tools.Proxy); ok {
		if n, a, ok := p.ProxyFor(args); ok {
			return n, a
		}
	}
	if r, ok := tool.(tools.AliasResolver); ok {
		args = r.ResolveAliases(cite.WithTable(ctx, t.conv().aliases), args)
	}
	return name, args
}
