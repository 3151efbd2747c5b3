package server

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/session"
)

// sessionJSON is a session as the API describes it.
type sessionJSON struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	AgentID string    `json:"agent_id,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Events  int       `json:"events"`
	LastSeq uint64    `json:"last_seq"`
	// Running: a turn of the session runs in this server.
	Running bool `json:"running"`
	// ParentID and ForkSeq describe a fork.
	ParentID string `json:"parent_id,omitempty"`
	ForkSeq  uint64 `json:"fork_seq,omitempty"`
}

func (s *Server) sessionOf(info session.Info) sessionJSON {
	return sessionJSON{ID: info.ID, Title: info.Title, AgentID: info.Agent, Created: info.Created, Updated: info.Updated,
		Events: info.Events, LastSeq: info.LastSeq, Running: s.running(info.ID), ParentID: info.ParentID, ForkSeq: info.ForkSeq}
}

// createSession serves POST /api/v1/sessions: a new session's id. Nothing
// is stored until its first question, which records its first events.
func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	var body struct {
		AgentID string `json:"agent_id"`
	}
	if r.ContentLength != 0 {
		if err := s.decode(w, r, &body); err != nil {
			WriteError(w, err)
			return
		}
	}
	if _, err := s.agent(r.Context(), keyOf(r), body.AgentID); err != nil {
		WriteError(w, err)
		return
	}
	id, err := s.newSessionID()
	if err != nil {
		WriteError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": id})
}

func (s *Server) newSessionID() (string, error) {
	if f := s.cfg.Base.NewSessionID; f != nil {
		return f()
	}
	return app.NewSessionID(s.cfg.Now(), rand.Reader)
}

// listSessions serves GET /api/v1/sessions?limit=N&cursor=C: the
// sessions most recently updated first, those of the key's agents only
// when the key is limited to some.
func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			WriteError(w, apiErrorf(http.StatusBadRequest, CodeBadRequest, "limit %q: want an integer from 1 to 1000", clip(v)))
			return
		}
		limit = n
	}
	page, err := s.store.List(r.Context(), session.ListOptions{Limit: limit, Cursor: q.Get("cursor")})
	if err != nil {
		WriteError(w, err)
		return
	}
	k := keyOf(r)
	out := []sessionJSON{}
	for _, info := range page.Sessions {
		if len(k.Scope.Agents) == 0 || info.Agent != "" && k.AllowsAgent(info.Agent) {
			out = append(out, s.sessionOf(info))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": out, "next": page.Next})
}

// storedSession is the session of the request's {id}, in the key's scope.
func (s *Server) storedSession(ctx context.Context, k apikey.Key, id string) (session.Info, error) {
	if err := app.CheckSessionID(id); err != nil {
		return session.Info{}, apiErrorf(http.StatusBadRequest, CodeInvalidSession, "invalid session id %q: %v", clip(id), err)
	}
	info, err := s.store.Info(ctx, id)
	if errors.Is(err, session.ErrNotFound) {
		return info, errorf(http.StatusNotFound, CodeUnknownSession, err, "unknown session %s: nothing is stored under that id", id)
	}
	if err != nil {
		return info, err
	}
	if err := s.sessionInScope(ctx, k, id); err != nil {
		return info, err
	}
	return info, nil
}

// getSession serves GET /api/v1/sessions/{id}.
func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	info, err := s.storedSession(r.Context(), keyOf(r), r.PathValue("id"))
	if err != nil {
		WriteError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.sessionOf(info))
}

// deleteSession serves DELETE /api/v1/sessions/{id}: the session and its
// transcript are removed, its audit log kept. A session whose turn runs
// (here or in another process) is refused with 409.
func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) {
	info, err := s.storedSession(r.Context(), keyOf(r), r.PathValue("id"))
	if err != nil {
		WriteError(w, err)
		return
	}
	if s.running(info.ID) {
		WriteError(w, apiErrorf(http.StatusConflict, CodeBusy, "session %s has a turn running: stop it first", info.ID))
		return
	}
	if _, err := app.RemoveSession(r.Context(), s.store, s.db, info.ID); err != nil {
		if errors.Is(err, session.ErrInUse) {
			err = errorf(http.StatusConflict, CodeInUse, err, "%v", err)
		}
		WriteError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// stopSession serves POST /api/v1/sessions/{id}/stop: the running turn is
// cancelled; it ends with TurnCompleted (cancelled), which its streams
// receive.
func (s *Server) stopSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.storedSession(r.Context(), keyOf(r), id); err != nil {
		WriteError(w, err)
		return
	}
	if s.stopLocal(id) {
		writeJSON(w, http.StatusAccepted, map[string]bool{"stopping": true})
		return
	}
	if relay, ok := s.store.(stopRelay); ok {
		sent, err := relay.NotifyStop(r.Context(), id)
		if err != nil {
			WriteError(w, err)
			return
		}
		if sent {
			writeJSON(w, http.StatusAccepted, map[string]bool{"stopping": true})
			return
		}
		WriteError(w, apiErrorf(http.StatusConflict, CodeNotRunning, "session %s has no turn running", id))
		return
	}
	WriteError(w, apiErrorf(http.StatusConflict, CodeNotRunning, "session %s has no turn running in this server", id))
}

// stopRelay is a store shared by several processes on several hosts
// (session.Postgres) that carries a stop from the replica asked to the one
// running the turn.
type stopRelay interface {
	// NotifyStop tells the process holding the session's live lease to
	// stop; sent is false when none holds one.
	NotifyStop(ctx context.Context, sessionID string) (sent bool, err error)
	// ListenStops calls stop for each stop sent to this process, until
	// ctx ends; it returns once it listens.
	ListenStops(ctx context.Context, stop func(sessionID string)) error
}

// stopLocal cancels the turn of session id if it runs in this server.
func (s *Server) stopLocal(id string) bool {
	s.mu.Lock()
	lt := s.turns[id]
	s.mu.Unlock()
	if lt == nil {
		return false
	}
	lt.cancel()
	return true
}

// followSession serves GET /api/v1/sessions/{id}/events for a stored
// session in the key's scope.
func (s *Server) followSession(w http.ResponseWriter, r *http.Request) {
	if _, err := s.storedSession(r.Context(), keyOf(r), r.PathValue("id")); err != nil {
		WriteError(w, err)
		return
	}
	s.follow.ServeHTTP(w, r)
}

// subscribe follows a session through the observer, until the request
// ends or the server shuts down.
func (s *Server) subscribe(ctx context.Context, id string, after uint64) (<-chan event.Event, error) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.base, cancel)
	context.AfterFunc(ctx, func() { stop(); cancel() })
	return s.observer.SubscribeSession(ctx, id, after)
}
