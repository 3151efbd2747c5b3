package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/apikey"
)

// agentsList reads GET /api/v1/agents with key.
func agentsList(t *testing.T, ts *testServer, key string) []agentconfig.Agent {
	t.Helper()
	var body struct{ Agents []agentconfig.Agent }
	decodeJSON(t, ts.do("GET", "/api/v1/agents", key, nil), http.StatusOK, &body)
	return body.Agents
}

func agentIDs(as []agentconfig.Agent) []string {
	var ids []string
	for _, a := range as {
		ids = append(ids, a.ID)
	}
	return ids
}

// agentsRaw sends a raw body to the agents routes.
func agentsRaw(t *testing.T, ts *testServer, method, path, contentType, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, ts.http.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+ts.key)
	resp, err := ts.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func TestAgentsRoutesCreateReadUpdateDelete(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	wantError(t, ts.do("GET", "/api/v1/agents", "", nil), http.StatusUnauthorized, CodeUnauthorized)
	wantError(t, ts.do("POST", "/api/v1/agents", "", map[string]any{"name": "x"}), http.StatusUnauthorized, CodeUnauthorized)

	before := agentsList(t, ts, ts.key)
	for _, id := range []string{"builtin-quick-answer", "builtin-smart-reasoning"} {
		i := slices.IndexFunc(before, func(a agentconfig.Agent) bool { return a.ID == id })
		if i < 0 || !before[i].Builtin {
			t.Fatalf("GET /api/v1/agents: built-in %s missing or not marked built-in: %v", id, agentIDs(before))
		}
	}

	// A preset prefills; the config's fields given win over it.
	var created agentconfig.Agent
	resp := ts.do("POST", "/api/v1/agents", ts.key, map[string]any{"name": "Support", "description": "Answers from the docs",
		"preset": "rag-qa", "config": map[string]any{"temperature": 0.2, "knowledge_bases": []string{"docs"}}})
	decodeJSON(t, resp, http.StatusCreated, &created)
	c := created.Config
	if created.ID == "" || created.Builtin || created.Name != "Support" || created.Created.IsZero() {
		t.Fatalf("created %+v", created)
	}
	if resp.Header.Get("Location") != "/api/v1/agents/"+created.ID {
		t.Errorf("Location %q", resp.Header.Get("Location"))
	}
	if c.AgentMode != agentconfig.ModeSmartReasoning || c.AgentType != "rag-qa" || c.SystemPromptID != "progressive_rag_agent" ||
		c.MaxIterations != 30 || c.Temperature != 0.2 || !slices.Equal(c.AllowedTools, []string{"search_knowledge", "read_document", "list_documents"}) ||
		c.KBSelectionMode != agentconfig.SelectSelected || c.MaxCompletionTokens != agentconfig.DefaultMaxTokensSmartReasoning {
		t.Errorf("preset rag-qa with temperature 0.2: config %+v", c)
	}

	// Without a preset nor a temperature: seed 000's defaults.
	var plain agentconfig.Agent
	decodeJSON(t, ts.do("POST", "/api/v1/agents", ts.key, map[string]any{"name": "Plain"}), http.StatusCreated, &plain)
	if p := plain.Config; p.Temperature != agentconfig.DefaultTemperature || p.AgentMode != agentconfig.ModeQuickAnswer ||
		p.MaxCompletionTokens != agentconfig.DefaultMaxTokensQuickAnswer || !slices.Equal(p.AllowedTools, agentconfig.DefaultAllowedTools()) {
		t.Errorf("defaults: %+v", p)
	}

	for _, ref := range []string{created.ID, "Support"} {
		var got agentconfig.Agent
		decodeJSON(t, ts.do("GET", "/api/v1/agents/"+ref, ts.key, nil), http.StatusOK, &got)
		if got.ID != created.ID || got.Config.Temperature != 0.2 {
			t.Errorf("GET %s: %+v", ref, got)
		}
	}
	if after := agentIDs(agentsList(t, ts, ts.key)); len(after) != len(before)+2 || !slices.Contains(after, created.ID) {
		t.Errorf("list after two creations: %v", after)
	}
	wantError(t, ts.do("POST", "/api/v1/agents", ts.key, map[string]any{"name": "Support"}), http.StatusConflict, CodeAgentExists)

	// PUT replaces; the id stays, created is kept. A GET's body sent back
	// (builtin, created, updated) is accepted.
	edit := map[string]any{"id": created.ID, "name": "Support FR", "builtin": false, "created": created.Created, "updated": created.Updated,
		"config": map[string]any{"agent_mode": "quick-answer", "temperature": 0}}
	var updated agentconfig.Agent
	decodeJSON(t, ts.do("PUT", "/api/v1/agents/"+created.ID, ts.key, edit), http.StatusOK, &updated)
	if updated.ID != created.ID || updated.Name != "Support FR" || updated.Config.AgentMode != agentconfig.ModeQuickAnswer ||
		updated.Config.Temperature != 0 || !updated.Created.Equal(created.Created) {
		t.Errorf("updated %+v", updated)
	}
	stored, err := ts.agents.Get(context.Background(), created.ID)
	if err != nil || stored.Name != "Support FR" {
		t.Fatalf("stored after PUT: %+v, %v", stored, err)
	}
	msg := wantError(t, ts.do("PUT", "/api/v1/agents/"+created.ID, ts.key, map[string]any{"id": plain.ID, "name": "x"}),
		http.StatusBadRequest, CodeInvalidField)
	if !strings.Contains(msg, "id") {
		t.Errorf("id mismatch: %q", msg)
	}

	// Built-in agents are read-only.
	wantError(t, ts.do("PUT", "/api/v1/agents/builtin-quick-answer", ts.key, map[string]any{"name": "mine"}), http.StatusForbidden, CodeBuiltinAgent)
	wantError(t, ts.do("DELETE", "/api/v1/agents/builtin-quick-answer", ts.key, nil), http.StatusForbidden, CodeBuiltinAgent)
	if _, err := ts.agents.Resolve(context.Background(), "builtin-quick-answer", ts.lang); err != nil {
		t.Fatalf("built-in after DELETE: %v", err)
	}

	resp = ts.do("DELETE", "/api/v1/agents/"+created.ID, ts.key, nil)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", resp.StatusCode)
	}
	if _, err := ts.agents.Get(context.Background(), created.ID); !errors.Is(err, agentstore.ErrNotFound) {
		t.Fatalf("stored after DELETE: %v", err)
	}
	wantError(t, ts.do("GET", "/api/v1/agents/"+created.ID, ts.key, nil), http.StatusNotFound, CodeUnknownAgent)
	wantError(t, ts.do("DELETE", "/api/v1/agents/"+created.ID, ts.key, nil), http.StatusNotFound, CodeUnknownAgent)
	wantError(t, ts.do("PUT", "/api/v1/agents/nobody", ts.key, map[string]any{"name": "x"}), http.StatusNotFound, CodeUnknownAgent)
}

