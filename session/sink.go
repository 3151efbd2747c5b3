package session

import (
	"context"

	"github.com/moteur/moteur/event"
)

// Sink is the event.Sink that stores every persisted event of the engine in
// a Store, as it happens. Its Write returns once the event is durable (or
// the Store's error, which stops the engine).
type Sink struct{ Store Store }

// Write appends e to its session.
func (s Sink) Write(ctx context.Context, e event.Event) error { return s.Store.Append(ctx, e) }

var _ event.Sink = Sink{}
