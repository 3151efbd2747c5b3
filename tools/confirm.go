package tools

import "encoding/json"

// Confirmer is implemented by tools some of whose calls need the user's
// own confirmation whatever the mode and the allow rules say: a write to a
// file that makes programs run or grants rights (.git/hooks/, .mcp.json), a
// shell command whose program is computed at run time. The policy still
// denies such a call where a deny rule or read_only forbids it; otherwise it
// asks, every time (an answer is never remembered for the session).
type Confirmer interface {
	// MustConfirm returns why this call must be confirmed, as a sentence
	// for the user and the model, or "" when the usual rules decide.
	MustConfirm(args json.RawMessage) string
}
