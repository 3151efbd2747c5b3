package serve_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/classify"
	kbs "github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/kb/chunk"
	"github.com/moteur/moteur/mcp/serve"
	"github.com/moteur/moteur/rag"
)

// The documents of the test base. plan.md is under confidential/, which a
// path rule classifies; note.md carries a protection marking in its first
// section only, so its Orion section is classified by the document's stamp
// and not by its own text; alpha.md carries the organisation's marking.
var (
	publicDocs = map[string]string{
		"conges.md":      "# Congés payés\n\nChaque salarié acquiert 2,5 jours ouvrables de congés payés par mois de travail effectif, soit 30 jours par an.\n",
		"teletravail.md": "# Télétravail\n\nLe télétravail est possible deux jours par semaine après la période d'essai.\n",
	}
	planText  = "Le plan de réorganisation prévoit la fermeture du site de Lyon en 2027."
	orionText = "Le budget du programme Orion atteint quatre millions d'euros sur trois exercices."
	noteDoc   = "# Note de service\n\nDIFFUSION RESTREINTE\n\nCette note circule entre les directions concernées uniquement, sans copie.\n\n" +
		"## Calendrier\n\nLes réunions de suivi ont lieu chaque premier lundi, dans la salle du conseil.\n\n" +
		"## Budget\n\n" + orionText + "\n"
	alphaText = "PROJET ALPHA : le rachat de la société Brume est prévu au printemps."
)

// fixture is a knowledge base with public and classified documents.
type fixture struct {
	root  string // the project root the path rules apply under
	store *kbs.Store
	cls   *classify.Classifier
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range publicDocs {
		write(filepath.Join("docs", name), text)
	}
	write("docs/note.md", noteDoc)
	write("docs/alpha.md", "# Opérations\n\n"+alphaText+"\n")
	write("confidential/plan.md", "# Plan stratégique\n\n"+planText+"\n")
	cls, err := classify.New(classify.Rules{Paths: []string{"confidential/**"}, Markings: []string{"PROJET ALPHA"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := kbs.Open(context.Background(), kbs.Config{Path: filepath.Join(t.TempDir(), "moteur.db"),
		Classify: func(path string) (string, bool) {
			m, ok := cls.Path(root, path)
			return m.Rule, ok
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	if _, err := st.Create(ctx, "docs", kbs.CreateOptions{Chunking: chunk.Config{Size: 120, Overlap: -1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(ctx, "other", kbs.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Ingest(ctx, "docs", []string{filepath.Join(root, "docs"), filepath.Join(root, "confidential")}, kbs.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return &fixture{root: root, store: st, cls: cls}
}

func (f *fixture) config(serveClassified bool) serve.Config {
	return serve.Config{Store: f.store, Bases: []string{"docs"}, Classifier: f.cls, ProjectRoot: f.root,
		ServeClassified: serveClassified, Quick: &rag.Config{}, Version: "test"}
}

func (f *fixture) server(t testing.TB, serveClassified bool) *serve.Server {
	t.Helper()
	s, err := serve.New(f.config(serveClassified))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// connect connects a go-sdk client to s over in-memory transports.
func connect(t testing.TB, s *serve.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// called is a tool result as a client reads it.
type called struct {
	res  *mcp.CallToolResult
	text string
	out  serve.Output
	raw  string // the whole result as JSON, as it crossed the wire
}

func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) called {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var c called
	c.res = res
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			c.text += tc.Text
		}
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	c.raw = string(raw)
	sc, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sc, &c.out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, sc, err)
	}
	return c
}

// chunkOf returns the citation of the passage of file (a base name) in c.
func (c called) chunkOf(file string) (serve.Citation, bool) {
	for _, ci := range c.out.Citations {
		if ci.Kind == "chunk" && ci.File == file {
			return ci, true
		}
	}
	return serve.Citation{}, false
}

// withheldDoc returns the withholding of file in c.
func (c called) withheldDoc(file string) (serve.Classified, bool) {
	for _, w := range c.out.Withheld {
		if w.File == file {
			return w, true
		}
	}
	return serve.Classified{}, false
}

// directHit searches the store itself, unguarded, and returns the first
// hit of file: proof that the search reaches the passage the server
// withholds.
func (f *fixture) directHit(t testing.TB, query, file string) kbs.Hit {
	t.Helper()
	res, err := f.store.Search(context.Background(), kbs.Query{Text: query, Bases: []string{"docs"}, Mode: kbs.ModeKeyword})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if filepath.Base(h.Path) == file {
			return h
		}
	}
	var got []string
	for _, h := range res.Hits {
		got = append(got, filepath.Base(h.Path))
	}
	t.Fatalf("the store's own search for %q does not find %s (found %s): the test proves nothing", query, file, strings.Join(got, ", "))
	return kbs.Hit{}
}
