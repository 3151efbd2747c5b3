package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/moteur/moteur/event"
)

// Backend is the session the interface talks to. Its methods are called
// from commands, never from Update: they may block.
type Backend interface {
	// Start begins turn n (1, 2, 3… in the order the interface sends
	// them) on prompt (a skill call when it reads /NAME ARGS); the turn's
	// events, then its end, come through Next. An error means no turn
	// started (an unknown skill, a turn already running).
	Start(n int, prompt string) error
	// Cancel cancels turn n: at once when it runs, as soon as it starts
	// when its Start has not come yet (both are commands, which run in no
	// set order); a turn already over is left alone.
	Cancel(n int)
	// Next waits for what the session says next: an EventsMsg or a
	// TurnDoneMsg; nil once the backend is closed.
	Next() tea.Msg
	// Answer answers permission request id with line, as typed at the line
	// mode's question ("y", "n REASON", "a", "w").
	Answer(id, line string)
	// Command runs the slash command name (skills, agents, mcp) and
	// returns what it shows.
	Command(name, args string) (string, error)
	// RewindPoints are the points a rewind can go back to, newest first.
	RewindPoints() []RewindPoint
	// RewindPlan says what a rewind to the point seq would do: the files
	// put back, those in conflict, the calls it cannot undo.
	RewindPlan(seq uint64) (string, error)
	// Rewind goes back to the point seq (conversation and files, files in
	// conflict left alone) and says what it did.
	Rewind(seq uint64) (string, error)
	// Compact summarises the session's history now, between turns; its
	// events, then a CompactDoneMsg, come through Next.
	Compact()
}

// RewindPoint is a message of the user a rewind can go back to.
type RewindPoint struct {
	Seq    uint64
	Prompt string
	Time   time.Time
}

// EventsMsg is one or more events of the session, in order.
type EventsMsg []event.Event

// TurnDoneMsg says the running turn is over; Err is what SubmitInput
// returned (nil for a completed or cancelled turn).
type TurnDoneMsg struct {
	Err       error
	Cancelled bool
}

// CompactDoneMsg says the compaction /compact asked for is over: Err is
// its failure; Nothing, that the history was too short to compact; Busy,
// that a turn ran, so nothing was done.
type CompactDoneMsg struct {
	Err           error
	Nothing, Busy bool
}

// Internal messages.
type (
	tickMsg     struct{ id int }
	startErrMsg struct{ err error }
	commandMsg  struct {
		text string
		err  error
	}
	pointsMsg []RewindPoint
	planMsg   struct {
		seq  uint64
		text string
		err  error
	}
	rewoundMsg struct {
		prompt string
		text   string
		err    error
	}
)
