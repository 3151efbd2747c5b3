package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/mcp/serve"
)

// storedID matches a stored id of a base, document or chunk: what the
// aliases stand for, never shown.
var storedID = regexp.MustCompile(`\b(d|kb)-[0-9a-f]{16}`)

func TestListsTheFourReadOnlyTools(t *testing.T) {
	cs := connect(t, newFixture(t).server(t, false))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" {
			t.Errorf("%s: no description", tl.Name)
		}
		schema, _ := tl.InputSchema.(map[string]any)
		if schema["type"] != "object" {
			t.Errorf("%s: input schema %v is not an object schema", tl.Name, tl.InputSchema)
		}
		if tl.OutputSchema == nil {
			t.Errorf("%s: no output schema", tl.Name)
		}
		a := tl.Annotations
		if a == nil || !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v, want readOnlyHint true, destructiveHint false, openWorldHint false", tl.Name, a)
		}
	}
	want := []string{"ask", "list_documents", "read_document", "search_knowledge"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	init := cs.InitializeResult()
	if init.ServerInfo.Name != serve.Name || init.Capabilities.Tools == nil ||
		init.Capabilities.Prompts != nil || init.Capabilities.Resources != nil || init.Capabilities.Logging != nil {
		t.Fatalf("initialize: server %+v, capabilities %+v: want moteur with tools only", init.ServerInfo, init.Capabilities)
	}
	if !strings.Contains(init.Instructions, "docs") {
		t.Errorf("instructions %q do not name the base", init.Instructions)
	}
}

func TestSearchReadAndListWithCitations(t *testing.T) {
	cs := connect(t, newFixture(t).server(t, false))
	s := call(t, cs, "search_knowledge", map[string]any{"query": "congés payés par mois", "mode": "keyword"})
	if s.res.IsError || !strings.Contains(s.text, "2,5 jours ouvrables") {
		t.Fatalf("search: %s", s.text)
	}
	c, ok := s.chunkOf("conges.md")
	if !ok || !strings.HasPrefix(c.Alias, "c") || !strings.HasPrefix(c.Document, "d") || c.Title != "Congés payés" || c.KnowledgeBase != "docs" || c.Score <= 0 {
		t.Fatalf("search citations %+v: want the conges.md passage with its alias, document, title, base and score", s.out.Citations)
	}
	if !strings.Contains(s.text, "<passage id=\""+c.Alias+"\"") {
		t.Errorf("the text does not show the passage under its citation alias %s:\n%s", c.Alias, s.text)
	}
	if storedID.MatchString(s.raw) {
		t.Errorf("a stored id reached the client: %s", s.raw)
	}
	if len(s.out.Withheld) != 0 {
		t.Errorf("nothing classified was searched, yet withheld %+v", s.out.Withheld)
	}

	r := call(t, cs, "read_document", map[string]any{"id": c.Alias, "context": 1})
	if r.res.IsError || !strings.Contains(r.text, "par an.") {
		t.Fatalf("read_document(%s): %s", c.Alias, r.text)
	}
	if _, ok := r.chunkOf("conges.md"); !ok {
		t.Errorf("read_document citations %+v lack the passage", r.out.Citations)
	}
	d := call(t, cs, "read_document", map[string]any{"id": c.Document})
	if d.res.IsError || !strings.Contains(d.text, "2,5 jours ouvrables") || !strings.Contains(d.text, "par an.") {
		t.Fatalf("read_document(%s): %s", c.Document, d.text)
	}

	l := call(t, cs, "list_documents", map[string]any{"knowledge_base_id": "docs"})
	if l.res.IsError || !strings.Contains(l.text, "total_docs: 5") || !strings.Contains(l.text, "Télétravail") {
		t.Fatalf("list_documents: %s", l.text)
	}
	docs := 0
	for _, ci := range l.out.Citations {
		if ci.Kind == "document" {
			docs++
		}
	}
	if docs != 5 {
		t.Errorf("list_documents cites %d documents, want 5: %+v", docs, l.out.Citations)
	}
}

