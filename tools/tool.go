// Package tools owns what the agent can do: the Tool interface and the
// Registry that validates, runs and bounds every call. Built-in tools live in
// sub-packages (plan, …). The registry decides nothing about permissions; it
// exposes each tool's risk class so the policy layer can.
//
// A Registry is safe for concurrent use: Execute may be called from many
// goroutines at once, while a Group's tools change (an MCP server's) or a
// tool is registered.
package tools

import (
	"context"
	"encoding/json"
	"github.com/moteur/moteur/effect"
	"time"

	"github.com/moteur/moteur/cite"
)

// Tool is one capability offered to the model.
type Tool interface {
	// Name is the function name the model calls.
	Name() string
	// Description tells the model when and how to use the tool.
	Description() string
	// Schema is the JSON Schema of the arguments object.
	Schema() json.RawMessage
	// Risk is the tool's risk class.
	Risk() effect.Risk
	// Concurrent reports whether the tool may run at the same time as other
	// concurrent-safe calls of the same round.
	Concurrent() bool
	// Execute runs one call. args is a JSON object that has passed the
	// schema. A returned error becomes an error result for the model.
	Execute(ctx context.Context, args json.RawMessage) (Result, error)
}

// Result is what a call gives back to the model.
type Result struct {
	// Content is the text the model reads.
	Content string `json:"content"`
	// IsError marks a failed call; the loop goes on either way.
	IsError bool `json:"is_error,omitempty"`
	// Display hints how an interface may render the result ("plan", …).
	Display string `json:"display,omitempty"`
	// Truncated reports that Content was cut to the output limit.
	Truncated bool `json:"truncated,omitempty"`
	// Changes lists the files the call changed, for rewinds.
	Changes []effect.Change `json:"changes,omitempty"`
	// NotUndoable marks a call whose effects a rewind cannot undo (a shell
	// command that may have changed anything).
	NotUndoable bool `json:"not_undoable,omitempty"`
	// References lists what the result showed the model under an alias
	// (knowledge bases, documents, chunks), with the stored ids the model
	// never sees.
	References []cite.Ref `json:"references,omitempty"`
	// Classified names the classification rule of content the result
	// holds that its text does not show (a document under a classified
	// path): the session becomes sensitive, as for a marking.
	Classified string `json:"classified,omitempty"`
	// Attachments is what the call returned besides text (an MCP tool's
	// image), kept in the blobs by SHA-256 and described in Content.
	Attachments []effect.Attachment `json:"attachments,omitempty"`
}

// Retrieval is implemented by tools whose results describe sources that may
// change between turns (a knowledge base, the web): the engine sends an
// earlier turn's result as a placeholder, so that the agent searches again
// instead of trusting it (seed 000).
type Retrieval interface {
	Retrieval() bool
}

// NetworkGranter is implemented by tools that isolate their calls and can
// be given the network for one call at the user's word (the sandboxed
// shell): requests to approve such a call offer "allow with network".
type NetworkGranter interface {
	GrantsNetwork() bool
}

// Isolated is implemented by tools that run their calls in a sandbox: what
// it enforces, recorded in SessionStarted.
type Isolated interface {
	Sandbox() effect.Sandbox
}

// TimeoutOverrider is implemented by tools whose calls need a deadline other
// than the registry's default.
type TimeoutOverrider interface {
	Timeout() time.Duration
}

// OutputLimiter is implemented by tools whose results have a limit of their
// own, in runes, instead of the registry's (a page of a file is larger than
// the default; seed 000: "certains outils ont un plafond propre").
type OutputLimiter interface {
	MaxOutput() int
}
