package engine

import "context"

// EndSession ends session sessionID in this Engine (seed 003). It waits for
// a turn that still holds the session, at most until ctx ends, and then
// returns ctx.Err() having done nothing. No TurnCompleted is emitted. The
// session leaves the Engine's memory: its next turn, here or in any process
// with the store, reads it back from Deps.Store and records a SessionStarted
// of its own. Without a store its state is all there is, so it is kept
// (a later turn continues its seqs) and only the process's view of it ends.
// An unknown session is no error. The SessionEnd hooks (reason) belong to
// the hooks, which come with them.
func (e *Engine) EndSession(ctx context.Context, sessionID, reason string) error {
	_ = reason
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
	e.sessMu.Lock()
	defer e.sessMu.Unlock()
	if e.deps.Store != nil {
		if e.sessions[sessionID] == s {
			delete(e.sessions, sessionID)
		}
		return nil
	}
	s.started, s.compactor, s.estimator = false, nil, nil
	return nil
}
