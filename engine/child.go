package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/compaction"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/routing"
	"github.com/moteur/moteur/tools"
)

// subAgent is a sub-agent run by one `agent` call of its parent's round: a
// loop of its own (a turn whose child is set) with its own history. Its
// events carry the parent's call id (Event.ParentCallID); the session's
// reducer takes from them only what concerns the whole session (the
// permission counter, the files written, the classification), and st,
// the child's own state, is the same reducer applied to them alone, so
// that its history is a function of its events too. st lives only as long
// as the call: a child never continues after its answer.
type subAgent struct {
	callID string
	agent  agents.Agent
	depth  int // 1: a child of the session's loop, 2: a grandchild…
	st     *state
	system string
	// allowed are the tools it may use (its agent's allowlist narrowed to
	// its parent's tools); `agent` is among them only when the catalog
	// lets children nest (agents.Config.MaxDepth) and depth is below it.
	allowed map[string]bool
	// current is the provider its last request went to: its own, since
	// siblings run at once and each may fall back on its own.
	current routing.Candidate
	// comp and est manage its context, as a session's do.
	comp *compaction.Compactor
	est  *compaction.Estimator
}

func (c *subAgent) compactorOf(e *Engine) *compaction.Compactor {
	if c.comp == nil {
		c.est = compaction.NewEstimator()
		c.comp = compaction.New(compaction.Config{Window: e.deps.ContextWindow,
			Threshold: e.deps.CompactionThreshold, Estimator: c.est})
	}
	return c.comp
}

// conv is the state whose history this turn works on: the session's, or
// a child's own.
func (t *turn) conv() *state {
	if t.child != nil {
		return t.child.st
	}
	return t.s.st
}

// system is the system prompt of this turn's requests.
func (t *turn) system() string {
	if t.child != nil {
		return t.child.system
	}
	return t.e.deps.SystemPrompt
}

// current is the provider this turn's last request went to.
func (t *turn) current() *routing.Candidate {
	if t.child != nil {
		return &t.child.current
	}
	return &t.s.current
}

// estimator is the token estimator of this turn's history (made with the
// compactor).
func (t *turn) estimator() *compaction.Estimator {
	t.compactor()
	if t.child != nil {
		return t.child.est
	}
	return t.s.estimator
}

// lookup finds a tool this turn may use: a child sees only its allowed
// ones.
func (t *turn) lookup(name string) (tools.Tool, bool) {
	if t.child != nil && !t.child.allowed[name] {
		return nil, false
	}
	return t.e.deps.Tools.Lookup(name)
}

// definitions are the tools offered to the model in this turn: the
// registry's (a child's narrowed to its allowlist), and `agent` for the
// session's own turns when Deps.Agents is set.
func (t *turn) definitions() []llm.ToolDef {
	defs := t.e.deps.Tools.Definitions() // the registry's: cloned before any edit
	if t.child != nil || t.e.deps.Agents != nil {
		defs = slices.Clone(defs)
	}
	if t.child != nil {
		defs = slices.DeleteFunc(defs, func(d llm.ToolDef) bool { return !t.child.allowed[d.Name] })
	}
	if t.e.deps.Agents != nil && (t.child == nil || t.child.allowed[agents.ToolName]) {
		defs = slices.DeleteFunc(defs, func(d llm.ToolDef) bool { return d.Name == agents.ToolName })
		defs = append(defs, t.e.agentDefinition())
		// Sorted by name as the registry's are, so that the tools part of
		// every request stays byte-identical (providers cache prefixes).
		slices.SortStableFunc(defs, func(a, b llm.ToolDef) int { return strings.Compare(a.Name, b.Name) })
	}
	return defs
}

// execute runs one call: `agent` as a child loop, any other through the
// registry; a child's call to a tool it was not given is an unknown tool.
func (t *turn) execute(ctx context.Context, c llm.ToolCall) tools.Result {
	if c.Name == agents.ToolName && t.e.deps.Agents != nil && (t.child == nil || t.child.allowed[agents.ToolName]) {
		return t.runAgent(ctx, c)
	}
	if t.child != nil && !t.child.allowed[c.Name] {
		names := make([]string, 0, len(t.child.allowed))
		for n := range t.child.allowed {
			names = append(names, n)
		}
		slices.Sort(names)
		return tools.Result{IsError: true, Content: fmt.Sprintf(i18n.T(t.e.deps.Lang, i18n.UnknownTool), c.Name,
			strings.Join(names, ", ")) + "\n" + i18n.AnalyzeErrorSuffix}
	}
	return t.e.deps.Tools.Execute(ctx, c)
}
