package main

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// modelServer serves /v1/embeddings (a text's lower-cased words hashed into
// 64 buckets) and /v1/rerank (the share of the query's words a document
// holds), and keeps every request body it received.
type modelServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newModelServer(t *testing.T) *modelServer {
	m := &modelServer{}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.Close)
	return m
}

func (m *modelServer) received() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(m.bodies, "\n")
}

func bag(text string) []float32 {
	v := make([]float32, 64)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 0xc0) }) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%64]++
	}
	return v
}

func (m *modelServer) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input     []string `json:"input"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
	}
	var raw json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil || json.Unmarshal(raw, &req) != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.bodies = append(m.bodies, string(raw))
	m.mu.Unlock()
	switch r.URL.Path {
	case "/v1/embeddings":
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, text := range req.Input {
			out.Data = append(out.Data, item{i, bag(text)})
		}
		json.NewEncoder(w).Encode(out)
	case "/v1/rerank":
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		var out struct {
			Results []result `json:"results"`
		}
		words := strings.Fields(strings.ToLower(req.Query))
		for i, d := range req.Documents {
			hit := 0
			for _, w := range words {
				if strings.Contains(strings.ToLower(d), w) {
					hit++
				}
			}
			out.Results = append(out.Results, result{i, float64(hit) / float64(max(len(words), 1))})
		}
		json.NewEncoder(w).Encode(out)
	default:
		http.NotFound(w, r)
	}
}

// With an embedding model configured, a new base has vectors: documents
// are embedded on the wire, searched in hybrid mode without fallback, and
// a classified document never reaches a remote embedding server.
func TestKBWithEmbeddingServer(t *testing.T) {
	srv := newModelServer(t)
	h := newKBHarness(t)
	h.env["MOTEUR_EMBED_MODEL"], h.env["MOTEUR_EMBED_BASE_URL"] = "bag-64", srv.URL+"/v1"
	if res := h.run(t, "kb", "create", "vec"); res.code != 0 || !strings.Contains(res.stdout, "vector + keyword") {
		t.Fatalf("kb create: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	files := map[string]string{"secret.md": "# Projet\n\nDIFFUSION RESTREINTE\n\nLe budget du projet Alpha est de trois millions.\n"}
	for k, v := range kbDocs {
		files[k] = v
	}
	dir := writeDocs(t, files)
	res := h.run(t, "kb", "add", "vec", dir)
	if res.code != 1 || !strings.Contains(res.stdout, "3 added") || !strings.Contains(res.stdout, "secret.md") ||
		!strings.Contains(res.stdout, "DIFFUSION RESTREINTE") {
		t.Fatalf("kb add: exit %d, stdout %q, stderr %q; want 3 added and secret.md refused for its marking", res.code, res.stdout, res.stderr)
	}
	if got := srv.received(); !strings.Contains(got, "télétravail") || strings.Contains(got, "trois millions") {
		t.Fatalf("the embedding server received %q", got)
	}

	out := kbSearch(t, h, "vec", "télétravail", "par", "semaine")
	if len(out.Fallbacks) != 0 || len(out.Hits) == 0 || out.Hits[0].Title != "Télétravail" {
		t.Fatalf("hybrid search: %+v", out)
	}
	sem := kbSearch(t, h, "vec", "--mode", "semantic", "télétravail semaine")
	if len(sem.Fallbacks) != 0 || len(sem.Hits) == 0 || sem.Hits[0].Title != "Télétravail" {
		t.Fatalf("semantic search: %+v", sem)
	}

	// Without the model, the base is searched by keywords, and says why;
	// adding to it is refused, naming the model it needs.
	delete(h.env, "MOTEUR_EMBED_MODEL")
	out = kbSearch(t, h, "vec", "télétravail")
	if len(out.Fallbacks) != 1 || !strings.Contains(out.Fallbacks[0].Reason, "no embedding model") || len(out.Hits) == 0 {
		t.Fatalf("search without the model: %+v", out)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.md"), []byte("# Nouveau\n\nTexte.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := h.run(t, "kb", "add", "vec", dir); res.code == 0 || !strings.Contains(res.stderr, "MOTEUR_EMBED_MODEL=bag-64") {
		t.Fatalf("kb add without the model: exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestKBSearchReranked(t *testing.T) {
	srv := newModelServer(t)
	h := newKBHarness(t)
	withBase(t, h, "docs")
	h.env["MOTEUR_RERANK_MODEL"], h.env["MOTEUR_RERANK_BASE_URL"] = "rr", srv.URL+"/v1"
	res := h.run(t, "kb", "search", "docs", "--json", "notes de frais remboursées")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	var out struct {
		Reranked bool `json:"reranked"`
		Hits     []struct {
			Title  string  `json:"title"`
			Rerank float64 `json:"rerank_score"`
		} `json:"hits"`
	}
	decodeOnly(t, res.stdout, &out)
	if !out.Reranked || len(out.Hits) == 0 || out.Hits[0].Title != "Notes de frais" || out.Hits[0].Rerank < 0.3 {
		t.Fatalf("result %+v", out)
	}
	if !strings.Contains(srv.received(), `"query":"notes de frais remboursées"`) {
		t.Fatalf("rerank request: %s", srv.received())
	}
}

func TestKBRmDocuments(t *testing.T) {
	h := newKBHarness(t)
	dir := withBase(t, h, "docs")
	res := h.run(t, "kb", "rm", "docs", filepath.Join(dir, "frais.md"), filepath.Join(dir, "nope.md"))
	if res.code != 2 || !strings.Contains(res.stdout, "Removed") || !strings.Contains(res.stderr, "nope.md") {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if out := kbSearch(t, h, "docs", "notes", "de", "frais"); len(out.Hits) != 0 {
		t.Fatalf("a removed document is still found: %+v", out.Hits)
	}
	if out := kbSearch(t, h, "docs", "télétravail"); len(out.Hits) == 0 {
		t.Fatal("the other documents were removed too")
	}
	if res := h.run(t, "kb", "rm", "missing", filepath.Join(dir, "conges.md")); res.code != 2 || !strings.Contains(res.stderr, "missing") {
		t.Fatalf("unknown base: exit %d, stderr %q", res.code, res.stderr)
	}
}

// An extractive answer that quoted a classified passage stays subject to
// the marking check: continuing its session with an agent on a remote model
// sends nothing.
func TestAskedClassifiedQuoteNeverLeaves(t *testing.T) {
	h := newKBHarness(t)
	dir := writeDocs(t, map[string]string{"alpha.md": "# Projet Alpha\n\nDIFFUSION RESTREINTE\n\nLe budget du projet Alpha est de trois millions d'euros.\n"})
	if res := h.run(t, "kb", "create", "docs"); res.code != 0 {
		t.Fatal(res.stderr)
	}
	if res := h.run(t, "kb", "add", "docs", dir); res.code != 0 {
		t.Fatal(res.stdout, res.stderr)
	}
	if res := h.run(t, "ask", "--new-session", "s-alpha", "budget du projet Alpha"); res.code != 0 || !strings.Contains(res.stdout, "trois millions") {
		t.Fatalf("ask: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	srv := openaitest.NewServer(t) // any request fails the test
	withModel(h, srv)
	res := h.run(t, "run", "--session", "s-alpha", "résume")
	if res.code == 0 || !strings.Contains(res.stderr, "sensitive") {
		t.Fatalf("run: exit %d, stderr %q; want a refusal: the session is sensitive", res.code, res.stderr)
	}
	evs := h.load(t, "s-alpha")
	classified := false
	for _, ev := range evs {
		if p, ok := ev.Payload.(event.SessionClassifiedPayload); ok && p.Marking == "DIFFUSION RESTREINTE" {
			classified = true
		}
	}
	if !classified {
		t.Fatal("the quick answer over a classified passage did not record SessionClassified")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the remote model", n)
	}
}

// A document under a classified path (classify: paths:) has no marking in
// its text, yet its passages never reach a remote model: the quick answer
// quotes them, and an agent that read them stops sending.
func TestClassifiedPathInAKnowledgeBase(t *testing.T) {
	h := newKBHarness(t)
	cfgDir := filepath.Join(h.env["XDG_CONFIG_HOME"], "moteur")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte("classify:\n  paths: [\"/**/dossiers/**\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	secret := filepath.Join(root, "dossiers")
	if err := os.MkdirAll(secret, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "fusion.md"), []byte("# Fusion\n\nLa fusion avec Beta est prévue pour mars.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := h.run(t, "kb", "create", "docs"); res.code != 0 {
		t.Fatal(res.stderr)
	}
	if res := h.run(t, "kb", "add", "docs", root); res.code != 0 {
		t.Fatal(res.stdout, res.stderr)
	}
	srv := openaitest.NewServer(t) // any request fails the test
	withModel(h, srv)
	res := h.run(t, "ask", "--new-session", "s-fusion", "quand est prévue la fusion avec Beta ?")
	if res.code != 0 || !strings.Contains(res.stdout, "mars") || !strings.Contains(res.stderr, "nothing was sent") {
		t.Fatalf("ask: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the remote model", n)
	}
	evs := h.load(t, "s-fusion")
	found := false
	for _, ev := range evs {
		if p, ok := ev.Payload.(event.SessionClassifiedPayload); ok && strings.Contains(p.Marking, "dossiers") {
			found = true
		}
	}
	if !found {
		t.Fatal("no SessionClassified naming the path rule")
	}
}

// The text of a document under a classified path never goes to a remote
// embedding server, though no marking shows in it.
func TestClassifiedPathNotEmbeddedRemotely(t *testing.T) {
	srv := newModelServer(t)
	h := newKBHarness(t)
	h.env["MOTEUR_EMBED_MODEL"], h.env["MOTEUR_EMBED_BASE_URL"] = "bag-64", srv.URL+"/v1"
	cfgDir := filepath.Join(h.env["XDG_CONFIG_HOME"], "moteur")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte("classify:\n  paths: [\"/**/dossiers/**\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := writeDocs(t, kbDocs)
	if err := os.MkdirAll(filepath.Join(root, "dossiers"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "dossiers", "fusion.md"), []byte("# Fusion\n\nLa fusion avec Beta est prévue pour mars.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := h.run(t, "kb", "create", "vec"); res.code != 0 {
		t.Fatal(res.stderr)
	}
	res := h.run(t, "kb", "add", "vec", root)
	if res.code != 1 || !strings.Contains(res.stdout, "3 added") || !strings.Contains(res.stdout, "fusion.md") || !strings.Contains(res.stdout, "not local") {
		t.Fatalf("kb add: exit %d, stdout %q", res.code, res.stdout)
	}
	if strings.Contains(srv.received(), "Beta") {
		t.Fatal("the classified document's text reached the embedding server")
	}
}
