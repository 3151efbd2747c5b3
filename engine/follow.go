package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/moteur/moteur/event"
	storage "github.com/moteur/moteur/session"
)

// Followers (SubscribeSession) read one session: its stored events first,
// then what the Engine emits for it. The Engine never waits for them: each
// has a bounded live buffer, and one that falls behind loses the buffer's
// overflow, is told so by a marker, and reads the persisted events it
// missed back from the store.
const (
	followerBuffer = 512
	// followPage bounds how many stored events a follower holds at once.
	followPage = 512
	// followPoll is how often a follower looks in the store for events
	// another process appended.
	followPoll = 250 * time.Millisecond
)

// ErrFollowAfterEnd: SubscribeSession after a seq the session has not
// reached.
var ErrFollowAfterEnd = errors.New("seq beyond the end of the session")

// SubscribeSession returns a channel that receives every event of session
// sessionID after afterSeq, in order, without gaps or duplicates: first the
// stored ones (Deps.Store), then the live ones as this Engine emits them,
// streaming deltas included, and, polling the store, those another process
// appends. It never blocks the engine or other followers: a follower whose
// reader falls behind gets an ephemeral Warning (kind "follower_lagged")
// and goes on from its last seq, read back from the store; the live deltas
// it missed are lost. The channel is closed when ctx ends, or when an error
// stops the follower (an ephemeral Error says which).
//
// Without Deps.Store only live events can be followed: afterSeq must then
// be the session's last seq in this Engine (0 for a session not begun),
// and a follower that falls behind is cut off after the marker. A session
// with no such seq is ErrFollowAfterEnd; a session the store does not know
// may be followed from 0 (it has not begun).
func (e *Engine) SubscribeSession(ctx context.Context, sessionID string, afterSeq uint64) (<-chan event.Event, error) {
	last, err := e.lastSeq(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if afterSeq > last {
		return nil, fmt.Errorf("session %s: follow after seq %d: %w (it ends at seq %d)", sessionID, afterSeq, ErrFollowAfterEnd, last)
	}
	if e.deps.Store == nil && afterSeq < last {
		return nil, fmt.Errorf("session %s: follow after seq %d: no store to read seqs %d to %d from (follow after %d)",
			sessionID, afterSeq, afterSeq+1, last, last)
	}
	f := &follower{live: make(chan live, followerBuffer), lagged: make(chan struct{}, 1)}
	// Registered before the stored events are read: nothing emitted from
	// now on is missed.
	e.followers.add(sessionID, f)
	out := make(chan event.Event)
	r := &followRun{e: e, id: sessionID, f: f, out: out, last: afterSeq}
	go r.run(ctx)
	return out, nil
}

// lastSeq is the session's last seq: the store's, or this Engine's.
func (e *Engine) lastSeq(ctx context.Context, id string) (uint64, error) {
	var last uint64
	if s := e.existing(id); s != nil {
		s.emitMu.Lock()
		last = s.st.seq
		s.emitMu.Unlock()
	}
	if e.deps.Store == nil {
		return last, nil
	}
	if in, ok := e.deps.Store.(infoReader); ok {
		info, err := in.Info(ctx, id)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			return last, nil
		case err != nil:
			return 0, fmt.Errorf("session %s: %w", id, err)
		}
		return max(last, info.LastSeq), nil
	}
	evs, err := e.deps.Store.LoadFrom(ctx, id, last)
	if errors.Is(err, storage.ErrNotFound) {
		return last, nil
	}
	if err != nil {
		return 0, fmt.Errorf("session %s: %w", id, err)
	}
	if n := len(evs); n > 0 {
		last = evs[n-1].Seq
	}
	return last, nil
}

// infoReader is implemented by stores that describe a session
// (session.Store.Info): its last seq without reading its events.
type infoReader interface {
	Info(ctx context.Context, sessionID string) (storage.Info, error)
}

// live is an event as a follower receives it from the Engine, with the
// session's last seq when it was emitted (for a delta, the event it
// follows).
type live struct {
	ev    event.Event
	after uint64
}

type follower struct {
	live   chan live
	lagged chan struct{} // signalled when live overflowed
}

// followers are the Engine's followers, by session.
type followers struct {
	mu        sync.Mutex
	bySession map[string]map[*follower]struct{}
}

func (fs *followers) add(id string, f *follower) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.bySession == nil {
		fs.bySession = map[string]map[*follower]struct{}{}
	}
	if fs.bySession[id] == nil {
		fs.bySession[id] = map[*follower]struct{}{}
	}
	fs.bySession[id][f] = struct{}{}
}

func (fs *followers) remove(id string, f *follower) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	delete(fs.bySession[id], f)
	if len(fs.bySession[id]) == 0 {
		delete(fs.bySession, id)
	}
}

