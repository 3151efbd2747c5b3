package engine

import (
	"context"

	"github.com/moteur/moteur/event"
)

// Store is what the engine reads back of the sessions it runs: their
// persisted events, in seq order (session.Store implements it). LoadFrom
// with after = 0 gives every event; an unknown session is an error wrapping
// session.ErrNotFound.
type Store interface {
	LoadFrom(ctx context.Context, sessionID string, after uint64) ([]event.Event, error)
}
