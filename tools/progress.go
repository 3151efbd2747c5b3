package tools

import "context"

// Progress is what a running call says of how far it got: an MCP server's
// progress notification, a long download. It is shown to the user while
// the call runs and never kept (an ephemeral event).
type Progress struct {
	// Message is a short human-readable account; may be empty.
	Message string
	// Done and Total count the work; Total is 0 when unknown.
	Done, Total float64
}

// ProgressFunc receives the progress of one call.
type ProgressFunc func(Progress)

type progressKey struct{}

// WithProgress returns a context whose calls report progress to f. The
// engine sets one for each call it runs; f must be safe for concurrent use
// and must not block.
func WithProgress(ctx context.Context, f ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// ReportProgress tells the caller of the call running under ctx how far it
// got. It does nothing when nobody listens.
func ReportProgress(ctx context.Context, p Progress) {
	if f, ok := ctx.Value(progressKey{}).(ProgressFunc); ok && f != nil {
		f(p)
	}
}
