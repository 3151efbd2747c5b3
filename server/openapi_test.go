package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestOpenAPIDescribesEveryRoute holds the committed description and the
// routes together: every route is described, and nothing else is.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	var doc struct {
		OpenAPI string
		Paths   map[string]map[string]json.RawMessage
	}
	decodeJSON(t, ts.do("GET", "/api/v1/openapi.json", "", nil), http.StatusOK, &doc)
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	var described []string
	for path, ops := range doc.Paths {
		for method := range ops {
			described = append(described, strings.ToUpper(method)+" "+path)
		}
	}
	var routed []string
	for _, p := range ts.patterns {
		method, path, ok := strings.Cut(p, " ")
		if !ok || !strings.HasPrefix(path, "/api/") && !strings.HasPrefix(path, "/v1/") && path != "/healthz" {
			continue // the catch-alls of whole trees, and the page
		}
		routed = append(routed, method+" "+strings.ReplaceAll(path, "...}", "}"))
	}
	slices.Sort(described)
	slices.Sort(routed)
	for _, r := range routed {
		if !slices.Contains(described, r) {
			t.Errorf("route %s is not in openapi.json", r)
		}
	}
	for _, d := range described {
		if !slices.Contains(routed, d) {
			t.Errorf("openapi.json describes %s, which the server does not route", d)
		}
	}
}
