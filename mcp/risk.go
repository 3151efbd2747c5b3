package mcp

import (
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/effect"
)

// riskOf reads a tool's risk class from its annotations, so that the
// permission modes and rules apply to it as to a built-in: readOnlyHint is
// a read, destructiveHint a destructive call, anything else a write. The
// MCP specification says destructiveHint means nothing for a read-only
// tool; a server that sets both contradicts itself, and the stricter class
// wins (fail closed). A tool without annotations is a write: nothing says
// it only reads.
func riskOf(a *mcpsdk.ToolAnnotations) effect.Risk {
	if a == nil {
		return effect.RiskWrite
	}
	destructive := a.DestructiveHint != nil && *a.DestructiveHint
	switch {
	case destructive:
		return effect.RiskDestructive
	case a.ReadOnlyHint:
		return effect.RiskRead
	}
	return effect.RiskWrite
}
