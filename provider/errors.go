package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
)

// Kind classifies a provider failure by what the caller should do about it.
type Kind int

// Kinds of failure.
const (
	// Permanent failures are not retried: bad request, auth, unknown model.
	Permanent Kind = iota
	// Transient failures may succeed when retried: 429, 5xx, timeouts,
	// overload, a connection cut mid-stream, a stalled stream.
	Transient
	// ContextOverflow means the request did not fit the model's window.
	ContextOverflow
)

func (k Kind) String() string {
	switch k {
	case Transient:
		return "transient"
	case ContextOverflow:
		return "context_overflow"
	}
	return "permanent"
}

// Error is a classified provider failure. Message is the server's own words
// when it gave any.
type Error struct {
	Provider string
	Kind     Kind
	// Status is the HTTP status, 0 when the failure was not an HTTP answer.
	Status int
	// Type and Code are the server's error type and code, when it sent them.
	Type, Code string
	Message    string
	Err        error
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if e.Status != 0 {
		return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, msg)
	}
	return fmt.Sprintf("%s: %s", e.Provider, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf classifies any error returned by a provider. Context cancellation is
// Permanent (the caller asked to stop); network timeouts are Transient.
func KindOf(err error) Kind {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Kind
	}
	if errors.Is(err, context.Canceled) {
		return Permanent
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Transient
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return Transient
	}
	return Permanent
}

// IsTransient reports whether err may go away when the request is retried.
func IsTransient(err error) bool { return err != nil && KindOf(err) == Transient }

// IsContextOverflow reports whether err says the request exceeded the
// model's context window.
func IsContextOverflow(err error) bool { return err != nil && KindOf(err) == ContextOverflow }

// KindForStatus classifies an HTTP status alone.
func KindForStatus(status int) Kind {
	switch {
	case status == 408 || status == 409 || status == 425 || status == 429:
		return Transient
	case status >= 500:
		return Transient
	}
	return Permanent
}
