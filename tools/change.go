package tools

import (
	"context"
	"encoding/json"
	"github.com/moteur/moteur/effect"
)

// RiskAssessor is implemented by tools whose risk depends on the call: a
// shell command that only reads is a probe, one that changes things a
// write; overwriting a file the agent did not create is destructive.
type RiskAssessor interface {
	RiskOf(args json.RawMessage) effect.Risk
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
