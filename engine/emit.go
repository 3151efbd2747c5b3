package engine

import (
	"context"
	"fmt"

	"github.com/moteur/moteur/event"
)

// subscriberBuffer is the capacity of each Subscribe channel (seed 003).
const subscriberBuffer = 256

// Subscribe returns a channel that receives every event emitted after the
// call. Delivery blocks when the buffer is full: the subscriber must read
// continuously. The channel is never closed.
func (e *Engine) Subscribe() <-chan event.Event {
	ch := make(chan event.Event, subscriberBuffer)
	e.subsMu.Lock()
	e.subs = append(e.subs, ch)
	e.subsMu.Unlock()
	return ch
}

// emit numbers, masks, persists, applies and delivers one event of
// session s, and returns the event as recorded. Persisted events have their
// secrets masked (event.MaskEvent) before any sink or subscriber sees them,
// go to every sink, then change the session's state (state.apply: the live
// history is the one Restore rebuilds, masked as the log keeps it), then
// reach the subscribers and the session's followers. A sink failure marks
// the engine failed and returns an error wrapping ErrAuditFailure.
func (e *Engine) emit(s *session, typ event.Type, payload any) (event.Event, error) {
	return e.emitAs(s, nil, typ, payload)
}

// emitAs is emit for the session's own events (c nil) or a sub-agent's:
// these carry the parent's call id and, once the session's state took
// what concerns it, change the child's own state too.
func (e *Engine) emitAs(s *session, c *subAgent, typ event.Type, payload any) (event.Event, error) {
	spec, _ := event.SpecOf(typ)
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	if e.failed.Load() {
		return event.Event{}, ErrAuditFailure
	}
	ev := event.Event{Type: typ, SessionID: s.id, Time: e.now(), Payload: payload, Ephemeral: !spec.Persisted}
	if c != nil {
		ev.ParentCallID = c.callID
	}
	if spec.Persisted {
		ev = event.MaskEvent(ev)
		ev.Seq = s.st.seq + 1
		if err := e.persist(ev); err != nil {
			e.failed.Store(true)
			e.deliver(s, event.Event{Type: event.Error, SessionID: s.id, Time: ev.Time, Ephemeral: true,
				Payload: event.ErrorPayload{Kind: "audit", Message: err.Error()}})
			return event.Event{}, err
		}
		if err := s.st.apply(ev); err != nil {
			// The engine made an event its own reducer refuses: a bug,
			// which stops the turn rather than diverge from the log.
			return ev, fmt.Errorf("%w: session %s, event %d (%s): %w", ErrInvalidLog, s.id, ev.Seq, ev.Type, err)
		}
		if c != nil {
			own := ev
			own.ParentCallID = ""
			if err := c.st.apply(own); err != nil {
				return ev, fmt.Errorf("%w: session %s, sub-agent %s, event %d (%s): %w", ErrInvalidLog, s.id, c.callID, ev.Seq, ev.Type, err)
			}
		}
	}
	e.deliver(s, ev)
	return ev, nil
}

func (e *Engine) persist(ev event.Event) error {
	// Sinks get a context that outlives the turn's: the record of a
	// cancelled turn must still be written.
	ctx := context.Background()
	for i, sink := range e.deps.Sinks {
		if err := sink.Write(ctx, ev); err != nil {
			return fmt.Errorf("%w: sink %d, event %d (%s): %w", ErrAuditFailure, i, ev.Seq, ev.Type, err)
		}
	}
	return nil
}

// deliver gives ev to every subscriber, waiting for room in each channel
// (seed 003's contract), then to the session's followers, which never make
// it wait.
// The caller holds s.emitMu.
func (e *Engine) deliver(s *session, ev event.Event) {
	e.subsMu.RLock()
	subs := e.subs
	e.subsMu.RUnlock()
	for _, ch := range subs {
		ch <- ev
	}
	e.followers.deliver(s.id, ev, s.st.seq)
}
