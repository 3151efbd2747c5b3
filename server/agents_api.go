package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/i18n"
)

// Codes of the agents routes' errors (CodeUnknownAgent is chat.go's).
const (
	CodeAgentExists   = "agent_exists"
	CodeBuiltinAgent  = "builtin_agent"
	CodeUnknownPreset = "unknown_preset"
	CodeInvalidAgent  = "invalid_agent"
)

// agentRoutes registers the agents routes: the agents the key may use
// (built-in and custom), their editor's presets and tool catalogue, and
// the custom agents' creation, change and removal. Built-in agents are
// read-only.
func (s *Server) agentRoutes() {
	s.route("GET /api/v1/agents", s.listAgents)
	s.route("POST /api/v1/agents", s.createAgent)
	s.route("GET /api/v1/agents/presets", s.listPresets)
	s.route("GET /api/v1/agents/tools", s.listTools)
	s.route("GET /api/v1/agents/{id}", s.getAgent)
	s.route("PUT /api/v1/agents/{id}", s.updateAgent)
	s.route("DELETE /api/v1/agents/{id}", s.deleteAgent)
}

// agentBody is the body of POST and PUT /api/v1/agents…: an agent as GET
// returns it, plus preset. Builtin, created and updated may be sent back
// as GET gave them; they are ignored.
type agentBody struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Preset prefills the config from a type preset (rag-qa,
	// data-analysis, custom) before the fields of Config apply.
	Preset string `json:"preset"`
	// Config holds the fields to set; the others keep their defaults
	// (or the preset's).
	Config  json.RawMessage `json:"config"`
	Builtin json.RawMessage `json:"builtin"`
	Created json.RawMessage `json:"created"`
	Updated json.RawMessage `json:"updated"`
}

// requestLang is the language of names and descriptions in a response:
// ?lang=fr|en, else the server's.
func (s *Server) requestLang(r *http.Request) i18n.Lang {
	if v := r.URL.Query().Get("lang"); v != "" {
		return i18n.Parse(v)
	}
	return s.lang
}

// listAgents serves GET /api/v1/agents: the built-in agents, then the
// custom ones, those of the key's scope only.
func (s *Server) listAgents(w http.ResponseWriter, r *http.Request) {
	all, err := s.cfg.Agents.All(r.Context(), s.requestLang(r))
	if err != nil {
		WriteError(w, agentError(err))
		return
	}
	k := keyOf(r)
	out := []agentconfig.Agent{}
	for _, a := range all {
		if k.AllowsAgent(a.ID) {
			out = append(out, a)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"agents": out})
}

