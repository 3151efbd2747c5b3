package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/kb/analyze"
	"github.com/moteur/moteur/kb/retrieval"
	"github.com/moteur/moteur/provider/openai"
)

// With analysis off (a raw base), the keyword layer ranks and scores as
// SQLite's own bm25() over the same texts.
func TestRawKeywordAgreesWithSQLiteBM25(t *testing.T) {
	corpus := map[string]string{
		"a.txt": "The quick brown fox jumps over the lazy dog. The fox is quick.",
		"b.txt": "A lazy afternoon: the dog sleeps and the cat sleeps too.",
		"c.txt": "Foxes and dogs are not friends; a fox avoids dogs.",
		"d.txt": "Nothing here about animals, only the weather and the sea. Café crème, déjà vu.",
		"e.txt": "Quick quick quick: the word quick repeated, and one dog.",
	}
	s := openTest(t, Config{})
	b := mustCreate(t, s, "raw", CreateOptions{Analyzer: AnalyzerRaw})
	mustIngest(t, s, "raw", writeFiles(t, corpus))

	// The reference: a plain FTS5 table built by hand, same columns.
	db, err := sql.Open("sqlite", "file:"+s.path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec := func(q string, args ...any) {
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	mustExec(`CREATE VIRTUAL TABLE ref USING fts5(title, headings, body)`)
	rows, err := db.Query(`SELECT c.rowid, d.title, c.headings, c.text FROM kb_chunks c JOIN kb_documents d ON d.rowid = c.doc WHERE c.kb = ?`, b.rowid)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id                 int64
		title, heads, body string
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.title, &r.heads, &r.body); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	rows.Close()
	for _, r := range all {
		mustExec(`INSERT INTO ref (rowid, title, headings, body) VALUES (?, ?, ?, ?)`, r.id, r.title, r.heads, r.body)
	}
	for _, q := range []string{"quick fox", "dog", "lazy dog sleeps", "weather", "cafe DÉJÀ"} {
		got, _, err := s.keyword(context.Background(), b, q, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		words := strings.Fields(q)
		expr := `"` + strings.Join(words, `" OR "`) + `"`
		ref, err := db.Query(`SELECT rowid, -bm25(ref) FROM ref WHERE ref MATCH ? ORDER BY bm25(ref) LIMIT 10`, expr)
		if err != nil {
			t.Fatal(err)
		}
		var want []scored
		for ref.Next() {
			var sc scored
			if err := ref.Scan(&sc.row, &sc.raw); err != nil {
				t.Fatal(err)
			}
			want = append(want, sc)
		}
		ref.Close()
		if len(got) != len(want) || len(want) == 0 {
			t.Fatalf("%q: %d hits, SQLite %d", q, len(got), len(want))
		}
		for i := range want {
			if got[i].row != want[i].row || math.Abs(got[i].raw-want[i].raw) > 1e-9 {
				t.Fatalf("%q rank %d: row %d score %g, SQLite row %d score %g", q, i, got[i].row, got[i].raw, want[i].row, want[i].raw)
			}
		}
	}
}

// Weighted RRF on a hand-computed example (k = 60, weights 0.7 / 0.3):
//
//	vector  ranking: A B C      keyword ranking: C D A
//	A: 0.7/61 + 0.3/63 = 0.011475 + 0.004762 = 0.016237
//	B: 0.7/62          = 0.011290
//	C: 0.7/63 + 0.3/61 = 0.011111 + 0.004918 = 0.016029
//	D: 0.3/62          = 0.004839
//
// so A, C, B, D.
func TestRRFOrder(t *testing.T) {
	vec := []scored{{row: 'A'}, {row: 'B'}, {row: 'C'}}
	kw := []scored{{row: 'C'}, {row: 'D'}, {row: 'A'}}
	got := fuse(60, [][]scored{vec, kw}, []float64{0.7, 0.3})
	order := ""
	for _, sc := range got {
		order += string(rune(sc.row))
	}
	if order != "ACBD" {
		t.Fatalf("order %s, want ACBD", order)
	}
	if want := 0.7/61 + 0.3/63; math.Abs(got[0].score-want) > 1e-12 {
		t.Fatalf("A scores %g, want %g", got[0].score, want)
	}
}

func TestModeFallbacks(t *testing.T) {
	emb := newBag()
	s := openTest(t, Config{Embedder: emb})
	mustCreate(t, s, "both", CreateOptions{})
	mustCreate(t, s, "kw", CreateOptions{NoVectors: true})
	mustCreate(t, s, "vec", CreateOptions{NoKeyword: true})
	for _, b := range []string{"both", "kw", "vec"} {
		mustIngest(t, s, b, writeFiles(t, handbook))
	}
	cases := []struct {
		mode  Mode
		base  string
		to    Mode // "" for no fallback
		found bool
	}{
		{ModeHybrid, "both", "", true},
		{ModeKeyword, "both", "", true},
		{ModeSemantic, "both", "", true},
		{ModeKeyword, "vec", ModeSemantic, true},
		{ModeSemantic, "kw", ModeKeyword, true},
		{ModeHybrid, "kw", ModeKeyword, true},
		{ModeHybrid, "vec", ModeSemantic, true},
	}
	for _, c := range cases {
		res := search(t, s, Query{Text: "VPN network security laptops", Mode: c.mode, Bases: []string{c.base}})
		if res.RequestedMode != c.mode {
			t.Errorf("%s on %s: requested_mode %s", c.mode, c.base, res.RequestedMode)
		}
		switch {
		case c.to == "" && len(res.Fallbacks) != 0:
			t.Errorf("%s on %s: unexpected fallbacks %+v", c.mode, c.base, res.Fallbacks)
		case c.to != "" && (len(res.Fallbacks) != 1 || res.Fallbacks[0].To != c.to || res.Fallbacks[0].From != c.mode || res.Fallbacks[0].Reason == ""):
			t.Errorf("%s on %s: fallbacks %+v, want → %s", c.mode, c.base, res.Fallbacks, c.to)
		}
		if len(res.Hits) == 0 || res.Hits[0].Title != "Network security policy" {
			t.Errorf("%s on %s: hits %s", c.mode, c.base, titles(res.Hits))
		}
	}
}

// Without the embedding model its vectors came from, a base with both
// indexes is searched by keywords, and says why.
func TestFallbackWithoutEmbedder(t *testing.T) {
	s := openTest(t, Config{Embedder: newBag()})
	mustCreate(t, s, "both", CreateOptions{})
	mustIngest(t, s, "both", writeFiles(t, handbook))
	s.Close()
	plain := openTest(t, Config{Path: s.path})
	res := search(t, plain, Query{Text: "VPN", Mode: ModeSemantic})
	if len(res.Fallbacks) != 1 || res.Fallbacks[0].To != ModeKeyword || !strings.Contains(res.Fallbacks[0].Reason, "no embedding model") {
		t.Fatalf("fallbacks %+v", res.Fallbacks)
	}
	if len(res.Hits) == 0 {
		t.Fatal("no hit")
	}
	s2 := openTest(t, Config{Path: s.path})
	_, err := s2.Search(context.Background(), Query{Text: "x", Bases: []string{"nope"}})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown base: %v", err)
	}
}

func TestVectorOnlyBaseWithoutEmbedderIsNotSearchable(t *testing.T) {
	s := openTest(t, Config{Embedder: newBag()})
	mustCreate(t, s, "vec", CreateOptions{NoKeyword: true})
	s.Close()
	plain := openTest(t, Config{Path: s.path})
	if _, err := plain.Search(context.Background(), Query{Text: "VPN"}); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("err = %v, want ErrNoIndex", err)
	}
}

