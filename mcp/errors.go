package mcp

import (
	"errors"

	"github.com/moteur/moteur/mcp/oauth"
)

// Sentinels for control flow; every error of this package that means one
// of them wraps it, so errors.Is works through the message.
var (
	// ErrServerDown: the server is not running (it failed to start, was
	// not trusted or is disabled, or it stopped during a call). A server
	// that stopped during a session is restarted on its next call.
	ErrServerDown = errors.New("MCP server down")
	// ErrLoginRequired: an HTTP server answered 401, or the OAuth client
	// of ManagerConfig.HTTPClient has no token it can use; the user must
	// run `moteur mcp login NAME`. It is the OAuth package's sentinel, so
	// that its errors, which the SDK passes through, match it too.
	ErrLoginRequired = oauth.ErrLoginRequired
	// ErrUnknownServer: no server of that name is configured.
	ErrUnknownServer = errors.New("unknown MCP server")
	// ErrNoGuard: ManagerConfig.Guard is nil. The manager refuses to start
	// without one rather than let anything leave unchecked.
	ErrNoGuard = errors.New("mcp: ManagerConfig.Guard is required")
)
