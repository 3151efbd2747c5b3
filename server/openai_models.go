package server

import (
	"net/http"

	"github.com/moteur/moteur/agentconfig"
)

// modelJSON is an agent as OpenAI's model object, with the agent's name,
// description, mode and kind beside.
type modelJSON struct {
	ID          string `json:"id"`
	Object      string `json:"object"`
	Created     int64  `json:"created"`
	OwnedBy     string `json:"owned_by"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	AgentMode   string `json:"agent_mode"`
	Builtin     bool   `json:"builtin"`
}

func modelOf(a agentconfig.Agent) modelJSON {
	m := modelJSON{ID: a.ID, Object: "model", OwnedBy: "moteur", Name: a.Name, Description: a.Description,
		AgentMode: a.Config.AgentMode, Builtin: a.Builtin}
	if !a.Created.IsZero() {
		m.Created = a.Created.Unix()
	}
	if m.AgentMode == "" {
		m.AgentMode = agentconfig.ModeQuickAnswer // EnsureDefaults' reading of an unset mode
	}
	return m
}

// listModels serves GET /v1/models: the agents of the key's scope, the
// built-in ones first, as OpenAI's model list.
func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	all, err := s.cfg.Agents.All(r.Context(), s.lang)
	if err != nil {
		writeOpenAIError(w, err)
		return
	}
	k := keyOf(r)
	data := []modelJSON{}
	for _, a := range all {
		if k.AllowsAgent(a.ID) {
			data = append(data, modelOf(a))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// getModel serves GET /v1/models/{model}: one agent as a model.
func (s *Server) getModel(w http.ResponseWriter, r *http.Request) {
	a, err := s.modelAgent(r.Context(), keyOf(r), r.PathValue("model"))
	if err != nil {
		writeOpenAIError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, modelOf(a))
}
