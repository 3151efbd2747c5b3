package engine

import (
	"errors"
	"fmt"

	"github.com/moteur/moteur/event"
)

var (
	// ErrSessionActive: Restore on a session that already has state in this
	// Engine.
	ErrSessionActive = errors.New("session already active in this process")
	// ErrInvalidLog: the events handed to Restore cannot describe a session.
	ErrInvalidLog = errors.New("invalid session log")
)

// danglingCallAnswer answers, on Restore, a call that never got a result:
// the process stopped while it ran, so whether it took effect is unknown.
const danglingCallAnswer = "No result was recorded for this call: the session stopped (crash or interruption) before the call finished. " +
	"The tool may or may not have run; check its effect before calling it again."

// notRunAnswer answers, on the next turn, a call of a round that was still
// waiting for the user's approval when the session stopped: every call of
// a round is decided before any runs, so none of them ran.
const notRunAnswer = "This call was not run: the session stopped (crash or interruption) while the round waited for the user's approval. " +
	"Nothing it would have done happened; call it again if it is still needed."

// resolvedInterrupted is PermissionResolved.By for a request that a process
// which stopped left waiting: the next turn ends it.
const resolvedInterrupted = "interrupted"

// Restore rebuilds the in-memory state of a session from its persisted
// events (session.Store.Load), in order, as seed 003 specifies: the events
// go through the same reducer as the live path (state.apply). Call it
// before any Submit of the session; it returns ErrSessionActive when the
// session already has state in this Engine, and an error wrapping
// ErrInvalidLog when the events cannot describe a session (another
// session's event, seqs out of order, a compaction or rewind out of range).
// With Deps.Store, Restore is not needed: a session's events are read back
// before its turn.
func (e *Engine) Restore(sessionID string, events []event.Event) error {
	st, err := replay(newState(sessionID), events)
	if err != nil {
		return err
	}
	e.sessMu.Lock()
	defer e.sessMu.Unlock()
	if _, ok := e.sessions[sessionID]; ok {
		return fmt.Errorf("%w: %s", ErrSessionActive, sessionID)
	}
	e.sessions[sessionID] = newSession(st)
	return nil
}

// replay applies events to st, and names the first one it refuses.
func replay(st *state, events []event.Event) (*state, error) {
	for _, ev := range events {
		if err := st.apply(ev); err != nil {
			return nil, fmt.Errorf("%w: session %s, event %d (%s): %w", ErrInvalidLog, st.id, ev.Seq, ev.Type, err)
		}
	}
	return st, nil
}

// joinContext joins the text a hook added to a message, as the live turn
// does.
func joinContext(text, hookContext string) string {
	if hookContext == "" {
		return text
	}
	return text + "\n\n" + hookContext
}

// joinNote puts a code rewind's note before the next user message.
func joinNote(note, text string) string { return note + "\n\n" + text }
