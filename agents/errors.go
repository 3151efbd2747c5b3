package agents

import (
	"errors"
	"fmt"
)

// Reasons a file is reported; a *FileError wraps one of them (or the
// frontmatter package's error), so that callers test them with errors.Is.
var (
	ErrNoName        = errors.New("no name")
	ErrBadName       = errors.New("bad name")
	ErrNoDescription = errors.New("no description")
	ErrBadField      = errors.New("bad field")
	ErrUnknownTool   = errors.New("unknown tool")
	ErrToolPattern   = errors.New("tool argument patterns are not supported")
	ErrUnknownModel  = errors.New("unknown model")
	ErrDuplicate     = errors.New("duplicate name")
	ErrOverride      = errors.New("replaces a built-in agent")
	ErrIgnoredKey    = errors.New("key not applied")
	ErrUnreadable    = errors.New("unreadable")
)

// FileError reports one problem of one agent file.
type FileError struct {
	Path string
	Line int    // 1-based; 0 when unknown
	Key  string // the front matter key at fault, if any
	// Err is the reason (one of the Err… values above, or the front
	// matter's parse error); Detail says it for this file.
	Err    error
	Detail string
	// Skipped: the file gave no agent. Otherwise the agent was kept, as
	// Detail says (without the tool, on its parent's model, …).
	Skipped bool
}

func (e *FileError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, e.Line)
	}
	if e.Key != "" {
		where += ": " + e.Key
	}
	msg := e.Detail
	if msg == "" {
		msg = e.Err.Error()
	}
	if e.Skipped {
		return where + ": " + msg + " (agent skipped)"
	}
	return where + ": " + msg
}

func (e *FileError) Unwrap() error { return e.Err }
