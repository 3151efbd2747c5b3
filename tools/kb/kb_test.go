package kb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moteur/moteur/cite"
	kbs "github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/kb"
)

var docs = map[string]string{
	"conges.md":   "# Congés payés\n\nChaque salarié acquiert 2,5 jours ouvrables de congés payés par mois de travail effectif, soit 30 jours par an.\n",
	"erreurs.md":  "# Codes d'erreur\n\n## ERR_4012\n\nL'erreur ERR_4012 signale un jeton d'authentification expiré : reconnectez-vous.\n",
	"security.md": "# Network security policy\n\nAll laptops must use the corporate VPN on public networks.\n",
}

// manual is a long document: one section per chapter, so one passage each.
func manual() string {
	var sb strings.Builder
	sb.WriteString("# Manuel d'exploitation\n\n")
	for i := range 30 {
		fmt.Fprintf(&sb, "## Chapitre %d\n\nLe chapitre %d décrit l'étape %d de la procédure.", i, i, i)
		if i == 7 || i == 21 {
			sb.WriteString(" Il mentionne le disjoncteur principal du local technique.")
		}
		sb.WriteString("\n\n")
	}
	return sb.String()
}

type fixture struct {
	store *kbs.Store
	reg   *tools.Registry
	table *cite.Table
}

