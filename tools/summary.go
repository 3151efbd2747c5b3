package tools

import "encoding/json"

// Summarizer is implemented by tools whose calls an approval prompt should
// show in their own words: the engine's default shows one argument (the
// command, the path, the URL), and a shell command's env and stdin are
// part of what the user approves.
type Summarizer interface {
	// Summary returns a one-line account of the call for the user, or ""
	// to let the engine make its own.
	Summary(args json.RawMessage) string
}
