package server

import (
	"context"
	"net/http"
	"time"

	"github.com/moteur/moteur/event"
)

// Subscriber follows a session's events: every event after seq `after`,
// stored ones first, then live ones, until ctx ends (the channel is then
// closed). An engine is adapted with SubscriberFunc(eng.SubscribeSession).
type Subscriber interface {
	Subscribe(ctx context.Context, sessionID string, after uint64) (<-chan event.Event, error)
}

// SubscriberFunc adapts a function, such as (*engine.Engine).SubscribeSession
// as a method value, to Subscriber.
type SubscriberFunc func(ctx context.Context, sessionID string, after uint64) (<-chan event.Event, error)

// Subscribe calls f.
func (f SubscriberFunc) Subscribe(ctx context.Context, sessionID string, after uint64) (<-chan event.Event, error) {
	return f(ctx, sessionID, after)
}

// Ticker is the clock seam of keep-alives: *time.Ticker's C and Stop.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

type timeTicker struct{ t *time.Ticker }

func (t timeTicker) C() <-chan time.Time { return t.t.C }
func (t timeTicker) Stop()               { t.t.Stop() }

// EventsConfig configures SessionEvents. The zero value is the default.
type EventsConfig struct {
	// KeepAlive is the interval between keep-alive comments; 0:
	// DefaultKeepAlive; negative: none.
	KeepAlive time.Duration
	// NewTicker makes the keep-alive ticker; nil: time.NewTicker.
	NewTicker func(d time.Duration) Ticker
}

// SessionEvents serves GET /api/v1/sessions/{id}/events: the session's
// events after Last-Event-ID (or ?after=SEQ) as Server-Sent Events, stored
// ones then live ones, until the client goes away or the subscription ends.
// A client that lost its connection reconnects with the last id it got and
// misses nothing. It reads the session id from the route's {id} wildcard
// (http.Request.PathValue).
type SessionEvents struct {
	sub       Subscriber
	keepAlive time.Duration
	newTicker func(time.Duration) Ticker
}

// NewSessionEvents returns the handler, following sessions through sub.
func NewSessionEvents(sub Subscriber, cfg EventsConfig) *SessionEvents {
	h := &SessionEvents{sub: sub, keepAlive: cfg.KeepAlive, newTicker: cfg.NewTicker}
	if h.keepAlive == 0 {
		h.keepAlive = DefaultKeepAlive
	}
	if h.newTicker == nil {
		h.newTicker = func(d time.Duration) Ticker { return timeTicker{time.NewTicker(d)} }
	}
	return h
}

func (h *SessionEvents) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if id == "" {
		WriteError(w, apiErrorf(http.StatusBadRequest, CodeBadRequest, "no session id in the path"))
		return
	}
	after, err := afterSeq(r)
	if err != nil {
		WriteError(w, err)
		return
	}
	sse, err := newSSEWriter(w)
	if err != nil {
		WriteError(w, err)
		return
	}
	// The subscription ends with this handler, whatever ends it: the
	// client leaving (r's context) or a failed write.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	events, err := h.sub.Subscribe(ctx, id, after)
	if err != nil {
		WriteError(w, err)
		return
	}
	if sse.start() != nil {
		return
	}
	h.stream(ctx, sse, events)
}

// stream copies events to the client, with keep-alives, until ctx ends,
// the channel closes or a write fails (the client is gone).
func (h *SessionEvents) stream(ctx context.Context, sse *sseWriter, events <-chan event.Event) {
	var tick <-chan time.Time
	if h.keepAlive > 0 {
		t := h.newTicker(h.keepAlive)
		defer t.Stop()
		tick = t.C()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok || sse.event(ev) != nil {
				return
			}
		case <-tick:
			if sse.comment("keep-alive") != nil {
				return
			}
		}
	}
}
