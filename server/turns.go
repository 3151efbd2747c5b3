package server

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/session"
)

// Codes of the errors of starting a turn.
const (
	CodeBusy           = "busy"
	CodeInUse          = "in_use"
	CodeShuttingDown   = "shutting_down"
	CodeUnknownBase    = "unknown_knowledge_base"
	CodeInvalidOption  = "invalid_option"
	CodeConfiguration  = "configuration"
	CodeNotRunning     = "not_running"
	CodeTurnFailed     = "turn_failed"
	subscriberCapacity = 256
)

// turnRequest is what a face asks of one turn.
type turnRequest struct {
	SessionID string
	Query     string
	// Agent is the custom agent the session runs as (nil: the
	// configuration's defaults, as `moteur run` without --agent).
	Agent *agentconfig.Agent
	// Bases are the knowledge bases of the turn (none: the agent's).
	Bases []string
	// Web turns web search on for the turn.
	Web bool
	// Quick answers with the quick-answer pipeline instead of the loop.
	Quick bool
	// ReasoningEffort overrides the agent's reasoning effort ("": the
	// agent's), checked by the face that made the request.
	ReasoningEffort string
	// Key is the key the turn was asked with.
	Key apikey.Key
	// OnRequest, when set, answers each permission request of the turn
	// at once: its reply is sent (nil: the request waits for an answer
	// from POST /api/v1/agent/prompts/{id}, as usual).
	OnRequest func(event.PermissionRequestedPayload) *engine.Reply
}

// runner runs the turns of one opened session.
type runner interface {
	run(ctx context.Context, query string, publish func(event.Event)) error
	respond(id string, r engine.Reply) error
	close() error
}

// liveTurn is a turn running in this process: it fans its events out to
// the streams that follow it. Its events are published by one goroutine,
// in order; a subscriber that stops reading (its context ended) is
// dropped, and the turn goes on without it.
type liveTurn struct {
	sessionID string
	cancel    context.CancelFunc
	done      chan struct{}
	err       error // set before done is closed

	mu   sync.Mutex
	subs []*subscriber
}

type subscriber struct {
	ctx context.Context
	ch  chan event.Event
}

// subscribe returns the turn's events from now on, until the turn ends
// (the channel is then closed) or ctx ends.
func (t *liveTurn) subscribe(ctx context.Context) <-chan event.Event {
	sub := &subscriber{ctx: ctx, ch: make(chan event.Event, subscriberCapacity)}
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.done:
		close(sub.ch)
	default:
		t.subs = append(t.subs, sub)
	}
	return sub.ch
}

// publish delivers ev to every subscriber, in the publishing goroutine.
func (t *liveTurn) publish(ev event.Event) {
	t.mu.Lock()
	subs := append([]*subscriber(nil), t.subs...)
	t.mu.Unlock()
	for _, sub := range subs {
		select {
		case sub.ch <- ev:
		case <-sub.ctx.Done():
			t.drop(sub)
		}
	}
}

func (t *liveTurn) drop(gone *subscriber) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, sub := range t.subs {
		if sub == gone {
			t.subs = append(t.subs[:i], t.subs[i+1:]...)
			close(sub.ch)
			return
		}
	}
}

// end records the turn's error and closes every subscription.
func (t *liveTurn) end(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.err = err
	close(t.done)
	for _, sub := range t.subs {
		close(sub.ch)
	}
	t.subs = nil
}

// Wait waits for the turn's end and returns its error.
func (t *liveTurn) Wait() error {
	<-t.done
	return t.err
}

// startTurn opens the session of req and starts its turn, which runs
// under the server's context, not the request's: it goes on when its
// client goes away. The returned channel is subscribed before the turn
// starts, so that it misses none of its events, and ends with ctx. One
// turn of a session runs at a time in this server (409 busy), and none
// while another process holds the session (409 in_use).
func (s *Server) startTurn(ctx context.Context, req turnRequest) (*liveTurn, <-chan event.Event, error) {
	turnCtx, cancel := context.WithCancel(s.base)
	lt := &liveTurn{sessionID: req.SessionID, cancel: cancel, done: make(chan struct{})}
	if err := s.reserve(lt); err != nil {
		cancel()
		return nil, nil, err
	}
	r, err := s.open(ctx, req)
	if err != nil {
		cancel()
		s.release(lt)
		return nil, nil, openError(err)
	}
	events := lt.subscribe(ctx)
	go s.run(turnCtx, lt, r, req)
	return lt, events, nil
}

