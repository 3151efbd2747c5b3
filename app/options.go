package app

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/session"
	"github.com/moteur/moteur/tools"
)

// Options are what a face asks of a session: what the command line's
// flags carry, as plain values. The zero value of every field is the
// default.
type Options struct {
	// ProjectRoot is the project the agent works in ("": the working
	// directory). A rewind works in the project the session last ran in,
	// and in this one only when the session does not say.
	ProjectRoot string
	// DataDir is the data directory ("": $MOTEUR_HOME, default
	// $XDG_DATA_HOME/moteur, see DataDir).
	DataDir string
	// Env reads the environment (nil: os.Getenv): the model variables,
	// MOTEUR_HOME, MOTEUR_POLICY, MOTEUR_LANG, MOTEUR_AUDIT_SYSLOG, the
	// XDG directories.
	Env func(string) string
	// Now tells the time of the events a quick answer records and of the
	// engine's (nil: time.Now).
	Now func() time.Time

	// SessionID is the session to continue, or to start under this id
	// ("": a new session, named by NewSessionID).
	SessionID string
	// NewSessionID names a new session (nil: "s-<UTC time>-<16 hex
	// digits>", see NewSessionID).
	NewSessionID func() (string, error)

	// Lang is the language of messages and prompts ("": the
	// configuration's lang, else $MOTEUR_LANG, else French).
	Lang i18n.Lang
	// Mode is the access mode of this session ("": the configuration's).
	// One looser than the organisation's min_mode is an *OptionError.
	Mode policy.Mode
	// Allow are permission rules added to the configuration's allow rules
	// for this session only (deny rules still win).
	Allow []string
	// Sandbox is the isolation of shell commands: shell.SandboxAuto ("" is
	// the same), SandboxBwrap or SandboxNone. The profiles stricter than
	// standard require bubblewrap: auto means bwrap there and none is an
	// *OptionError.
	Sandbox string
	// MaxIterations bounds the model rounds of a turn (0:
	// engine.DefaultMaxIterations).
	MaxIterations int
	// ApprovalTimeout is how long a call waits for the user's answer
	// before it is refused (0: engine.DefaultApprovalTimeout).
	ApprovalTimeout time.Duration
	// KnowledgeBases are the bases whose tools the agent gets (none: no
	// knowledge tools), or that a quick answer searches (none: all of
	// them). Each must exist.
	KnowledgeBases []string
	// SearchMode is how a quick answer searches ("": hybrid).
	SearchMode kb.Mode
	// NoModel says the session runs no turn (a rewind, a follow, an
	// approval): no provider is required nor made, and the engine refuses
	// turns with engine.ErrNoProvider. A quick answer never requires one:
	// without a model the extractive provider answers.
	NoModel bool
	// Tools are constructors of tools added to every session's registry
	// after the built-ins.
	Tools []func() tools.Tool

	// TrustProject trusts what came with the project and runs programs —
	// its .mcp.json, its configuration's hooks — as it is now, and
	// remembers it (`--trust-project`). Without it (or ConfirmTrust's yes)
	// they are reported, not run.
	TrustProject bool
	// ConfirmTrust, when set, is asked once whether to trust such a file
	// that is not trusted yet (a terminal's prompt); the answer is
	// remembered for that content. Nil asks nobody.
	ConfirmTrust func(TrustRequest) (bool, error)
	// Interactive: a person watches the session (a chat on a terminal):
	// Notification hooks run when a request waits for an answer.
	Interactive bool
	// NoMCP starts no MCP server.
	NoMCP bool
	// Web offers the web tools (`--web`, a request's web_search_enabled):
	// web_fetch, and web_search when the configuration names a search
	// provider. Without it, the agent's web_search_enabled decides, and
	// with no agent the user's web: section (see web.go). The airgapped
	// profile offers none whatever is asked.
	Web bool
	// NoWeb offers no web tool, whatever the agent and the configuration
	// say (`--no-web`).
	NoWeb bool
	// Agent is the custom agent the session runs as (nil: the
	// configuration's defaults; see ResolveAgent to find one by name).
	// Settings.Open runs it in the agent loop and Settings.OpenQuick in the
	// quick answer; a quick-answer agent belongs to the latter
	// (Settings.Quick). Its EnsureDefaults is applied to a copy. It narrows
	// what the configuration allows and never loosens it: see agent.go for
	// how each field is honoured.
	Agent *agentconfig.Agent
	// ReasoningEffort is the session's reasoning effort, one of
	// agentconfig.Efforts ("": the agent's, see
	// agentconfig.CustomAgentConfig.Reasoning; without an agent, nothing
	// is asked and the server decides). It wins over the agent's, as a
	// request's reasoning_effort does in seed 000. An unknown value is an
	// *OptionError.
	ReasoningEffort string
	// Store is the session store of DataDir, for a process that opens
	// many sessions one after the other and keeps it open (moteur serve):
	// the sessions use it and leave it open. Nil: each session opens the
	// data directory's store and closes it with itself.
	Store session.Store
	// Notify receives what the user should know that arises while the
	// session runs, one line each (an MCP tool left out because its
	// schema is invalid). It may be called from any goroutine. Nil: such
	// lines are dropped.
	Notify func(string)
}

// resolved are Options with the defaults that need no configuration
// filled in: the environment, the clock, the naming of new sessions, the
// project root and the data directory, both absolute.
func (o Options) resolved() (Options, error) {
	if o.Env == nil {
		o.Env = os.Getenv
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewSessionID == nil {
		now := o.Now
		o.NewSessionID = func() (string, error) { return NewSessionID(now(), rand.Reader) }
	}
	root := o.ProjectRoot
	var err error
	if root == "" {
		root, err = os.Getwd()
	}
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		return o, fmt.Errorf("project root: %w", err)
	}
	o.ProjectRoot = root
	if o.ReasoningEffort != "" {
		if err := agentconfig.CheckEffort(o.ReasoningEffort); err != nil {
			return o, &OptionError{Option: "reasoning_effort", Err: err}
		}
	}
	if o.DataDir == "" {
		o.DataDir, err = DataDir(o.Env)
	} else if o.DataDir, err = filepath.Abs(o.DataDir); err != nil {
		err = fmt.Errorf("data directory: %w", err)
	}
	return o, err
}

// sessionID is the session the options name, or a new one's id.
func (o Options) sessionID() (string, error) {
	if o.SessionID != "" {
		return o.SessionID, checkSessionID(o.SessionID)
	}
	return o.NewSessionID()
}
