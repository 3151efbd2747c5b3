package engine

import (
	"context"

	"github.com/moteur/moteur/hooks"
)

// EndSession ends session sessionID in this Engine (seed 003). It waits for
// a turn that still holds the session, at most until ctx ends, and then
// returns ctx.Err() having done nothing. No TurnCompleted is emitted. The
// session leaves the Engine's memory: its next turn, here or in any process
// with the store, reads it back from Deps.Store and records a SessionStarted
// of its own. Without a store its state is all there is, so it is kept
// (a later turn continues its seqs) and only the process's view of it ends.
// An unknown session is no error.
//
// When this Engine started the session (its SessionStarted is this
// process's), the SessionEnd hooks run first with reason, each for 5 s at
// most (hooks.SessionEndTimeout, applied by hooks.Run), recorded as
// HookStarted and HookCompleted; a hook's continue:false changes nothing.
// It returns the audit failure, if recording them failed.
func (e *Engine) EndSession(ctx context.Context, sessionID, reason string) error {
	s := e.existing(sessionID)
	if s == nil {
		return nil
	}
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.turn }()
	var hookErr error
	if s.started && !e.failed.Load() {
		_, hookErr = e.runHooks(ctx, s, nil, hooks.Input{Event: hooks.SessionEnd, Reason: reason})
	}
	e.sessMu.Lock()
	defer e.sessMu.Unlock()
	if e.deps.Store != nil {
		if e.sessions[sessionID] == s {
			delete(e.sessions, sessionID)
		}
		return hookErr
	}
	s.started, s.compactor, s.estimator, s.hookContext = false, nil, nil, ""
	return hookErr
}