func TestAskAnswersExtractivelyWithCitations(t *testing.T) {
	cs := connect(t, newFixture(t).server(t, false))
	a := call(t, cs, "ask", map[string]any{"question": "combien de jours de congés payés par an ?"})
	if a.res.IsError || !strings.Contains(a.text, "2,5 jours ouvrables") || !strings.Contains(a.text, "No model wrote this answer") {
		t.Fatalf("ask: %s", a.text)
	}
	c, ok := a.chunkOf("conges.md")
	if !ok || !strings.Contains(a.text, "["+c.Alias+"]") {
		t.Fatalf("ask: citations %+v, text %s: want the conges.md passage cited", a.out.Citations, a.text)
	}
	// The alias of the answer is the server's: read_document reads it.
	r := call(t, cs, "read_document", map[string]any{"id": c.Alias})
	if r.res.IsError || !strings.Contains(r.text, "2,5 jours ouvrables") {
		t.Fatalf("read_document(%s) after ask: %s", c.Alias, r.text)
	}
}

func TestSchemaRefusesBadArguments(t *testing.T) {
	cs := connect(t, newFixture(t).server(t, false))
	for name, args := range map[string]map[string]any{
		"search_knowledge": {"mode": "keyword"},
		"read_document":    {"id": "c1", "context": 99},
		"ask":              {"question": 3},
	} {
		c := call(t, cs, name, args)
		if !c.res.IsError || c.text == "" {
			t.Errorf("%s(%v): want an error result, got %s", name, args, c.text)
		}
		if c.out.Citations == nil || c.out.Withheld == nil {
			t.Errorf("%s: an error result's structured content %+v must still fit the output schema", name, c.out)
		}
	}
}

// classifiedCases are searches that reach a classified passage, with a
// phrase of the passage that is not in the query.
var classifiedCases = []struct {
	name, query, file, phrase, rule string
}{
	{"path rule", "fermeture site Lyon", "plan.md", "plan de réorganisation prévoit", "path:confidential/**"},
	{"stamp of the document", "budget programme Orion", "note.md", "quatre millions", "builtin:"},
	{"organisation marking", "rachat société Brume", "alpha.md", "prévu au printemps", "marking"},
}

func TestClassifiedPassagesAreWithheld(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.server(t, false))
	for _, tc := range classifiedCases {
		t.Run(tc.name, func(t *testing.T) {
			hit := f.directHit(t, tc.query, tc.file)
			if !strings.Contains(hit.Text, tc.phrase) {
				t.Fatalf("the store's hit %q lacks %q", hit.Text, tc.phrase)
			}
			if tc.file == "note.md" {
				// The passage found carries no marking itself: its
				// document's stamp classifies it.
				if m, ok := f.cls.Text(hit.Title + "\n" + hit.Headings + "\n" + hit.Text); ok {
					t.Fatalf("the Orion passage itself carries %s: the test would not prove the document-wide rule", m.Rule)
				}
			}
			s := call(t, cs, "search_knowledge", map[string]any{"query": tc.query, "mode": "keyword"})
			assertWithheld(t, s, tc.file, tc.phrase, tc.rule)
			c, ok := s.chunkOf(tc.file)
			if !ok || !c.Withheld {
				t.Fatalf("the search's citations %+v do not show the %s passage as found and withheld", s.out.Citations, tc.file)
			}
			// Reading it, around it or the whole document: withheld too.
			for _, id := range []string{c.Alias, c.Document} {
				r := call(t, cs, "read_document", map[string]any{"id": id, "context": 2})
				assertWithheld(t, r, tc.file, tc.phrase, tc.rule)
			}
			// A search inside the document reads the notices, not the text:
			// its words find nothing.
			in := call(t, cs, "read_document", map[string]any{"id": c.Document, "query": tc.query})
			assertWithheld(t, in, tc.file, tc.phrase, tc.rule)
			a := call(t, cs, "ask", map[string]any{"question": tc.query})
			assertWithheld(t, a, tc.file, tc.phrase, tc.rule)
		})
	}
}

