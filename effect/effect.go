// Package effect holds what a tool call does to the world, as the packages
// that judge, record and undo calls share it: its risk class (policy
// decides on it, events record it), the files it changed and the store of
// their earlier contents (checkpoints undo them). It is a leaf: it imports
// nothing of Moteur's, so that event, policy and checkpoint need not import
// tools.
package effect

import "context"

// Risk is a call's risk class, from harmless to irreversible.
type Risk string

// Risk classes.
const (
	RiskRead        Risk = "read"        // reads data, changes nothing
	RiskProbe       Risk = "probe"       // looks outside (network, processes) without changing anything
	RiskWrite       Risk = "write"       // changes files or state, recoverably
	RiskDestructive Risk = "destructive" // may change state irreversibly
)

// Valid reports whether r is one of the four classes.
func (r Risk) Valid() bool {
	switch r {
	case RiskRead, RiskProbe, RiskWrite, RiskDestructive:
		return true
	}
	return false
}

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
