package mcp

import "encoding/json"

// Guard decides what leaves the machine; the application implements it
// with policy.Outbound (the allowlist and organisation policy for hosts,
// the classification check for text).
type Guard interface {
	// CheckEndpoint is called before any connection to an http or sse
	// server, before every reconnection, and for every HTTP request the
	// transport makes (so a redirect or an SSE endpoint on another host is
	// checked too). A refusal means no connection is made.
	CheckEndpoint(server ServerInfo, url string) error
	// CheckArguments is called before each call to a server not declared
	// local, with the arguments about to be sent (for ReadResource, tool is
	// "resources/read" and args {"uri": …}). A refusal means nothing is
	// sent.
	CheckArguments(server ServerInfo, tool string, args json.RawMessage) error
}

// AllowAll is a Guard that refuses nothing, for tests and for programs
// (the conformance client) that decide elsewhere.
type AllowAll struct{}

// CheckEndpoint implements Guard.
func (AllowAll) CheckEndpoint(ServerInfo, string) error { return nil }

// CheckArguments implements Guard.
func (AllowAll) CheckArguments(ServerInfo, string, json.RawMessage) error { return nil }
