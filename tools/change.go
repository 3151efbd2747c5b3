package tools

import (
	"context"
	"encoding/json"
)

// Change records one file a call changed, so that it can be rewound: the
// content before (a blob id in the checkpoint store, "" when the file did
// not exist) and the content the call left (the SHA-256 of its bytes, hex,
// "" when the call deleted it). Path is slash-separated, relative to the
// project root.
type Change struct {
	Path   string `json:"path"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// Blobs keeps file contents by their SHA-256 (hex): a file tool saves the
// content it is about to replace, so a rewind can bring it back.
type Blobs interface {
	Put(ctx context.Context, data []byte) (id string, err error)
	Get(ctx context.Context, id string) ([]byte, error)
}

// RiskAssessor is implemented by tools whose risk depends on the call: a
// shell command that only reads is a probe, one that changes things a
// write; overwriting a file the agent did not create is destructive.
type RiskAssessor interface {
	RiskOf(args json.RawMessage) Risk
}

// CallInfo identifies the call a tool runs for.
type CallInfo struct {
	Session string
	CallID  string
}

type callKey struct{}

// WithCall puts the call's identity in ctx; the engine does it for every
// call.
func WithCall(ctx context.Context, c CallInfo) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the identity of the call running under ctx.
func CallFrom(ctx context.Context) (CallInfo, bool) {
	c, ok := ctx.Value(callKey{}).(CallInfo)
	return c, ok
}
