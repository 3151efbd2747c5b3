package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/moteur/moteur/event"
	storage "github.com/moteur/moteur/session"
)

// catchUp applies, before a turn, the session's persisted events this
// Engine has not seen, read from Deps.Store: all of them the first time
// (from the latest snapshot when the store keeps them), then only those
// another process or another Engine appended since this Engine's last
// event. Without a store the Engine's own state is the session's. The
// caller holds the session's turn.
func (e *Engine) catchUp(ctx context.Context, s *session) error {
	if e.deps.Store == nil {
		return nil
	}
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	var evs []event.Event
	if s.st.seq == 0 {
		if st, tail, ok := e.resume(ctx, s); ok {
			s.st, evs = st, tail
		}
	}
	if evs == nil {
		var err error
		evs, err = e.deps.Store.LoadFrom(ctx, s.id, s.st.seq)
		switch {
		case errors.Is(err, storage.ErrNotFound) && s.st.seq == 0:
			return nil // a new session
		case err != nil:
			return fmt.Errorf("session %s: read its events back: %w", s.id, err)
		}
	}
	for _, ev := range evs {
		if err := s.st.apply(ev); err != nil {
			return fmt.Errorf("%w: session %s, event %d (%s): %w", ErrInvalidLog, s.id, ev.Seq, ev.Type, err)
		}
	}
	return nil
}
