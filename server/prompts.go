package server

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/session"
)

// CodeNotPending: the prompt was answered or withdrawn already.
const CodeNotPending = "not_pending"

// promptJSON is a permission request as the API describes it: the prompt
// id is the permission id of its PermissionRequested event.
type promptJSON struct {
	ID        string    `json:"id"`
	SessionID string    `json:"session_id"`
	Number    uint64    `json:"number"`
	CallID    string    `json:"call_id"`
	Tool      string    `json:"tool"`
	Summary   string    `json:"summary"`
	Risk      string    `json:"risk"`
	Sandboxed bool      `json:"sandboxed,omitempty"`
	Requested time.Time `json:"requested"`
	State     string    `json:"state"`
	// Live: the turn that asked still runs, so an answer counts.
	Live bool `json:"live"`
}

func promptOf(a session.Approval) promptJSON {
	return promptJSON{ID: a.ID, SessionID: a.SessionID, Number: a.Number, CallID: a.CallID, Tool: a.Tool,
		Summary: a.Summary, Risk: a.Risk, Sandboxed: a.Sandboxed, Requested: a.Requested, State: string(a.State), Live: a.Live}
}

// listPrompts serves GET /api/v1/sessions/{id}/prompts: the session's
// open permission requests, oldest first, so that a reloaded page shows
// them again.
func (s *Server) listPrompts(w http.ResponseWriter, r *http.Request) {
	info, err := s.storedSession(r.Context(), keyOf(r), r.PathValue("id"))
	if err != nil {
		WriteError(w, err)
		return
	}
	pending, err := s.store.PendingApprovals(r.Context(), info.ID)
	if err != nil {
		WriteError(w, err)
		return
	}
	out := []promptJSON{}
	for _, a := range pending {
		out = append(out, promptOf(a))
	}
	writeJSON(w, http.StatusOK, map[string]any{"prompts": out})
}

// promptAnswer is the body of POST /api/v1/agent/prompts/{prompt_id}.
type promptAnswer struct {
	Allow    *bool  `json:"allow"`
	Remember bool   `json:"remember"`
	Network  bool   `json:"network"`
	Reason   string `json:"reason"`
	// SessionID, when given, must be the prompt's session: a page that
	// answers for the session it shows cannot answer another's.
	SessionID string `json:"session_id"`
}

// answerPrompt serves POST /api/v1/agent/prompts/{prompt_id}: the answer
// to a PermissionRequested, wherever the turn that asked runs (the store
// keeps the request). Of two answers one counts; the other is 409.
func (s *Server) answerPrompt(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("prompt_id")
	var body promptAnswer
	if err := s.decode(w, r, &body); err != nil {
		WriteError(w, err)
		return
	}
	if body.Allow == nil {
		WriteError(w, apiErrorf(http.StatusBadRequest, CodeInvalidField, `request body: "allow" is required (true or false)`))
		return
	}
	a, err := s.prompt(r, id, body.SessionID)
	if err != nil {
		WriteError(w, err)
		return
	}
	reply := engine.Reply{Allow: *body.Allow, Remember: body.Remember, Network: body.Network, Reason: strings.TrimSpace(body.Reason)}
	if err := s.observer.Respond(a.ID, reply); err != nil {
		if errors.Is(err, engine.ErrUnknownPermission) {
			err = errorf(http.StatusConflict, CodeNotPending, err, "prompt %s cannot be answered: %v", a.ID, err)
		}
		WriteError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": a.ID, "state": string(session.ApprovalAnswered), "allow": reply.Allow})
}

// prompt is the stored request id, of session want when it is given, in
// the key's scope.
func (s *Server) prompt(r *http.Request, id, want string) (session.Approval, error) {
	a, err := s.store.Approval(r.Context(), id)
	if errors.Is(err, session.ErrNotFound) {
		return a, errorf(http.StatusNotFound, "unknown_prompt", err, "unknown prompt %q", clip(id))
	}
	if err != nil {
		return a, err
	}
	if want != "" && want != a.SessionID {
		return a, apiErrorf(http.StatusNotFound, "unknown_prompt", "session %s has no prompt %s", clip(want), clip(id))
	}
	if _, err := s.storedSession(r.Context(), keyOf(r), a.SessionID); err != nil {
		return a, err
	}
	return a, nil
}
