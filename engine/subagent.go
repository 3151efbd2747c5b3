package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/hooks"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
)

// agentSchema is the `agent` tool's arguments, as Claude Code's Task tool
// takes them.
const agentSchema = `{"type":"object","properties":{` +
	`"description":{"type":"string","description":"The task in 3 to 5 words."},` +
	`"prompt":{"type":"string","description":"The full task for the sub-agent, with all the context it needs."},` +
	`"subagent_type":{"type":"string","description":"The name of the agent to run."}},` +
	`"required":["description","prompt","subagent_type"]}`

// agentDefinition is the `agent` tool as the model sees it: its
// description lists the catalog's agents.
func (e *Engine) agentDefinition() llm.ToolDef {
	return llm.ToolDef{Name: agents.ToolName, Description: e.deps.Agents.Describe(e.deps.Lang),
		Parameters: json.RawMessage(agentSchema)}
}

// agentArgs are the arguments of one `agent` call.
type agentArgs struct {
	Description  string `json:"description"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type"`
}

// runAgent runs one `agent` call: a child loop with its own history,
// whose final answer, cut to Deps.OutputLimit, is the call's result. It
// runs on the call's context, so that cancelling the turn stops it.
func (t *turn) runAgent(ctx context.Context, c llm.ToolCall) tools.Result {
	var a agentArgs
	if err := json.Unmarshal([]byte(c.Arguments), &a); err != nil {
		return agentError(fmt.Sprintf("invalid arguments for agent: %v", err))
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return agentError("agent: prompt is empty: give the sub-agent its full task")
	}
	cat := t.e.deps.Agents
	name := strings.TrimSpace(a.SubagentType)
	if name == "" {
		name = agents.GeneralPurpose
	}
	ag, ok := cat.Lookup(name)
	if !ok {
		var names []string
		for _, x := range cat.List() {
			names = append(names, x.Name)
		}
		return agentError(fmt.Sprintf("agent: unknown subagent_type %q; available: %s", name, strings.Join(names, ", ")))
	}
	depth := 1
	if t.child != nil {
		depth = t.child.depth + 1
	}
	ct := &turn{e: t.e, s: t.s, child: t.newChild(c.ID, ag, depth)}
	out := ct.runChild(ctx, a.Prompt)
	switch {
	case ct.auditErr != nil:
		t.auditErr = ct.auditErr
		return agentError("The sub-agent stopped: the audit log failed.")
	case out.err != nil && out.answer == "":
		return agentError(fmt.Sprintf("The sub-agent %s did not finish: %v", ag.Name, out.err))
	}
	text, cut := cutRunes(out.answer, t.e.deps.OutputLimit)
	return tools.Result{Content: text, Truncated: cut}
}

func agentError(msg string) tools.Result {
	return tools.Result{IsError: true, Content: msg + "\n" + i18n.AnalyzeErrorSuffix}
}

// newChild prepares the child at depth (1: a child of the session's own
// loop) of call callID running ag: its prompt, its tools (its allowlist
// narrowed to its parent's — the session's, or its parent child's —, and
// `agent` only while depth is below the catalog's MaxDepth), and the
// provider the parent last used.
func (t *turn) newChild(callID string, ag agents.Agent, depth int) *subAgent {
	d := t.e.deps
	parent := d.Tools.Names()
	if t.child != nil {
		parent = slices.Sorted(maps.Keys(t.child.allowed))
	} else {
		parent = append(parent, agents.ToolName) // the engine's own tool
	}
	allowed := map[string]bool{}
	for _, n := range d.Agents.ToolsAt(ag, parent, depth) {
		allowed[n] = true
	}
	parts := []string{orDefault(d.BasePrompt, d.SystemPrompt), i18n.SubAgentPreamble(d.Lang)}
	if p := strings.TrimSpace(ag.Prompt); p != "" {
		parts = append(parts, p)
	}
	if allowed["read_file"] && strings.TrimSpace(d.SkillsSection) != "" {
		parts = append(parts, d.SkillsSection)
	}
	st := newState(t.s.id)
	cur := *t.current()
	// The child's history starts here, not at a SessionStarted: it is
	// sent where its parent's last request went until it chooses another.
	st.remote = !cur.Local
	return &subAgent{callID: callID, agent: ag, depth: depth, st: st, system: strings.Join(parts, "\n\n"), allowed: allowed, current: cur}
}

// runChild runs the child's loop on prompt. Its user message is recorded
// (with the parent's call id) so that its history is its events; it ends
// with its final answer and no TurnCompleted: its parent's ToolResult
// closes it.
func (t *turn) runChild(ctx context.Context, prompt string) outcome {
	if _, err := t.emit(event.UserMessage, event.UserMessagePayload{Text: prompt}); err != nil {
		return outcome{err: err}
	}
	t.userAt, t.userLive = len(t.conv().history)-1, prompt
	return t.loop(ctx)
}

// cutRunes keeps the first limit characters of s (limit 0: all of it).
func cutRunes(s string, limit int) (string, bool) {
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s, false
	}
	return string([]rune(s)[:limit]) + "\n[… the sub-agent's answer was cut at " + fmt.Sprint(limit) + " characters …]", true
}

// stopEvent is the hook event of this turn's end: Stop for the session's
// own loop, SubagentStop for a child's.
func (t *turn) stopEvent() hooks.Event {
	if t.child != nil {
		return hooks.SubagentStop
	}
	return hooks.Stop
}