// getAgent serves GET /api/v1/agents/{id}: an agent by id (or by name).
func (s *Server) getAgent(w http.ResponseWriter, r *http.Request) {
	a, err := s.scopedAgent(r.Context(), keyOf(r), r.PathValue("id"), s.requestLang(r))
	if err != nil {
		WriteError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

// scopedAgent resolves ref (404 unknown_agent) within k's scope (403).
func (s *Server) scopedAgent(ctx context.Context, k apikey.Key, ref string, l i18n.Lang) (agentconfig.Agent, error) {
	a, err := s.cfg.Agents.Resolve(ctx, ref, l)
	if err != nil {
		return a, agentError(err)
	}
	if err := forbidAgent(k, a.ID); err != nil {
		return a, err
	}
	return a, nil
}

// createAgent serves POST /api/v1/agents: 201 and the stored agent, its
// config with the defaults filled in. A key limited to some agents may
// only create one of them (its id given).
func (s *Server) createAgent(w http.ResponseWriter, r *http.Request) {
	var body agentBody
	if err := s.decode(w, r, &body); err != nil {
		WriteError(w, err)
		return
	}
	k := keyOf(r)
	if len(k.Scope.Agents) > 0 && (body.ID == "" || !k.AllowsAgent(body.ID)) {
		WriteError(w, apiErrorf(http.StatusForbidden, CodeForbidden, "key %s may only use agents %s: it may not create another",
			k.Name, strings.Join(k.Scope.Agents, ", ")))
		return
	}
	a, err := s.agentOf(k, body)
	if err != nil {
		WriteError(w, err)
		return
	}
	created, err := s.cfg.Agents.Create(r.Context(), a)
	if err != nil {
		WriteError(w, agentError(err))
		return
	}
	w.Header().Set("Location", "/api/v1/agents/"+created.ID)
	writeJSON(w, http.StatusCreated, created)
}

// updateAgent serves PUT /api/v1/agents/{id}: the agent is replaced by
// the body (fields left out take their defaults, as at creation).
func (s *Server) updateAgent(w http.ResponseWriter, r *http.Request) {
	var body agentBody
	if err := s.decode(w, r, &body); err != nil {
		WriteError(w, err)
		return
	}
	k := keyOf(r)
	cur, err := s.editableAgent(r.Context(), k, r.PathValue("id"))
	if err != nil {
		WriteError(w, err)
		return
	}
	if body.ID != "" && body.ID != cur.ID {
		WriteError(w, apiErrorf(http.StatusBadRequest, CodeInvalidField, "id %q does not match the agent %s of the path: an agent's id does not change", clip(body.ID), cur.ID))
		return
	}
	body.ID = cur.ID
	a, err := s.agentOf(k, body)
	if err != nil {
		WriteError(w, err)
		return
	}
	updated, err := s.cfg.Agents.Update(r.Context(), a)
	if err != nil {
		WriteError(w, agentError(err))
		return
	}
	writeJSON(w, http.StatusOK, updated)
}

// deleteAgent serves DELETE /api/v1/agents/{id}: 204.
func (s *Server) deleteAgent(w http.ResponseWriter, r *http.Request) {
	a, err := s.editableAgent(r.Context(), keyOf(r), r.PathValue("id"))
	if err != nil {
		WriteError(w, err)
		return
	}
	if err := s.cfg.Agents.Delete(r.Context(), a.ID); err != nil {
		WriteError(w, agentError(err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// editableAgent is the custom agent ref names, in k's scope: a built-in
// one is refused (403 builtin_agent).
func (s *Server) editableAgent(ctx context.Context, k apikey.Key, ref string) (agentconfig.Agent, error) {
	a, err := s.scopedAgent(ctx, k, ref, s.lang)
	if err != nil {
		return a, err
	}
	if a.Builtin {
		return a, apiErrorf(http.StatusForbidden, CodeBuiltinAgent,
			"agent %s is built in and read-only: create an agent from it instead (POST /api/v1/agents)", a.ID)
	}
	return a, nil
}

// agentOf makes the agent a body describes: the preset first, then the
// config's fields, allowed_tools checked against the catalogue, and the
// bases it names within the key's scope.
func (s *Server) agentOf(k apikey.Key, body agentBody) (agentconfig.Agent, error) {
	// Temperature -1 is "unset": EnsureDefaults gives seed 000's 0.7,
	// where a zero would be kept as a deliberate 0.
	cfg := agentconfig.CustomAgentConfig{Temperature: -1}
	if body.Preset != "" {
		p, err := agentconfig.PresetByID(body.Preset, s.lang)
		if errors.Is(err, agentconfig.ErrNotFound) {
			return agentconfig.Agent{}, errorf(http.StatusBadRequest, CodeUnknownPreset, err,
				"preset %q: unknown (GET /api/v1/agents/presets lists them)", clip(body.Preset))
		}
		if err != nil {
			return agentconfig.Agent{}, err
		}
		p.Apply(&cfg)
	}
	if err := decodeConfig(body.Config, &cfg); err != nil {
		return agentconfig.Agent{}, err
	}
	tools, toolErr := normaliseAllowedTools(cfg.AllowedTools)
	cfg.AllowedTools = tools
	if toolErr != nil {
		// Every bad field at once: the tools', and Validate's.
		check := cfg.Clone()
		check.EnsureDefaults()
		return agentconfig.Agent{}, invalidAgent(errors.Join(toolErr, check.Validate()))
	}
	if err := forbidBases(k, cfg.KnowledgeBases); err != nil {
		return agentconfig.Agent{}, err
	}
	return agentconfig.Agent{ID: body.ID, Name: body.Name, Description: body.Description, Config: cfg}, nil
}

// decodeConfig sets the fields raw holds onto cfg, strictly: an unknown
// field is refused by name (as config.NAME).
func decodeConfig(raw json.RawMessage, cfg *agentconfig.CustomAgentConfig) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(cfg)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		field := "config"
		if te.Field != "" {
			field += "." + te.Field
		}
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Err: err,
			Message: fmt.Sprintf("request body: field %s: JSON %s where %s is wanted", field, te.Value, te.Type)}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &Error{Status: http.StatusBadRequest, Code: CodeUnknownField, Err: err,
			Message: "request body: unknown field config." + strings.Trim(name, `"`) + ": not part of an agent's config"}
	}
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Err: err, Message: "request body: field config: " + err.Error()}
}

// invalidAgent is the 400 of an agent that does not validate: each bad
// field named, with why.
func invalidAgent(err error) *Error {
	var msgs []string
	for _, fe := range fieldErrors(err) {
		msgs = append(msgs, fe.Error())
	}
	if len(msgs) == 0 {
		msgs = append(msgs, err.Error())
	}
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidAgent, Err: err,
		Message: "invalid agent: " + strings.Join(msgs, "; ")}
}

// fieldErrors collects the *agentconfig.FieldError of an error tree (the
// joined errors of Validate, wrapped by the store).
func fieldErrors(err error) []*agentconfig.FieldError {
	var out []*agentconfig.FieldError
	var walk func(error)
	walk = func(e error) {
		if fe, ok := e.(*agentconfig.FieldError); ok {
			out = append(out, fe)
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, c := range u.Unwrap() {
				walk(c)
			}
		case interface{ Unwrap() error }:
			if c := u.Unwrap(); c != nil {
				walk(c)
			}
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

// agentError maps the agent store's errors to the client's.
func agentError(err error) error {
	var ae *Error
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, agentconfig.ErrInvalid):
		return invalidAgent(err)
	case errors.Is(err, agentstore.ErrNotFound):
		return errorf(http.StatusNotFound, CodeUnknownAgent, err, "%v (GET /api/v1/agents lists them)", err)
	case errors.Is(err, agentstore.ErrExists):
		return errorf(http.StatusConflict, CodeAgentExists, err, "%v", err)
	case errors.Is(err, agentstore.ErrBuiltin):
		return errorf(http.StatusForbidden, CodeBuiltinAgent, err, "%v", err)
	}
	return err
}

// listPresets serves GET /api/v1/agents/presets: the type presets an
// editor prefills a smart-reasoning agent from.
func (s *Server) listPresets(w http.ResponseWriter, r *http.Request) {
	ps, err := agentconfig.Presets(s.requestLang(r))
	if err != nil {
		WriteError(w, err)
		return
	}
	if ps == nil {
		ps = []agentconfig.Preset{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"presets": ps})
}

// listTools serves GET /api/v1/agents/tools: the tool names allowed_tools
// may hold, with their descriptions and whether the default list (null)
// has them.
func (s *Server) listTools(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"tools": toolCatalogue()})
}