// assertWithheld checks that c shows nothing of the passage but says it
// withheld the document, its rule and how to allow it.
func assertWithheld(t *testing.T, c called, file, phrase, rule string) {
	t.Helper()
	if strings.Contains(c.raw, phrase) {
		t.Fatalf("classified text %q reached the client:\n%s", phrase, c.raw)
	}
	for _, secret := range []string{"ALPHA", "DIFFUSION RESTREINTE"} {
		if strings.Contains(c.raw, secret) {
			t.Fatalf("the marking %q reached the client:\n%s", secret, c.raw)
		}
	}
	w, ok := c.withheldDoc(file)
	if !ok || !strings.HasPrefix(w.Rule, rule) || !strings.HasPrefix(w.Document, "d") || !strings.Contains(w.Allow, serve.AllowFlag) {
		t.Fatalf("withheld %+v: want %s withheld under rule %s with how to allow it", c.out.Withheld, file, rule)
	}
	if !strings.Contains(c.text, fmt.Sprintf("<withheld document=%q", w.Document)) || !strings.Contains(c.text, serve.AllowFlag) {
		t.Fatalf("the text does not say that %s is withheld and how to allow it:\n%s", w.Document, c.text)
	}
}

func TestServeClassifiedServesThemAndSaysSo(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.server(t, true))
	for _, tc := range classifiedCases {
		t.Run(tc.name, func(t *testing.T) {
			s := call(t, cs, "search_knowledge", map[string]any{"query": tc.query, "mode": "keyword"})
			if !strings.Contains(s.text, tc.phrase) {
				t.Fatalf("with --serve-classified the passage %q is not served:\n%s", tc.phrase, s.text)
			}
			if len(s.out.Withheld) != 0 {
				t.Fatalf("withheld %+v with --serve-classified", s.out.Withheld)
			}
			found := false
			for _, c := range s.out.Served {
				found = found || c.File == tc.file && strings.HasPrefix(c.Rule, tc.rule)
			}
			if !found || !strings.Contains(s.text, "<classified document=") {
				t.Fatalf("served_classified %+v, text %s: want %s named as classified", s.out.Served, s.text, tc.file)
			}
			a := call(t, cs, "ask", map[string]any{"question": tc.query})
			if !strings.Contains(a.text, tc.phrase) {
				t.Fatalf("ask with --serve-classified does not quote %q:\n%s", tc.phrase, a.text)
			}
		})
	}
}

func TestBasesOutsideTheScopeAreUnreachable(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, f.server(t, false))
	c := call(t, cs, "list_documents", map[string]any{"knowledge_base_id": "other"})
	if !c.res.IsError || !strings.Contains(c.text, "unknown knowledge base") {
		t.Fatalf("list_documents(other), a base not served: %s", c.text)
	}
}

func TestNewRefusesWhatCannotBeServed(t *testing.T) {
	f := newFixture(t)
	for name, cfg := range map[string]serve.Config{
		"no store": {Bases: []string{"docs"}},
		"no base":  {Store: f.store},
	} {
		if _, err := serve.New(cfg); err == nil {
			t.Errorf("%s: New accepted %+v", name, cfg)
		}
	}
	cfg := f.config(false)
	cfg.Quick = nil
	s, err := serve.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Tools(); slices.Contains(got, "ask") {
		t.Errorf("without Quick, tools %v include ask", got)
	}
}

func TestStructuredContentMatchesTheText(t *testing.T) {
	cs := connect(t, newFixture(t).server(t, false))
	s := call(t, cs, "search_knowledge", map[string]any{"query": "fermeture site Lyon", "mode": "keyword"})
	var generic map[string]any
	b, _ := json.Marshal(s.res.StructuredContent)
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"citations", "withheld"} {
		if _, ok := generic[key]; !ok {
			t.Errorf("structured content %s lacks %q", b, key)
		}
	}
	for _, c := range s.out.Citations {
		if !strings.Contains(s.text, c.Alias) {
			t.Errorf("citation %s is not in the text", c.Alias)
		}
	}
	_ = mcp.TextContent{}
}