// rerankServer answers /rerank with the score its function gives each
// document, and counts the documents it was sent.
func rerankServer(t *testing.T, score func(doc string) float64) (*httptest.Server, *atomic.Int32) {
	var docs atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
		}
		if r.URL.Path != "/v1/rerank" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		docs.Add(int32(len(req.Documents)))
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		var out struct {
			Results []result `json:"results"`
		}
		for i, d := range req.Documents {
			out.Results = append(out.Results, result{i, score(d)})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv, &docs
}

func newReranker(t *testing.T, srv *httptest.Server) *openai.Reranker {
	r, err := openai.NewReranker(openai.RerankConfig{BaseURL: srv.URL + "/v1", Model: "rr"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRerankThresholds(t *testing.T) {
	docs := writeFiles(t, handbook)
	cases := []struct {
		name       string
		score      func(string) float64
		wantTitles string
		rejected   bool
	}{
		{"above threshold kept in rerank order", func(d string) float64 {
			switch {
			case strings.HasPrefix(d, "Expense reports\n"):
				return 0.9
			case strings.HasPrefix(d, "Network security policy\n"):
				return 0.5
			}
			return 0.1
		}, "Expense reports, Network security policy", false},
		{"none above 0.3: the best if at least 0.15", func(d string) float64 {
			if strings.HasPrefix(d, "Network security policy\n") {
				return 0.2
			}
			return 0.05
		}, "Network security policy", false},
		{"all below 0.15: rejected", func(string) float64 { return 0.1 }, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := rerankServer(t, c.score)
			s := openTest(t, Config{Reranker: newReranker(t, srv)})
			mustCreate(t, s, "docs", CreateOptions{})
			mustIngest(t, s, "docs", docs)
			res := search(t, s, Query{Text: "policy reports security expenses", Mode: ModeKeyword})
			if got := titles(res.Hits); got != c.wantTitles {
				t.Fatalf("hits %q, want %q", got, c.wantTitles)
			}
			if !res.Reranked || res.RerankRejected != c.rejected {
				t.Fatalf("reranked %v rejected %v", res.Reranked, res.RerankRejected)
			}
			if c.rejected && !strings.Contains(res.Hint, "keyword") {
				t.Fatalf("hint %q does not suggest keyword mode", res.Hint)
			}
			if len(res.Hits) > 0 && res.Hits[0].Rerank == 0 {
				t.Fatal("hit carries no rerank score")
			}
		})
	}
}

// At most RerankMax candidates go to the reranker.
func TestRerankCandidateCap(t *testing.T) {
	files := map[string]string{}
	for i := range 12 {
		files[fmt.Sprintf("f%02d.md", i)] = fmt.Sprintf("# Note %d\n\nLe mot clé apparaît dans la note %d.\n", i, i)
	}
	srv, sent := rerankServer(t, func(string) float64 { return 0.9 })
	s := openTest(t, Config{Reranker: newReranker(t, srv), Retrieval: retrieval.Settings{RerankMax: 5}})
	mustCreate(t, s, "docs", CreateOptions{})
	mustIngest(t, s, "docs", writeFiles(t, files))
	search(t, s, Query{Text: "mot clé", Mode: ModeKeyword})
	if n := sent.Load(); n != 5 {
		t.Fatalf("%d candidates sent to the reranker, want 5", n)
	}
}

// Near-copies of a passage (the same paragraph in two files, a word
// changed) are kept out by MMR when their embeddings tell; exact copies are
// dropped before. Without embeddings a word changed is not a copy (term
// sets cannot tell it from a templated page that answers another question,
// mmr.go): it is kept, after the distinct passage.
func TestMMRRemovesNearDuplicates(t *testing.T) {
	para := "La procédure de sauvegarde copie chaque nuit les serveurs de fichiers vers le site de secours, avec une rétention de trente jours."
	files := map[string]string{
		"a.md": "# Sauvegarde A\n\n" + para + "\n",
		"b.md": "# Sauvegarde B\n\n" + para + "\n",
		"c.md": "# Sauvegarde C\n\n" + strings.Replace(para, "trente", "quarante", 1) + "\n",
		"d.md": "# Restauration\n\nLa restauration d'une sauvegarde se demande au support, avec le nom du serveur et la date voulue.\n",
	}
	// The rest of the handbook, so that BM25's document frequencies are
	// those of a corpus and not of four near-copies.
	for name, text := range handbook {
		files[name] = text
	}
	for _, emb := range []*bagEmbedder{nil, newBag()} {
		cfg := Config{}
		if emb != nil {
			cfg.Embedder = emb
		}
		s := openTest(t, cfg)
		mustCreate(t, s, "docs", CreateOptions{})
		mustIngest(t, s, "docs", writeFiles(t, files))
		res := search(t, s, Query{Text: "sauvegarde serveurs fichiers site de secours restauration"})
		exact, changed, restore := -1, -1, -1 // positions
		copies := 0
		for i, h := range res.Hits {
			switch h.Title {
			case "Sauvegarde A", "Sauvegarde B":
				copies++
				exact = i
			case "Sauvegarde C":
				changed = i
			case "Restauration":
				restore = i
			}
		}
		switch {
		case copies > 1 || restore < 0:
			t.Errorf("embeddings %v: hits %s, want at most one of the exact copies, and Restauration", emb != nil, titles(res.Hits))
		case emb != nil && (exact >= 0) == (changed >= 0):
			t.Errorf("embeddings: hits %s, want one of the three near-copies", titles(res.Hits))
		case emb == nil && (exact < 0 || changed < 0 || max(exact, changed) < restore):
			t.Errorf("no embeddings: hits %s, want an exact copy and the one with a word changed, the second after Restauration", titles(res.Hits))
		}
	}
}

func TestMMRPrefersDiversity(t *testing.T) {
	// Two hits of equal relevance and one close to the first: λ = 0.7
	// takes the distinct one second.
	hits := []Hit{
		{Chunk: "a", Score: 1, terms: "alpha beta gamma delta"},
		{Chunk: "b", Score: 0.9, terms: "alpha beta gamma epsilon"},
		{Chunk: "c", Score: 0.85, terms: "zeta eta theta iota"},
	}
	got := mmr(hits, 3, 0.7)
	if got[0].Chunk != "a" || got[1].Chunk != "c" || got[2].Chunk != "b" {
		t.Fatalf("order %s %s %s, want a c b", got[0].Chunk, got[1].Chunk, got[2].Chunk)
	}
}

func TestThresholdsRejectEverything(t *testing.T) {
	s := openTest(t, Config{})
	mustCreate(t, s, "docs", CreateOptions{})
	mustIngest(t, s, "docs", writeFiles(t, handbook))
	res := search(t, s, Query{Text: "zeppelin"})
	if len(res.Hits) != 0 || !strings.Contains(res.Hint, "keyword") {
		t.Fatalf("res %+v", res)
	}
}

func TestOpenRefusesInvalidRetrieval(t *testing.T) {
	bad := retrieval.Settings{VectorThreshold: 1.5}
	if _, err := Open(context.Background(), Config{Path: t.TempDir() + "/x.db", Retrieval: bad}); err == nil {
		t.Error("Open accepted invalid retrieval settings")
	}
}

// Terms held by half of the passages or more add nothing to BM25 in FTS5
// (their IDF is clamped to 10⁻⁶): they are left out of the query when a
// rarer term remains, and the ranking is the same.
func TestCommonTermsLeftOut(t *testing.T) {
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("n%d.md", i)] = fmt.Sprintf("# Note %d\n\nLe serveur commun répond. Version %d.\n", i, i)
	}
	files["n9.md"] = "# Note 9\n\nLe serveur commun tombe en panne le lundi.\n"
	s := openTest(t, Config{})
	b := mustCreate(t, s, "docs", CreateOptions{})
	mustIngest(t, s, "docs", writeFiles(t, files))
	b, _ = s.Base(context.Background(), "docs")
	ctx := context.Background()
	terms := func(q string) []string { return analyze.QueryTerms(q, analyze.Options{}) }
	kept, err := s.dropCommon(ctx, b, terms("serveur commun panne"))
	if err != nil || strings.Join(kept, " ") != strings.Join(terms("panne"), " ") {
		t.Fatalf("kept %v, %v; want only panne's term", kept, err)
	}
	if kept, _ := s.dropCommon(ctx, b, terms("serveur commun")); len(kept) != 2 {
		t.Fatalf("a query of common terms only must keep them: %v", kept)
	}
	// A term no passage holds is no reason to leave the others out.
	if kept, _ := s.dropCommon(ctx, b, terms("serveur commun zeppelin")); len(kept) != 3 {
		t.Fatalf("common terms dropped for a term found nowhere: %v", kept)
	}
	res := search(t, s, Query{Text: "serveur commun en panne", Mode: ModeKeyword})
	if len(res.Hits) == 0 || res.Hits[0].Title != "Note 9" {
		t.Fatalf("hits %s", titles(res.Hits))
	}
	raw := mustCreate(t, s, "raw", CreateOptions{Analyzer: AnalyzerRaw})
	if kept, _ := s.dropCommon(ctx, raw, terms("serveur panne")); len(kept) != 2 {
		t.Fatalf("a raw base keeps every term: %v", kept)
	}
}
