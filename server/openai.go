package server

// The OpenAI-compatible door: POST /v1/chat/completions and GET /v1/models,
// where each agent is a model. Any OpenAI client or tool talks to a Moteur
// agent through it — its knowledge bases, tools, policy and audit log, the
// server running the tools — and each request is one turn of a session, run
// by startTurn like the chat routes' turns.
//
// What the door adds to OpenAI's shapes (fields OpenAI clients ignore):
//   - session_id on a chat.completion, and on the first and the finishing
//     chunk of a stream; the X-Moteur-Session response header too;
//   - stop_reason (Moteur's TurnCompleted reason), citations (the answer's
//     [cN] sources) and denied_calls (the tool calls refused for want of an
//     approval, or denied) on a chat.completion and on the chunk with the
//     finish_reason;
//   - prompt, on a chunk with no choices, when a call waits for an approval
//     (a key with Scope.Wait), which POST /api/v1/agent/prompts/{id}
//     answers.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/session"
)

// SessionHeader names a request's session on the OpenAI door, and gives
// it back on the response.
const SessionHeader = "X-Moteur-Session"

// Codes of the OpenAI door's errors.
const (
	CodeModelNotFound  = "model_not_found"
	CodeUnsupported    = "unsupported_parameter"
	CodeNoQuestion     = "no_question"
	CodeAgentMismatch  = "agent_mismatch"
	CodeInvalidMessage = "invalid_message"
)

// openAIRoutes registers the door.
func (s *Server) openAIRoutes() {
	s.route("POST /v1/chat/completions", s.chatCompletions)
	s.route("GET /v1/models", s.listModels)
	s.route("GET /v1/models/{model...}", s.getModel)
	// Anything else under /v1 is a JSON 404 in OpenAI's shape.
	s.public("/v1/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeOpenAIError(w, notFoundf("no_route", "no route %s %s: this server serves POST /v1/chat/completions and GET /v1/models",
			r.Method, clip(r.URL.Path)))
	}))
}

// chatCompletions serves POST /v1/chat/completions: one turn of the
// request's session, as the model's agent, answered as a chat.completion
// or, with "stream": true, as chat.completion.chunk events.
func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	var body completionRequest
	if err := s.decode(w, r, &body); err != nil {
		writeOpenAIError(w, err)
		return
	}
	d, err := s.doorTurn(r.Context(), keyOf(r), r.Header.Get(SessionHeader), body)
	if err != nil {
		writeOpenAIError(w, err)
		return
	}
	if body.Stream {
		s.streamCompletion(w, r, d, body.StreamOptions.includeUsage())
		return
	}
	s.completion(w, r, d)
}

// doorRequest is one checked request of the door: its turn and what its
// answer is labelled with.
type doorRequest struct {
	turn    turnRequest
	model   string // the agent's id
	id      string // the completion's id
	created int64
}

// doorTurn checks a request and makes its turn: the agent its model
// names, within the key's scope; its session (named by the header, else
// the user field, else a new one); its question.
func (s *Server) doorTurn(ctx context.Context, k apikey.Key, header string, body completionRequest) (doorRequest, error) {
	if err := body.check(); err != nil {
		return doorRequest{}, err
	}
	effort, err := body.effort()
	if err != nil {
		return doorRequest{}, err
	}
	agent, err := s.modelAgent(ctx, k, body.Model)
	if err != nil {
		return doorRequest{}, err
	}
	id, err := s.doorSession(header, body.User)
	if err != nil {
		return doorRequest{}, err
	}
	continued, next, err := s.doorHistory(ctx, k, id, agent)
	if err != nil {
		return doorRequest{}, err
	}
	query, err := questionOf(body.Messages, !continued, s.lang)
	if err != nil {
		return doorRequest{}, err
	}
	bases, err := doorBases(k, agent)
	if err != nil {
		return doorRequest{}, err
	}
	req := turnRequest{SessionID: id, Query: query, Agent: &agent, Bases: bases,
		Web: agent.Config.WebSearchEnabled, Quick: !agent.Config.IsAgentMode(), Key: k, ReasoningEffort: effort}
	if !k.Scope.Wait {
		req.OnRequest = refuseApproval
	}
	return doorRequest{turn: req, model: agent.ID, id: "chatcmpl-" + id + "." + strconv.FormatUint(next, 10),
		created: s.cfg.Now().Unix()}, nil
}

