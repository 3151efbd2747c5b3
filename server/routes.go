package server

import "net/http"

// routes registers every route of the API. The OpenAPI description
// (openapi.json) lists the same ones; a test holds them together.
func (s *Server) routes() {
	s.public("GET /healthz", http.HandlerFunc(s.health))
	s.openAPIRoutes()

	s.route("POST /api/v1/sessions", s.createSession)
	s.route("GET /api/v1/sessions", s.listSessions)
	s.route("GET /api/v1/sessions/{id}", s.getSession)
	s.route("DELETE /api/v1/sessions/{id}", s.deleteSession)
	s.route("GET /api/v1/sessions/{id}/events", s.followSession)
	s.route("POST /api/v1/sessions/{id}/stop", s.stopSession)
	s.route("GET /api/v1/sessions/{id}/prompts", s.listPrompts)
	s.route("POST /api/v1/agent/prompts/{prompt_id...}", s.answerPrompt)
	s.route("GET /api/v1/sessions/{id}/points", s.listPoints)
	s.route("POST /api/v1/sessions/{id}/rewind", s.rewind)

	s.route("POST /api/v1/agent-chat/{session_id}", s.chat(false))
	s.route("POST /api/v1/knowledge-chat/{session_id}", s.chat(true))

	s.pageRoutes()

	s.openAIRoutes()

	s.agentRoutes()
	s.kbRoutes()
	s.passageRoutes()

	// Anything else under the API is a JSON 404, not the mux's text one.
	s.public("/api/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, notFoundf("no_route", "no route %s %s (GET /api/v1/openapi.json describes the API)", r.Method, clip(r.URL.Path)))
	}))
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