// reserve registers lt as its session's running turn.
func (s *Server) reserve(lt *liveTurn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draining {
		return apiErrorf(http.StatusServiceUnavailable, CodeShuttingDown, "the server is shutting down: no new turn starts")
	}
	if _, busy := s.turns[lt.sessionID]; busy {
		return apiErrorf(http.StatusConflict, CodeBusy,
			"a turn of session %s is running: wait for its end or stop it (POST /api/v1/sessions/%s/stop)", lt.sessionID, lt.sessionID)
	}
	s.turns[lt.sessionID] = lt
	return nil
}

// release forgets lt and wakes Shutdown.
func (s *Server) release(lt *liveTurn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turns[lt.sessionID] == lt {
		delete(s.turns, lt.sessionID)
	}
	s.idle.Broadcast()
}

// running reports whether a turn of session id runs in this server.
func (s *Server) running(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.turns[id]
	return ok
}

// run runs the turn, then closes the session: its lease is released, so
// that the CLI (or the next request) can continue it.
func (s *Server) run(ctx context.Context, lt *liveTurn, r runner, req turnRequest) {
	defer lt.cancel()
	publish := lt.publish
	if req.OnRequest != nil {
		publish = func(ev event.Event) {
			if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok && ev.Type == event.PermissionRequested {
				if reply := req.OnRequest(p); reply != nil {
					// Not in this goroutine: the answer is recorded through
					// the events this goroutine delivers.
					go func() { _ = r.respond(p.ID, *reply) }()
				}
			}
			lt.publish(ev)
		}
	}
	err := r.run(ctx, req.Query, publish)
	err = errors.Join(err, r.close())
	s.release(lt)
	lt.end(err)
}

// open opens the session of req for its turn: the quick answer or the
// agent loop, as the agent it runs as.
func (s *Server) open(ctx context.Context, req turnRequest) (runner, error) {
	o := s.options(req.SessionID)
	o.Agent = req.Agent
	o.KnowledgeBases = req.Bases
	o.Web = req.Web
	if req.ReasoningEffort != "" {
		o.ReasoningEffort = req.ReasoningEffort
	}
	o.NoMCP = false
	if req.Quick {
		q, err := app.OpenQuick(ctx, o)
		if err != nil {
			return nil, err
		}
		return quickRunner{q}, nil
	}
	ses, err := app.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	return &agentRunner{ses: ses, events: ses.Engine.Subscribe()}, nil
}

// openError maps what opening a session can fail with to the client's
// error.
func openError(err error) error {
	var oe *app.OptionError
	var ce *app.ConfigError
	switch {
	case errors.Is(err, session.ErrInUse):
		return errorf(http.StatusConflict, CodeInUse, err, "%v", err)
	case errors.Is(err, kb.ErrNotFound):
		return errorf(http.StatusNotFound, CodeUnknownBase, err, "%v", err)
	case errors.As(err, &oe):
		return errorf(http.StatusBadRequest, CodeInvalidOption, err, "%v", err)
	case errors.As(err, &ce):
		return errorf(http.StatusServiceUnavailable, CodeConfiguration, err, "%v", err)
	}
	return err
}

// agentRunner runs turns of the agent loop.
type agentRunner struct {
	ses    *app.Session
	events <-chan event.Event // the engine's one subscription
}

// run submits the query and publishes the engine's events while it runs.
// When SubmitInput returns every event of the turn is in the channel, so
// draining it without blocking once stop is closed publishes them all.
func (a *agentRunner) run(ctx context.Context, query string, publish func(event.Event)) error {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case ev := <-a.events:
				publish(ev)
			case <-stop:
				for {
					select {
					case ev := <-a.events:
						publish(ev)
					default:
						return
					}
				}
			}
		}
	}()
	err := a.ses.Engine.SubmitInput(ctx, a.ses.ID, engine.Input{Text: query})
	close(stop)
	<-done
	return err
}

func (a *agentRunner) respond(id string, r engine.Reply) error { return a.ses.Engine.Respond(id, r) }
func (a *agentRunner) close() error                            { return a.ses.Close() }

// quickRunner answers with the quick-answer pipeline.
type quickRunner struct{ q *app.Quick }

func (q quickRunner) run(ctx context.Context, query string, publish func(event.Event)) error {
	_, err := q.q.Ask(ctx, query, publish)
	return err
}

// respond: a quick answer asks no permission.
func (q quickRunner) respond(string, engine.Reply) error { return engine.ErrUnknownPermission }
func (q quickRunner) close() error                       { return q.q.Close() }