// deliver hands ev to the session's followers without waiting: a full
// buffer marks its follower lagged instead.
func (fs *followers) deliver(id string, ev event.Event, after uint64) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for f := range fs.bySession[id] {
		select {
		case f.live <- live{ev: ev, after: after}:
		default:
			select {
			case f.lagged <- struct{}{}:
			default:
			}
		}
	}
}

// followRun is one follower's goroutine: it alone writes out and last.
type followRun struct {
	e    *Engine
	id   string
	f    *follower
	out  chan<- event.Event
	last uint64 // seq of the last event sent
}

func (r *followRun) run(ctx context.Context) {
	defer close(r.out)
	defer r.e.followers.remove(r.id, r.f)
	if !r.backfill(ctx) {
		return
	}
	var poll <-chan time.Time
	if r.e.deps.Store != nil {
		t := time.NewTicker(followPoll)
		defer t.Stop()
		poll = t.C
	}
	for {
		// An overflow is handled before the next live event: the events
		// after the ones dropped must not come before the marker.
		select {
		case <-r.f.lagged:
			if !r.recover(ctx) {
				return
			}
			continue
		default:
		}
		select {
		case <-ctx.Done():
			return
		case l := <-r.f.live:
			if !r.take(ctx, l) {
				return
			}
		case <-r.f.lagged:
			if !r.recover(ctx) {
				return
			}
		case <-poll:
			if !r.backfill(ctx) {
				return
			}
		}
	}
}

// take sends a live event: a persisted one that follows the last sent
// (after the stored ones it skipped, when there is a gap), a delta when it
// follows exactly the last event sent.
func (r *followRun) take(ctx context.Context, l live) bool {
	if l.ev.Ephemeral {
		return l.after != r.last || r.send(ctx, l.ev)
	}
	if l.ev.Seq <= r.last {
		return true
	}
	if l.ev.Seq > r.last+1 && !r.backfill(ctx) {
		return false
	}
	return l.ev.Seq <= r.last || r.send(ctx, l.ev)
}

// recover handles an overflow: the reader is told first, then gets what
// the buffer kept and, from the store, the persisted events that were
// dropped.
func (r *followRun) recover(ctx context.Context) bool {
	msg := fmt.Sprintf("this follower fell behind after seq %d: live events were dropped", r.last)
	if r.e.deps.Store == nil {
		_ = r.send(ctx, r.marker("follower_lagged", msg+"; no store to read them back from, so it stops (follow again from seq "+fmt.Sprint(r.last)+")"))
		return false
	}
	if !r.send(ctx, r.marker("follower_lagged", msg+"; the persisted ones follow, read back from the store")) {
		return false
	}
	for {
		select {
		case l := <-r.f.live:
			if !r.take(ctx, l) {
				return false
			}
		default:
			return r.backfill(ctx)
		}
	}
}

// backfill sends the stored events after the last one sent, a page at a
// time.
func (r *followRun) backfill(ctx context.Context) bool {
	if r.e.deps.Store == nil {
		return true
	}
	for {
		evs, err := r.e.loadPage(ctx, r.id, r.last, followPage)
		if errors.Is(err, storage.ErrNotFound) && r.last == 0 {
			return true // not begun yet
		}
		if err != nil {
			if ctx.Err() == nil {
				_ = r.send(ctx, event.Event{Type: event.Error, SessionID: r.id, Time: r.e.now(), Ephemeral: true,
					Payload: event.ErrorPayload{Kind: "follow", Message: fmt.Sprintf("session %s: read events after seq %d: %v", r.id, r.last, err)}})
			}
			return false
		}
		for _, ev := range evs {
			if !r.send(ctx, ev) {
				return false
			}
		}
		if len(evs) < followPage {
			return true
		}
	}
}

func (r *followRun) send(ctx context.Context, ev event.Event) bool {
	select {
	case r.out <- ev:
		if !ev.Ephemeral {
			r.last = ev.Seq
		}
		return true
	case <-ctx.Done():
		return false
	}
}

func (r *followRun) marker(kind, msg string) event.Event {
	return event.Event{Type: event.Warning, SessionID: r.id, Time: r.e.now(), Ephemeral: true,
		Payload: event.WarningPayload{Kind: kind, Message: msg}}
}

// rangeLoader is implemented by stores that read a bounded page of events
// (session.Store.LoadRange).
type rangeLoader interface {
	LoadRange(ctx context.Context, sessionID string, after uint64, limit int) ([]event.Event, error)
}

// loadPage reads at most limit events after `after` (limit 0: all), by
// pages when the store can.
func (e *Engine) loadPage(ctx context.Context, id string, after uint64, limit int) ([]event.Event, error) {
	if rl, ok := e.deps.Store.(rangeLoader); ok && limit > 0 {
		return rl.LoadRange(ctx, id, after, limit)
	}
	return e.deps.Store.LoadFrom(ctx, id, after)
}
