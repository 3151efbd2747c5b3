package tools

import "encoding/json"

// Proxy is implemented by tools that, for some calls, do what another tool
// does under their own name: call_mcp_tool runs the MCP tool its arguments
// name. The permission check must judge such a call as that tool, so that
// the rules and the organisation's denied tools written for it
// (`mcp_github_*`, `mcp_*`) apply whatever door the model used.
type Proxy interface {
	// ProxyFor returns the name and the arguments the call is to be judged
	// as. ok is false when the call is judged as it is. A proxy that
	// cannot tell which tool its arguments name still returns a name that
	// rules on the family of tools it reaches match (an `mcp_` name), so
	// that a deny rule fails closed.
	ProxyFor(args json.RawMessage) (name string, target json.RawMessage, ok bool)
}
