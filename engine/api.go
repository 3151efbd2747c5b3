package engine

import (
	"errors"
	"github.com/moteur/moteur/effect"
	"time"

	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/hooks"
	"github.com/moteur/moteur/hostmatch"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/orgpolicy"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/routing"
	"github.com/moteur/moteur/tools"
)

// DefaultMaxIterations applies when Deps.MaxIterations is 0 or less.
const DefaultMaxIterations = 50

// Defaults of the loop (seed 000, "Constantes clés").
const (
	DefaultContextWindow    = 32000
	DefaultStallTimeout     = 120 * time.Second
	DefaultMaxParallelTools = 8
)

// Limits of the loop (seed 000).
const (
	maxLLMRetries              = 2
	maxEmptyResponseRetries    = 2
	maxRepeatedResponseRounds  = 2
	maxConsecutiveLengthRounds = 3
)

var (
	// ErrAuditFailure: a Sink failed; the engine now refuses every turn.
	ErrAuditFailure = errors.New("audit log write failure")
	// ErrEmptyInput: the input text is empty.
	ErrEmptyInput = errors.New("empty input")
	// ErrNoProvider: SubmitInput on an engine made without a provider.
	ErrNoProvider = errors.New("engine: no provider: this engine does not run turns")
)

// DefaultSystemPrompt is the system prompt of the default language (FR).
// When Deps.SystemPrompt is empty the engine uses the system prompt of
// Deps.Lang, which is this one for the zero Lang.
var DefaultSystemPrompt = i18n.SystemPrompt(i18n.FR)

// Deps groups the engine's dependencies. Zero values are the defaults.
type Deps struct {
	Provider provider.Provider
	Tools    *tools.Registry
	// Sinks receive every persisted event, in order; Sinks[0] is the audit
	// log. Any failure stops the turn and fails every later Submit with
	// ErrAuditFailure.
	Sinks         []event.Sink
	MaxIterations int
	SystemPrompt  string
	ProjectRoot   string
	// Instructions lists the instruction files loaded, copied into
	// SessionStarted.
	Instructions []string
	Now          func() time.Time
	Lang         i18n.Lang
	// ContextWindow is the model's window in estimated tokens
	// (0: DefaultContextWindow); closing syntheses are fitted to it.
	ContextWindow int
	// CompactionThreshold is the fraction of the window past which the
	// history is compacted (0: DefaultCompactionThreshold).
	CompactionThreshold float64
	// StallTimeout cancels a stream that produced nothing for that long
	// (0: DefaultStallTimeout); the stall counts as a transient error.
	StallTimeout time.Duration
	// RetryDelays are the waits before each retry of a transient provider
	// error (nil: 1 s then 2 s). Their count is the number of retries.
	RetryDelays []time.Duration
	// MaxParallelTools bounds concurrent tool calls (0: 8).
	MaxParallelTools int

	// Temperature, MaxTokens and NoThinking are the request options of a
	// custom agent (agentconfig: temperature, max_completion_tokens, a
	// reasoning effort of off), set on every model request of the loop —
	// each round, the closing synthesis, the compaction
	// summary, the sub-agents' requests — where the request itself sets
	// none. Zero values send nothing: the server's defaults.
	Temperature *float64
	MaxTokens   int
	NoThinking  bool
	// AgentID is the custom agent the session runs as, copied into
	// SessionStarted ("": none, the configuration's defaults).
	AgentID string

	// Permissions decides each call: allowed, refused, or asked of the
	// user (nil: every call is allowed).
	Permissions *policy.Permissions
	// ApprovalTimeout is how long a call waits for the user's answer
	// (0: DefaultApprovalTimeout); no answer refuses the call.
	ApprovalTimeout time.Duration
	// ShellSandboxed says the shell tool isolates its commands: requests
	// about it carry Sandboxed (the "allow with network" option). false:
	// each tool that can be given the network says so itself
	// (tools.NetworkGranter).
	ShellSandboxed bool
	// Checkpoints keeps the content files had before a tool changed them
	// (nil: a rewind cannot bring content back; deletions still work).
	Checkpoints *checkpoint.Store
	// Sandbox describes the session's isolation, copied into SessionStarted
	// (nil: what the first tool that isolates its calls describes,
	// tools.Isolated; omitted when none does).
	Sandbox *effect.Sandbox

	// Outbound is checked before every send (nil: built from Policy,
	// Allowlists, Profile and Classify).
	Outbound *policy.Outbound
	// Router orders the candidate providers of each send (nil: Provider
	// alone, no fallback, no local provider). With a local provider,
	// classified content makes the session sensitive instead of refused.
	Router *routing.Router
	// Routing describes the routing, copied into SessionStarted (nil:
	// derived from Router).
	Routing *event.RoutingInfo
	// Classify holds the classification rules; the built-in markings apply
	// even when they are empty.
	Classify classify.Rules
	// Profile is the active compliance profile (zero: standard), copied
	// into SessionStarted.
	Profile profile.Name
	// Mode is the access mode in force, copied into SessionStarted (the
	// decisions are Permissions'; zero: Permissions' mode).
	Mode policy.Mode
	// Policy is the organisation policy in force (nil: none), copied into
	// SessionStarted; Outbound checks its hosts before every send.
	Policy *orgpolicy.Policy
	// Allowlists are the provider allowlists (global, project); Outbound
	// checks the host against them before every send.
	Allowlists []hostmatch.List
	// MCP lists the active MCP servers, copied into SessionStarted.
	MCP []event.MCPServerInfo
	// UnavailableMCP: one McpServerDown is emitted for each right after
	// every SessionStarted.
	UnavailableMCP []event.McpServerDownPayload

	// Store, when set, is where the sessions' persisted events are read
	// back (session.Store implements it): before each turn the engine
	// applies the events it has not seen, so a session another process or
	// another Engine ran continues here without Restore. A store that also
	// keeps snapshots and approvals (session.Store does) makes continuing
	// a long session cheap and lets an approval be answered from another
	// process. nil: the engine knows only what it ran and what Restore gave
	// it.
	Store Store
	// Agents are the sub-agents the tool `agent` may start (nil: no
	// `agent` tool). A child runs its own loop with its own history, the
	// same provider, router, permissions and mode, and tools its agent's
	// allowlist narrows; it never starts a child of its own.
	Agents *agents.Catalog
	// BasePrompt is the system prompt without its skills and agents
	// sections: the base of a sub-agent's prompt ("": SystemPrompt).
	BasePrompt string
	// SkillsSection is the skills section added to the prompt of a
	// sub-agent that has read_file (the tool that reads skill://).
	SkillsSection string
	// OutputLimit cuts a sub-agent's answer, in characters (0: no cut).
	OutputLimit int
	// Hooks are the user's hooks (nil: none run).
	Hooks *hooks.Set
	// TranscriptPath is the session's JSONL transcript, given to hooks as
	// transcript_path.
	TranscriptPath string
	// Notify turns the Notification hook event on (interactive faces): it
	// runs when a permission request waits for the user.
	Notify bool

	// SnapshotEvery is how many events may follow a session's last
	// snapshot before the end of a turn stores a new one in Store, when it
	// keeps snapshots (0: DefaultSnapshotEvery).
	SnapshotEvery int
}

// Input is a user message: Text goes to the model; the other fields document
// a skill the input invoked (Typed is what the user typed).
type Input struct {
	Text, Typed, Skill, SkillSHA256 string
}
