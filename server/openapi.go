package server

import (
	_ "embed"
	"net/http"
)

// openAPI is the committed description of the API. A test holds it to
// the routes the server registers, both ways.
//
//go:embed openapi.json
var openAPI []byte

func (s *Server) openAPIRoutes() {
	s.public("GET /api/v1/openapi.json", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(openAPI)
	}))
}
