package tools

import "context"

type networkKey struct{}

// WithNetwork marks ctx as carrying the user's grant of network access to
// this one call (an approval's Reply.Network): a sandboxed shell tool opens
// the network for that call only.
func WithNetwork(ctx context.Context) context.Context {
	return context.WithValue(ctx, networkKey{}, true)
}

// NetworkGranted reports whether the call running under ctx was granted
// network access.
func NetworkGranted(ctx context.Context) bool {
	v, _ := ctx.Value(networkKey{}).(bool)
	return v
}
