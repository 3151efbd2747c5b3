package mcp

// State is where a server stands.
type State string

// States a server may be in.
const (
	// StateConnected: running, its tools listed. A server that stopped
	// during the session stays connected (its tools kept) until its next
	// call restarts it or fails to.
	StateConnected State = "connected"
	// StateDown: it could not be started (or restarted), or its
	// configuration is invalid; Error says why.
	StateDown State = "down"
	// StateUntrusted: configured in a project file the user has not
	// trusted; not started.
	StateUntrusted State = "untrusted"
	// StateDisabled: `"disabled": true`; not started.
	StateDisabled State = "disabled"
)

// ServerStatus is one line of `moteur mcp list`.
type ServerStatus struct {
	Name      string `json:"name"`
	Transport string `json:"transport,omitempty"`
	Source    string `json:"source,omitempty"`
	Trusted   bool   `json:"trusted"`
	Local     bool   `json:"local,omitempty"`
	State     State  `json:"state"`
	Tools     int    `json:"tools"`
	// Error is why the server is down or untrusted, masked.
	Error string `json:"error,omitempty"`
}