func TestAgentsBadInput(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	const js = "application/json"
	cases := []struct {
		name, contentType, body string
		status                  int
		code                    string
		inMessage               []string
	}{
		{name: "malformed", body: `{"name": }`, status: 400, code: CodeMalformedJSON},
		{name: "unknown field", body: `{"name":"a","nmae":"b"}`, status: 400, code: CodeUnknownField, inMessage: []string{"nmae"}},
		{name: "unknown config field", body: `{"name":"a","config":{"tempurature":1}}`, status: 400, code: CodeUnknownField, inMessage: []string{"config.tempurature"}},
		{name: "config field of the wrong type", body: `{"name":"a","config":{"temperature":"hot"}}`, status: 400, code: CodeInvalidField, inMessage: []string{"config.temperature"}},
		{name: "no name", body: `{"config":{}}`, status: 400, code: CodeInvalidAgent, inMessage: []string{"name: required"}},
		{name: "invalid values, all named", body: `{"name":"a","config":{"temperature":5,"access_level":"root"}}`, status: 400, code: CodeInvalidAgent,
			inMessage: []string{"temperature", "access_level", `"root"`}},
		{name: "unknown tool", body: `{"name":"a","config":{"allowed_tools":["search_knowledge","rm_rf"],"access_level":"root"}}`, status: 400, code: CodeInvalidAgent,
			inMessage: []string{"allowed_tools[1]", `"rm_rf"`, "access_level"}},
		{name: "unknown preset", body: `{"name":"a","preset":"wizard"}`, status: 400, code: CodeUnknownPreset, inMessage: []string{`"wizard"`}},
		{name: "too large", body: `{"name":"a","description":"` + strings.Repeat("a", DefaultMaxBody) + `"}`, status: 413, code: CodeBodyTooLarge},
		{name: "not JSON", contentType: "text/plain", body: `{"name":"a"}`, status: 415, code: CodeUnsupportedMedia},
		{name: "empty", body: ``, status: 400, code: CodeEmptyBody},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ct := c.contentType
			if ct == "" {
				ct = js
			}
			msg := wantError(t, agentsRaw(t, ts, "POST", "/api/v1/agents", ct, c.body), c.status, c.code)
			for _, want := range c.inMessage {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
		})
	}
	// Nothing of it was stored, though the store took valid agents.
	decodeJSON(t, ts.do("POST", "/api/v1/agents", ts.key, map[string]any{"name": "ok"}), http.StatusCreated, nil)
	if ids := agentIDs(agentsList(t, ts, ts.key)); slices.ContainsFunc(ids, func(id string) bool { return id == "a" }) {
		t.Errorf("an invalid agent was stored: %v", ids)
	}
	stored, err := ts.agents.List(context.Background())
	if err != nil || len(stored) != 1 || stored[0].Name != "ok" {
		t.Errorf("stored agents: %+v, %v", stored, err)
	}
}

