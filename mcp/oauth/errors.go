package oauth

import (
	"errors"
	"fmt"
)

// Errors to test with errors.Is.
var (
	// ErrLoginRequired: the server needs a token this package does not have
	// or cannot renew. The error that wraps it says which server and tells
	// the user to run `moteur mcp login NAME`.
	ErrLoginRequired = errors.New("login required")
	// ErrNotProtected: Login found that the server answers without asking
	// for authorization, so there is nothing to log in to.
	ErrNotProtected = errors.New("server does not ask for authorization")
	// ErrLoginTimeout: the browser did not come back to the loopback
	// redirect in time.
	ErrLoginTimeout = errors.New("login timed out")
	// ErrRefused: the outbound check refused a URL; nothing was sent to it.
	ErrRefused = errors.New("outbound check refused the URL")
	// ErrNoToken: the store holds no token for that server.
	ErrNoToken = errors.New("no token saved")
)

// LoginRequiredError is what a request to a server that needs a (new) login
// fails with. It wraps ErrLoginRequired and the cause, if any.
type LoginRequiredError struct {
	Server string // the server's name in mcpServers
	Reason string // why, in a few words, without any token
	Err    error  // the cause, or nil
}

func (e *LoginRequiredError) Error() string {
	msg := fmt.Sprintf("MCP server %q needs a login (%s): run `moteur mcp login %s`", e.Server, e.Reason, e.Server)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap makes the error match ErrLoginRequired and its cause.
func (e *LoginRequiredError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrLoginRequired}
	}
	return []error{ErrLoginRequired, e.Err}
}

func loginRequired(server, reason string, err error) error {
	return &LoginRequiredError{Server: server, Reason: reason, Err: err}
}
