package tools

import "errors"

// Group is a set of tools that can change while a session runs: the tools
// of the session's MCP servers, which a server adds or withdraws
// (tools/list_changed, a reconnect). A registry consults its groups on
// every Definitions, Lookup, Names and Len, so the engine sees the current
// tools at each round without knowing where they come from.
//
// A group's tools rank below every tool registered with Register, whenever
// either was added: a group never shadows a built-in. Among groups, the
// one added first wins a name; within a group, the first tool that claims
// it. A refused tool is reported to a group that implements GroupWarner.
type Group interface {
	// Generation grows whenever Tools may return something else. It is
	// called on every lookup, so it must be cheap (an atomic load), and
	// it must not call the registry.
	Generation() uint64
	// Tools returns the group's current tools. It is called once per
	// generation, outside the registry's locks, and must not call the
	// registry. A tool returned again (the same pointer) keeps what the
	// registry compiled for it, so a Tool in a group must not change its
	// Name or Schema: a new definition is a new Tool.
	Tools() []Tool
}

// GroupWarner is implemented by groups that want to know which of their
// tools the registry refused: a name already taken (ErrDuplicateTool), an
// invalid schema. The others are kept. Rejected is called outside the
// registry's locks, once each time the registry takes a generation in (or
// a Register takes a name from the group).
type GroupWarner interface {
	Rejected(t Tool, err error)
}

// ErrNilGroup is returned by AddGroup for a nil group.
var ErrNilGroup = errors.New("add tool group: nil group")

// groupState is what the registry knows of one group.
type groupState struct {
	g Group
	// Guarded by Registry.mu.
	synced  bool
	gen     uint64
	entries []*entry // compiled, in the group's order

	// failed keeps the compile errors of the last generation, by tool,
	// so that a tool offered again is neither compiled nor reported
	// again. Guarded by Registry.syncMu.
	failed map[Tool]error
}

// rejection is a group's tool the registry refused.
type rejection struct {
	gs  *groupState
	t   Tool
	err error
}

func report(rs []rejection) {
	for _, r := range rs {
		if w, ok := r.gs.g.(GroupWarner); ok {
			w.Rejected(r.t, r.err)
		}
	}
}
