package policy

import "context"

// A sensitive session — classified content entered it — sends its content
// only to receivers declared local. The model requests are routed by the
// engine, which knows; a tool that sends on its own (a web search, a page
// fetched) learns it from the context of its call, which the engine and
// the quick answer mark.

type sensitiveKey struct{}

// WithSensitive marks ctx as running for a sensitive session.
func WithSensitive(ctx context.Context) context.Context {
	return context.WithValue(ctx, sensitiveKey{}, true)
}

// SensitiveFrom reports whether ctx runs for a sensitive session.
func SensitiveFrom(ctx context.Context) bool {
	v, _ := ctx.Value(sensitiveKey{}).(bool)
	return v
}
