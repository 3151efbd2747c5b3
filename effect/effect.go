// Package effect holds what a tool call does to the world, as the packages
// that judge, record and undo calls share it with the tools: its risk class
// (policy decides on it, events record it), the files it changed and the
// store of their earlier contents (checkpoints undo them), and the sandbox
// it runs in (SessionStarted records it). It is a leaf: it imports nothing
// of Moteur's, so that event, policy and checkpoint need not import tools.
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

// Attachment is content a call returned that the model does not read as
// text (an image an MCP tool gave back): kept in the blobs by its SHA-256,
// with its MIME type, and described to the model in words until images
// reach models.
type Attachment struct {
	MIME   string `json:"mime"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	// Name is where it came from (a resource URI, a file name); may be empty.
	Name string `json:"name,omitempty"`
}

// Blobs keeps file contents by their SHA-256 (hex): a file tool saves the
// content it is about to replace, so a rewind can bring it back.
type Blobs interface {
	Put(ctx context.Context, data []byte) (id string, err error)
	Get(ctx context.Context, id string) ([]byte, error)
}

// Sandbox describes how a tool's calls (the shell's commands) are
// isolated, as SessionStarted records it.
type Sandbox struct {
	Kind    string `json:"kind"`
	Network bool   `json:"network,omitempty"`
	Detail  string `json:"detail,omitempty"`
	// The fields below say what the bwrap sandbox enforces, as a trial run
	// found it inside the sandbox at start; they are empty for other kinds.
	// UserNamespace: commands run in a user namespace of their own, as UID.
	UserNamespace bool `json:"user_namespace,omitempty"`
	UID           int  `json:"uid,omitempty"`
	// Capabilities is "none" when commands hold no capability at all.
	Capabilities string `json:"capabilities,omitempty"`
	// NoNewPrivs: no program gains privileges at exec (setuid ignored).
	NoNewPrivs bool `json:"no_new_privs,omitempty"`
	// Seccomp names the groups of system calls a seccomp filter refuses
	// ("mount", "namespaces", "ptrace", …); empty without a filter.
	Seccomp []string `json:"seccomp,omitempty"`
	// ReadOnly lists the project's control paths (files that make programs
	// run or grant rights: .git/config, .git/hooks, .mcp.json…) mounted
	// read-only inside the sandbox, relative to the project root.
	ReadOnly []string `json:"read_only,omitempty"`
}
