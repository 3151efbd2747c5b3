package engine

import (
	"errors"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/tools"
)

// DefaultMaxIterations applies when Deps.MaxIterations is 0 or less.
const DefaultMaxIterations = 50

// Defaults of the loop (seed 000, "Constantes clés").
const (
	DefaultContextWindow    = 32000
	DefaultStallTimeout     = 120 * time.Second
	DefaultMaxParallelTools = 8
	// DefaultRescueTimeout bounds the rescue synthesis that runs after the
	// user stopped a turn.
	DefaultRescueTimeout = 30 * time.Second
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
)

// DefaultSystemPrompt is used when Deps.SystemPrompt is empty.
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
	// StallTimeout cancels a stream that produced nothing for that long
	// (0: DefaultStallTimeout); the stall counts as a transient error.
	StallTimeout time.Duration
	// RetryDelays are the waits before each retry of a transient provider
	// error (nil: 1 s then 2 s). Their count is the number of retries.
	RetryDelays []time.Duration
	// MaxParallelTools bounds concurrent tool calls (0: 8).
	MaxParallelTools int
	// RescueTimeout bounds the synthesis after a cancelled turn
	// (0: DefaultRescueTimeout).
	RescueTimeout time.Duration
}

// Input is a user message: Text goes to the model; the other fields document
// a skill the input invoked (Typed is what the user typed).
type Input struct {
	Text, Typed, Skill, SkillSHA256 string
}
