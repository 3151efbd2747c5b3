package engine

import (
	"context"

	storage "github.com/moteur/moteur/session"
)

// leaser is implemented by stores that let one process at a time append
// to a session (session.Store.Acquire).
type leaser interface {
	Acquire(ctx context.Context, sessionID string) (storage.Lease, error)
}

// lease makes this process the session's only writer for a turn or a
// rewind: the lease is taken now, and given back by the returned func,
// unless this process holds it already (the command line takes it before
// it reads a session). A session another live process holds is refused
// with the store's error, which names the session and the holder.
func (e *Engine) lease(ctx context.Context, id string) (release func(), err error) {
	l, ok := e.deps.Store.(leaser)
	if !ok {
		return func() {}, nil
	}
	held, err := l.Acquire(ctx, id)
	switch {
	case storage.HeldByThisProcess(err):
		return func() {}, nil
	case err != nil:
		return nil, err
	}
	return func() { _ = held.Release() }, nil
}