func newFixture(t *testing.T, budget int) *fixture {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"manuel.md": manual()}
	for k, v := range docs {
		files[k] = v
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := kbs.Open(context.Background(), kbs.Config{Path: filepath.Join(t.TempDir(), "moteur.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, name := range []string{"docs", "other"} {
		if _, err := s.Create(context.Background(), name, kbs.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Ingest(context.Background(), "docs", []string{dir}, kbs.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ingest(context.Background(), "other", []string{filepath.Join(dir, "security.md")}, kbs.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(tools.Config{})
	if err := kb.Register(reg, kb.Config{Store: s, Bases: []string{"docs"}, Budget: budget}); err != nil {
		t.Fatal(err)
	}
	return &fixture{store: s, reg: reg, table: cite.NewTable()}
}

func (f *fixture) call(t *testing.T, name string, args any) tools.Result {
	t.Helper()
	b, _ := json.Marshal(args)
	ctx := cite.WithTable(context.Background(), f.table)
	return f.reg.Execute(ctx, llm.ToolCall{ID: "x", Name: name, Arguments: string(b)})
}

func mustOK(t *testing.T, r tools.Result) string {
	t.Helper()
	if r.IsError {
		t.Fatalf("error result: %s", r.Content)
	}
	return r.Content
}

// storedID matches the ids Moteur stores (d-…, d-…-N, kb-…).
var storedID = regexp.MustCompile(`\b(d|kb)-[0-9a-f]{16}`)

func TestSearchShowsAliasesOnly(t *testing.T) {
	f := newFixture(t, 0)
	r := f.call(t, kb.SearchName, map[string]any{"query": "ERR_4012 jeton", "mode": "keyword"})
	out := mustOK(t, r)
	if storedID.MatchString(out) {
		t.Fatalf("a stored id reached the model:\n%s", out)
	}
	if !strings.Contains(out, `<passage id="c1" document="d1"`) || !strings.Contains(out, "ERR_4012") {
		t.Fatalf("output:\n%s", out)
	}
	var chunk cite.Ref
	for _, ref := range r.References {
		if ref.Alias == "c1" {
			chunk = ref
		}
	}
	if chunk.Kind != cite.Chunk || !strings.HasPrefix(chunk.ID, "d-") || chunk.Title != "Codes d'erreur" || chunk.Score <= 0 {
		t.Fatalf("reference of c1: %+v", chunk)
	}
	got, err := f.store.Chunk(context.Background(), chunk.ID)
	if err != nil || !strings.Contains(got.Text, "ERR_4012") {
		t.Fatalf("c1 does not map back to its chunk: %+v %v", got, err)
	}
}

func TestSearchScopeAndErrors(t *testing.T) {
	f := newFixture(t, 0)
	r := f.call(t, kb.SearchName, map[string]any{"query": "VPN", "knowledge_base_ids": []string{"other"}})
	if !r.IsError || !strings.Contains(r.Content, "docs") {
		t.Fatalf("a base out of scope was searched: %+v", r)
	}
	r = f.call(t, kb.SearchName, map[string]any{"query": "VPN", "mode": "fuzzy"})
	if !r.IsError {
		t.Fatal("an unknown mode was accepted")
	}
	out := mustOK(t, f.call(t, kb.SearchName, map[string]any{"query": "VPN laptops", "knowledge_base_ids": []string{"docs"}}))
	if !strings.Contains(out, "mode_fallback: b1 (docs) searched in keyword mode instead of hybrid") {
		t.Fatalf("the fallback is not reported:\n%s", out)
	}
	if _, ok := f.table.Resolve("b1"); !ok {
		t.Fatal("b1 not in the table")
	}
	// The alias works where the name did.
	mustOK(t, f.call(t, kb.SearchName, map[string]any{"query": "VPN", "knowledge_base_ids": []string{"b1"}}))
}

func TestSearchOutputBudget(t *testing.T) {
	f := newFixture(t, 600) // 4/5 of it: 480 runes
	out := mustOK(t, f.call(t, kb.SearchName, map[string]any{"query": "chapitre étape procédure", "mode": "keyword", "limit": 20}))
	if !regexp.MustCompile(`<omitted count="\d+" reason="output_budget"/>`).MatchString(out) {
		t.Fatalf("no omitted marker:\n%s", out)
	}
	if strings.Count(out, "<passage ") < 1 {
		t.Fatalf("at least one result must be kept:\n%s", out)
	}
}

// searchFirst runs a search so the model has aliases, and returns the
// alias of the first passage and of its document.
func (f *fixture) searchFirst(t *testing.T, query string) (chunk, doc string) {
	t.Helper()
	r := f.call(t, kb.SearchName, map[string]any{"query": query, "mode": "keyword", "limit": 1})
	mustOK(t, r)
	for _, ref := range r.References {
		switch ref.Kind {
		case cite.Chunk:
			chunk = ref.Alias
		case cite.Document:
			doc = ref.Alias
		}
	}
	return chunk, doc
}

func TestReadDocumentPages(t *testing.T) {
	f := newFixture(t, 0)
	_, doc := f.searchFirst(t, "disjoncteur")
	out := mustOK(t, f.call(t, kb.ReadName, map[string]any{"id": doc, "limit": 10}))
	if !strings.HasPrefix(out, "["+doc+"] Manuel d'exploitation\nfile: manuel.md · type: markdown · parse_status: ok · passages: 30\n") {
		t.Fatalf("header:\n%s", out)
	}
	if !strings.Contains(out, "next_offset: 10") || strings.Count(out, "<passage ") != 10 {
		t.Fatalf("first page:\n%s", out)
	}
	out = mustOK(t, f.call(t, kb.ReadName, map[string]any{"id": doc, "offset": 25, "limit": 10}))
	if !strings.Contains(out, "End of document") || strings.Count(out, "<passage ") == 0 {
		t.Fatalf("last page:\n%s", out)
	}
	out = mustOK(t, f.call(t, kb.ReadName, map[string]any{"id": doc, "offset": 500}))
	if !strings.Contains(out, "past the end") {
		t.Fatalf("offset past the end:\n%s", out)
	}
}

func TestReadDocumentAroundChunk(t *testing.T) {
	f := newFixture(t, 0)
	chunk, _ := f.searchFirst(t, "disjoncteur")
	out := mustOK(t, f.call(t, kb.ReadName, map[string]any{"id": chunk, "context": 2}))
	if n := strings.Count(out, "<passage "); n != 5 {
		t.Fatalf("%d passages, want the chunk and 2 on each side:\n%s", n, out)
	}
	if !strings.Contains(out, `id="`+chunk+`"`) {
		t.Fatalf("the chunk itself is missing:\n%s", out)
	}
	if r := f.call(t, kb.ReadName, map[string]any{"id": chunk, "context": 50}); !r.IsError {
		t.Fatal("context above 5 accepted")
	}
}

func TestReadDocumentQuery(t *testing.T) {
	f := newFixture(t, 0)
	chunk, _ := f.searchFirst(t, "disjoncteur")
	// All words required, any order, case and accents ignored.
	out := mustOK(t, f.call(t, kb.ReadName, map[string]any{"id": chunk, "query": "LOCAL disjoncteur technique"}))
	if !strings.Contains(out, "2 passage(s) match") {
		t.Fatalf("query:\n%s", out)
	}
	out = mustOK(t, f.call(t, kb.ReadName, map[string]any{"id": chunk, "query": "disjoncteur inexistant"}))
	if !strings.Contains(out, "No passage of this document contains") {
		t.Fatalf("no-hit help missing:\n%s", out)
	}
	out = mustOK(t, f.call(t, kb.ReadName, map[string]any{"id": chunk, "query": `chapitre (7|21)\b`, "regex": true}))
	if !strings.Contains(out, "2 passage(s) match") {
		t.Fatalf("regex:\n%s", out)
	}
	if r := f.call(t, kb.ReadName, map[string]any{"id": chunk, "query": "(", "regex": true}); !r.IsError {
		t.Fatal("an invalid regex was accepted")
	}
}

func TestReadDocumentUnknownOrOutOfScope(t *testing.T) {
	f := newFixture(t, 0)
	if r := f.call(t, kb.ReadName, map[string]any{"id": "d42"}); !r.IsError {
		t.Fatal("an unknown alias was read")
	}
	// A document of another base, aliased in this session by someone else.
	docs, _, err := f.store.Documents(context.Background(), "other", "", 1, 10)
	if err != nil || len(docs) != 1 {
		t.Fatal(docs, err)
	}
	alias := f.table.Alias(cite.Ref{Kind: cite.Document, ID: docs[0].ID, Document: docs[0].ID})
	if r := f.call(t, kb.ReadName, map[string]any{"id": alias}); !r.IsError || !strings.Contains(r.Content, "not in the knowledge bases") {
		t.Fatalf("a document out of scope was read: %+v", r)
	}
}

func TestListDocuments(t *testing.T) {
	f := newFixture(t, 0)
	out := mustOK(t, f.call(t, kb.ListName, map[string]any{"knowledge_base_id": "docs", "page_size": 2}))
	if !strings.Contains(out, "total_docs: 4") || !strings.Contains(out, "next_page: 2") || strings.Count(out, "\n[d") != 2 {
		t.Fatalf("page 1:\n%s", out)
	}
	out = mustOK(t, f.call(t, kb.ListName, map[string]any{"knowledge_base_id": "b1", "keyword": "ERREUR"}))
	if !strings.Contains(out, "total_docs: 1") || !strings.Contains(out, "Codes d'erreur") {
		t.Fatalf("keyword filter:\n%s", out)
	}
	if r := f.call(t, kb.ListName, map[string]any{"knowledge_base_id": "other"}); !r.IsError {
		t.Fatal("a base out of scope was listed")
	}
}

func TestClassifiedDocumentsMarkTheResult(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fusion.md"), []byte("# Fusion\n\nLa fusion est prévue en mars.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := kbs.Open(context.Background(), kbs.Config{Path: filepath.Join(t.TempDir(), "moteur.db"),
		Classify: func(string) (string, bool) { return "path:dossiers/**", true }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Create(context.Background(), "docs", kbs.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ingest(context.Background(), "docs", []string{dir}, kbs.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(tools.Config{})
	if err := kb.Register(reg, kb.Config{Store: s, Bases: []string{"docs"}}); err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: s, reg: reg, table: cite.NewTable()}
	r := f.call(t, kb.SearchName, map[string]any{"query": "fusion"})
	if r.Classified != "path:dossiers/**" {
		t.Fatalf("search result classified %q", r.Classified)
	}
	chunk, _ := f.searchFirst(t, "fusion")
	if r := f.call(t, kb.ReadName, map[string]any{"id": chunk}); r.Classified != "path:dossiers/**" {
		t.Fatalf("read result classified %q", r.Classified)
	}
}

// TestToolsAreRetrieval: knowledge bases change between turns, so every
// knowledge tool, found by its name or by a legacy one, tells the engine
// not to trust an earlier turn's result.
func TestToolsAreRetrieval(t *testing.T) {
	f := newFixture(t, 0)
	names := []string{kb.SearchName, kb.ReadName, kb.ListName}
	for old := range tools.DefaultLegacy() {
		names = append(names, old)
	}
	for _, name := range names {
		tl, ok := f.reg.Lookup(name)
		if !ok {
			t.Errorf("Lookup(%s): not found", name)
			continue
		}
		if r, ok := tl.(tools.Retrieval); !ok || !r.Retrieval() {
			t.Errorf("%s (%s) does not report Retrieval", name, tl.Name())
		}
	}
}