func TestAgentsAllowedToolsNormalised(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	var a agentconfig.Agent
	body := map[string]any{"name": "legacy", "config": map[string]any{"agent_mode": "smart-reasoning",
		"allowed_tools": []string{"knowledge_search", "grep_chunks", "web_search", "read_file", "search_conversations"}}}
	decodeJSON(t, ts.do("POST", "/api/v1/agents", ts.key, body), http.StatusCreated, &a)
	// Retired names become their successor (once), web_search is its
	// switch's, not the list's.
	if want := []string{"search_knowledge", "read_file", "search_conversations"}; !slices.Equal(a.Config.AllowedTools, want) {
		t.Errorf("allowed_tools %q, want %q", a.Config.AllowedTools, want)
	}
	// [] stays [] (no built-in tool), null is the default list.
	decodeJSON(t, ts.do("POST", "/api/v1/agents", ts.key, map[string]any{"name": "none", "config": map[string]any{"allowed_tools": []string{}}}), http.StatusCreated, &a)
	if a.Config.AllowedTools == nil || len(a.Config.AllowedTools) != 0 {
		t.Errorf("allowed_tools [] became %#v", a.Config.AllowedTools)
	}
	// Every preset applies as it is: its tools are in the catalogue.
	for _, id := range []string{"rag-qa", "data-analysis", "custom"} {
		decodeJSON(t, ts.do("POST", "/api/v1/agents", ts.key, map[string]any{"name": "from " + id, "preset": id}), http.StatusCreated, &a)
		if a.Config.AgentType != id {
			t.Errorf("preset %s: agent_type %q", id, a.Config.AgentType)
		}
	}
}

func TestAgentsPresetsAndToolCatalogue(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	wantError(t, ts.do("GET", "/api/v1/agents/tools", "", nil), http.StatusUnauthorized, CodeUnauthorized)
	for lang, want := range map[string]string{"en": "Document Q&A", "fr": "Questions-réponses sur les documents"} {
		var body struct{ Presets []agentconfig.Preset }
		decodeJSON(t, ts.do("GET", "/api/v1/agents/presets?lang="+lang, ts.key, nil), http.StatusOK, &body)
		i := slices.IndexFunc(body.Presets, func(p agentconfig.Preset) bool { return p.ID == "rag-qa" })
		if i < 0 || body.Presets[i].Name != want || len(body.Presets) < 3 {
			t.Errorf("presets in %s: %+v", lang, body.Presets)
		}
	}

	var cat struct{ Tools []toolInfo }
	decodeJSON(t, ts.do("GET", "/api/v1/agents/tools", ts.key, nil), http.StatusOK, &cat)
	byName := map[string]toolInfo{}
	for _, ti := range cat.Tools {
		if ti.Description == "" || ti.Group == "" {
			t.Errorf("tool %+v: description and group wanted", ti)
		}
		byName[ti.Name] = ti
	}
	for _, name := range agentconfig.DefaultAllowedTools() {
		if !byName[name].Default {
			t.Errorf("default tool %s: not listed as default: %+v", name, byName[name])
		}
	}
	for name, want := range map[string]toolInfo{
		"search_knowledge":     {Default: true, Available: true},
		"read_file":            {Available: true},
		"shell_exec":           {Available: true},
		"todo_write":           {Available: true},
		"search_conversations": {Default: true},
		"data_schema":          {},
	} {
		got, ok := byName[name]
		if !ok || got.Default != want.Default || got.Available != want.Available {
			t.Errorf("tool %s: %+v, want default=%v available=%v", name, got, want.Default, want.Available)
		}
	}
	if d := byName["read_file"].Description; !strings.HasPrefix(d, "Read a text file") || strings.Contains(d, "\n") {
		t.Errorf("read_file's description %q: its first sentence wanted", d)
	}
}

