package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/session"
)

// Codes of the chat routes' errors.
const (
	CodeEmptyQuery     = "empty_query"
	CodeUnknownAgent   = "unknown_agent"
	CodeInvalidSession = "invalid_session_id"
)

// chatRequest is the body of POST /api/v1/agent-chat/{session_id} and
// /api/v1/knowledge-chat/{session_id}.
type chatRequest struct {
	Query            string   `json:"query"`
	AgentID          string   `json:"agent_id"`
	KnowledgeBaseIDs []string `json:"knowledge_base_ids"`
	WebSearchEnabled bool     `json:"web_search_enabled"`
	// ReasoningEffort overrides the agent's reasoning effort for this
	// turn ("": the agent's): one of agentconfig.Efforts.
	ReasoningEffort string `json:"reasoning_effort"`
}

// chat serves the two chat routes: the turn's events as Server-Sent
// Events, ending after TurnCompleted. The knowledge route always answers
// with the quick answer; the agent route runs the loop, except for a
// quick-answer agent, which is downgraded to the quick answer (seed 000).
func (s *Server) chat(knowledge bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body chatRequest
		if err := s.decode(w, r, &body); err != nil {
			WriteError(w, err)
			return
		}
		req, err := s.chatTurn(r.Context(), keyOf(r), r.PathValue("session_id"), body, knowledge)
		if err != nil {
			WriteError(w, err)
			return
		}
		sse, err := newSSEWriter(w)
		if err != nil {
			WriteError(w, err)
			return
		}
		lt, events, err := s.startTurn(r.Context(), req)
		if err != nil {
			WriteError(w, err)
			return
		}
		if sse.start() != nil {
			return
		}
		s.streamTurn(r.Context(), sse, lt, events)
	}
}

// chatTurn checks a chat request and makes its turn: the session id, the
// query, the agent and the bases, each within the key's scope.
func (s *Server) chatTurn(ctx context.Context, k apikey.Key, id string, body chatRequest, knowledge bool) (turnRequest, error) {
	if err := app.CheckSessionID(id); err != nil {
		return turnRequest{}, apiErrorf(http.StatusBadRequest, CodeInvalidSession, "invalid session id %q: %v", id, err)
	}
	if strings.TrimSpace(body.Query) == "" {
		return turnRequest{}, apiErrorf(http.StatusBadRequest, CodeEmptyQuery, "query is empty: say what to ask")
	}
	if err := checkEffort(body.ReasoningEffort); err != nil {
		return turnRequest{}, err
	}
	if err := s.sessionInScope(ctx, k, id); err != nil {
		return turnRequest{}, err
	}
	agent, err := s.agent(ctx, k, body.AgentID)
	if err != nil {
		return turnRequest{}, err
	}
	bases := body.KnowledgeBaseIDs
	if len(bases) == 0 {
		bases = k.Scope.Bases // a limited key searches its bases only
	}
	if err := forbidBases(k, bases); err != nil {
		return turnRequest{}, err
	}
	quick := knowledge || agent != nil && !agent.Config.IsAgentMode()
	return turnRequest{SessionID: id, Query: body.Query, Agent: agent, Bases: bases, Web: body.WebSearchEnabled,
		Quick: quick, Key: k, ReasoningEffort: body.ReasoningEffort}, nil
}

// checkEffort refuses a reasoning_effort that is not one of
// agentconfig.Efforts ("": none asked), naming the valid ones.
func checkEffort(e string) error {
	if e == "" {
		return nil
	}
	if err := agentconfig.CheckEffort(e); err != nil {
		return errorf(http.StatusBadRequest, CodeInvalidField, err, "reasoning_effort %q: want one of %s",
			clip(e), strings.Join(agentconfig.Efforts(), ", "))
	}
	return nil
}

// agent resolves the agent a request names ("": none, the
// configuration's defaults; a key limited to some agents must name one).
func (s *Server) agent(ctx context.Context, k apikey.Key, ref string) (*agentconfig.Agent, error) {
	if ref == "" {
		if len(k.Scope.Agents) > 0 {
			return nil, apiErrorf(http.StatusForbidden, CodeForbidden, "key %s may only use agents %s: name one in agent_id",
				k.Name, strings.Join(k.Scope.Agents, ", "))
		}
		return nil, nil
	}
	a, err := s.cfg.Agents.Resolve(ctx, ref, s.lang)
	if errors.Is(err, agentstore.ErrNotFound) {
		return nil, errorf(http.StatusNotFound, CodeUnknownAgent, err, "unknown agent %q (GET /api/v1/agents lists them)", ref)
	}
	if err != nil {
		return nil, err
	}
	if err := forbidAgent(k, a.ID); err != nil {
		return nil, err
	}
	return &a, nil
}

// sessionInScope refuses a stored session whose agent the key may not
// use (403); a session not stored yet is in every scope.
func (s *Server) sessionInScope(ctx context.Context, k apikey.Key, id string) error {
	info, err := s.store.Info(ctx, id)
	if errors.Is(err, session.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Agent == "" && len(k.Scope.Agents) > 0 {
		return apiErrorf(http.StatusForbidden, CodeForbidden, "key %s may not use session %s: it runs no agent of the key's", k.Name, id)
	}
	return forbidAgent(k, info.Agent)
}

// streamTurn sends the turn's events until TurnCompleted (the channel
// closes after it), the client leaves, or a write fails. The turn goes on
// in every case. A turn that failed without a TurnCompleted (its audit
// log could not be written, say) ends its stream with an `error` event.
func (s *Server) streamTurn(ctx context.Context, sse *sseWriter, lt *liveTurn, events <-chan event.Event) {
	var tick <-chan time.Time
	if ka := s.keepAlive(); ka > 0 {
		t := time.NewTicker(ka)
		defer t.Stop()
		tick = t.C
	}
	completed := false
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				if err := lt.Wait(); err != nil && !completed {
					_ = sse.errorEvent(asAPIError(turnFailure(err)))
				}
				return
			}
			completed = completed || ev.Type == event.TurnCompleted && ev.ParentCallID == ""
			if sse.event(ev) != nil {
				return
			}
		case <-tick:
			if sse.comment("keep-alive") != nil {
				return
			}
		}
	}
}

// turnFailure is the error a client is told of a failed turn: its
// message, which says what failed (the engine's and the providers' errors
// name no secret: keys are masked before anything is stored or shown).
func turnFailure(err error) error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	return errorf(http.StatusInternalServerError, CodeTurnFailed, err, "the turn failed: %v", err)
}

func (s *Server) keepAlive() time.Duration {
	if s.cfg.KeepAlive == 0 {
		return DefaultKeepAlive
	}
	return s.cfg.KeepAlive
}
