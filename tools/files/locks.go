package files

import (
	"context"
	"fmt"
	"sync"
)

// pathLocks serialises the calls that read a file, change it and write it
// back (append, edit, and overwrite, which must not slip between another
// call's read and write). Two calls on different paths never wait for each
// other. Paths are the resolved ones, so two spellings of one file (or a
// symlink and its target) share a lock.
//
// The locks hold only between this set's calls: another process is not
// stopped, which is why writes are atomic renames (a reader never sees half
// a file) rather than in-place updates.
type pathLocks struct {
	mu sync.Mutex
	m  map[string]*pathLock
}

// pathLock is a one-slot channel rather than a sync.Mutex so that a call
// whose deadline passes while it waits gives up instead of queueing for
// ever behind a slow one.
type pathLock struct {
	ch   chan struct{}
	refs int // callers holding or waiting; the entry goes when it drops to 0
}

// lock takes the lock of path, waiting at most until ctx is done. The
// returned function releases it and must be called exactly once.
func (l *pathLocks) lock(ctx context.Context, path string) (func(), error) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*pathLock{}
	}
	e := l.m[path]
	if e == nil {
		e = &pathLock{ch: make(chan struct{}, 1)}
		l.m[path] = e
	}
	e.refs++
	l.mu.Unlock()

	select {
	case e.ch <- struct{}{}:
		return func() {
			<-e.ch
			l.release(path, e)
		}, nil
	case <-ctx.Done():
		l.release(path, e)
		return nil, fmt.Errorf("waiting for another call on %s: %w", path, context.Cause(ctx))
	}
}

// release drops one reference, and the entry with the last one, so the map
// holds only paths in use.
func (l *pathLocks) release(path string, e *pathLock) {
	l.mu.Lock()
	e.refs--
	if e.refs == 0 {
		delete(l.m, path)
	}
	l.mu.Unlock()
}
