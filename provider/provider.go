// Package provider defines how Moteur talks to a model: the Provider
// interface and the classification of its errors. Implementations live in
// sub-packages (openai, scripted). A provider knows nothing of tools as code
// or of sessions: it turns one llm.Request into one streamed llm.Response.
package provider

import (
	"context"

	"github.com/moteur/moteur/llm"
)

// Provider streams chat completions.
//
// Stream sends req and calls onDelta, from the calling goroutine, for every
// piece of the response as it arrives (a zero Delta when a chunk carried
// nothing to show, so callers can tell a live stream from a stalled one). It
// returns the assembled response once the stream ends. Errors are *Error or
// wrap one, except context errors, which are returned as they are.
type Provider interface {
	Name() string
	Model() string
	Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error)
}