// doorBases are the knowledge bases of a turn: the agent's, within the
// key's when it is limited to some (the agent's selected ones it may use;
// none of them is a 403, never a turn with more than the key allows).
func doorBases(k apikey.Key, agent agentconfig.Agent) ([]string, error) {
	if len(k.Scope.Bases) == 0 {
		return nil, nil
	}
	switch agent.Config.KBSelectionMode {
	case agentconfig.SelectNone:
		return nil, nil
	case agentconfig.SelectSelected:
		var both []string
		for _, b := range agent.Config.KnowledgeBases {
			if k.AllowsBase(b) {
				both = append(both, b)
			}
		}
		if len(both) == 0 {
			return nil, apiErrorf(http.StatusForbidden, CodeForbidden, "key %s may use none of the knowledge bases of agent %s (%s)",
				k.Name, agent.ID, strings.Join(agent.Config.KnowledgeBases, ", "))
		}
		return both, nil
	}
	return slices.Clone(k.Scope.Bases), nil
}

// refuseApproval answers a permission request of a key that may not wait:
// no one is there to approve, so the call is refused, and the model (and
// the audit log) read why.
func refuseApproval(p event.PermissionRequestedPayload) *engine.Reply {
	return &engine.Reply{Allow: false, Reason: fmt.Sprintf(
		"%s needs an approval, and the API key of this request does not allow waiting for one "+
			"(an OpenAI-compatible request is answered at once); the call was not run", p.Tool)}
}

// modelAgent resolves the agent a model names (its id, or its name),
// within the key's scope.
func (s *Server) modelAgent(ctx context.Context, k apikey.Key, model string) (agentconfig.Agent, error) {
	a, err := s.cfg.Agents.Resolve(ctx, model, s.lang)
	if errors.Is(err, agentstore.ErrNotFound) {
		return a, errorf(http.StatusNotFound, CodeModelNotFound, err,
			"the model %q does not exist: a model is an agent's id (GET /v1/models lists them)", clip(model))
	}
	if err != nil {
		return a, err
	}
	if err := forbidAgent(k, a.ID); err != nil {
		return a, err
	}
	return a, nil
}

// doorSession is the request's session id: the header's, else the user
// field's, else a new one.
func (s *Server) doorSession(header, user string) (string, error) {
	from, id := "header "+SessionHeader, strings.TrimSpace(header)
	if id == "" {
		from, id = `field "user"`, user
	}
	if id == "" {
		return s.newSessionID()
	}
	if err := app.CheckSessionID(id); err != nil {
		return "", apiErrorf(http.StatusBadRequest, CodeInvalidSession, "%s: invalid session id %q: %v", from, clip(id), err)
	}
	return id, nil
}

// doorHistory tells whether session id is stored already (its turn then
// continues it), in the key's scope and run by the same agent, and the seq
// its turn starts after plus one.
func (s *Server) doorHistory(ctx context.Context, k apikey.Key, id string, agent agentconfig.Agent) (continued bool, next uint64, err error) {
	info, err := s.store.Info(ctx, id)
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			return false, 1, nil
		}
		return false, 0, err
	}
	if err := s.sessionInScope(ctx, k, id); err != nil {
		return false, 0, err
	}
	if info.Agent != "" && info.Agent != agent.ID {
		return false, 0, apiErrorf(http.StatusConflict, CodeAgentMismatch,
			"session %s runs agent %s, not %s: use model %q or another session", id, info.Agent, agent.ID, info.Agent)
	}
	return true, info.LastSeq + 1, nil
}