func TestAgentsScope(t *testing.T) {
	ts := newTestServer(t, testOptions{})
	mine := ts.newAgent("mine", agentconfig.CustomAgentConfig{})
	other := ts.newAgent("other", agentconfig.CustomAgentConfig{})
	limited := ts.newKey("limited", apikey.Scope{Agents: []string{"builtin-quick-answer", mine.ID}})

	all := agentIDs(agentsList(t, ts, ts.key))
	if !slices.Contains(all, other.ID) {
		t.Fatalf("the full key does not see %s: %v", other.ID, all)
	}
	if got := agentIDs(agentsList(t, ts, limited)); !slices.Equal(got, []string{"builtin-quick-answer", mine.ID}) {
		t.Errorf("limited key lists %v", got)
	}
	decodeJSON(t, ts.do("GET", "/api/v1/agents/"+mine.ID, limited, nil), http.StatusOK, nil)
	wantError(t, ts.do("GET", "/api/v1/agents/"+other.ID, limited, nil), http.StatusForbidden, CodeForbidden)
	wantError(t, ts.do("GET", "/api/v1/agents/builtin-smart-reasoning", limited, nil), http.StatusForbidden, CodeForbidden)
	wantError(t, ts.do("PUT", "/api/v1/agents/"+other.ID, limited, map[string]any{"name": "taken over"}), http.StatusForbidden, CodeForbidden)
	wantError(t, ts.do("DELETE", "/api/v1/agents/"+other.ID, limited, nil), http.StatusForbidden, CodeForbidden)
	if got, err := ts.agents.Get(context.Background(), other.ID); err != nil || got.Name != "other" {
		t.Errorf("other after the refused PUT and DELETE: %+v, %v", got, err)
	}
	wantError(t, ts.do("POST", "/api/v1/agents", limited, map[string]any{"name": "new"}), http.StatusForbidden, CodeForbidden)
	decodeJSON(t, ts.do("PUT", "/api/v1/agents/"+mine.ID, limited, map[string]any{"name": "mine, renamed"}), http.StatusOK, nil)

	// A key limited to some bases gives an agent no other base.
	docsOnly := ts.newKey("docs-only", apikey.Scope{Bases: []string{"docs"}})
	wantError(t, ts.do("POST", "/api/v1/agents", docsOnly, map[string]any{"name": "spy", "config": map[string]any{"knowledge_bases": []string{"docs", "hr"}}}),
		http.StatusForbidden, CodeForbidden)
	decodeJSON(t, ts.do("POST", "/api/v1/agents", docsOnly, map[string]any{"name": "reader", "config": map[string]any{"knowledge_bases": []string{"docs"}}}),
		http.StatusCreated, nil)
	if stored, _ := ts.agents.List(context.Background()); slices.ContainsFunc(stored, func(a agentconfig.Agent) bool { return a.Name == "spy" }) {
		t.Errorf("the refused agent was stored")
	}
}

func FuzzAgentsDecodeConfig(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `{"temperature":0.5}`, `{"allowed_tools":["a",""]}`, `{"x":1}`, `{"temperature":"a"}`, `[`, `{"max_iterations":1e400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg := agentconfig.CustomAgentConfig{}
		err := decodeConfig(json.RawMessage(raw), &cfg)
		var ae *Error
		if err != nil && (!errors.As(err, &ae) || ae.Status != http.StatusBadRequest || ae.Message == "") {
			t.Fatalf("decodeConfig(%q): %v, want a 400 *Error", raw, err)
		}
		if err == nil {
			// What a decoded config goes through next must not panic either.
			_, _ = normaliseAllowedTools(cfg.AllowedTools)
			cfg.EnsureDefaults()
			_ = cfg.Validate()
		}
	})
}
