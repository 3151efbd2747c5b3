package kb

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/analyze"
	"modernc.org/libc"
)

// bruteForce scores every row of corpus for terms with bm25()'s formula
// written out once more from FTS5's documentation, and returns the best k,
// ties by rowid (rows are 1, 2, …).
func bruteForce(corpus []chunkTerms, w [3]float64, terms []string, k int) []scored {
	n := len(corpus)
	if n == 0 || k <= 0 {
		return nil
	}
	total := 0
	lens := make([]int, n)
	for i, ct := range corpus {
		for _, col := range ct {
			lens[i] += len(col)
		}
		total += lens[i]
	}
	avgdl := float64(total) / float64(n)
	k1, b := bm25K1, bm25B
	idf := make([]float64, len(terms))
	freq := make([][]float64, len(terms))
	for q, t := range terms {
		freq[q] = make([]float64, n)
		hits := 0
		for i, ct := range corpus {
			for c, col := range ct {
				for _, x := range col {
					if x == t {
						freq[q][i] += w[c]
					}
				}
			}
			if freq[q][i] > 0 {
				hits++
			}
		}
		idf[q] = libc.Xlog(nil, (float64(n-hits)+0.5)/(float64(hits)+0.5))
		if idf[q] <= 0 {
			idf[q] = 1e-6
		}
	}
	var all []scored
	for i := range corpus {
		score, matched := 0.0, false
		for q := range terms {
			f := freq[q][i]
			if f == 0 {
				continue
			}
			matched = true
			score += float64(idf[q] * (float64(f*(k1+1.0)) / (f + float64(k1*(1-b+float64(b*float64(lens[i]))/avgdl)))))
		}
		if matched {
			all = append(all, scored{row: int64(i + 1), raw: score})
		}
	}
	return worst(all).best()[:min(k, len(all))]
}

func buildIndex(t testing.TB, corpus []chunkTerms, w [3]float64) *keywordIndex {
	t.Helper()
	ix := &keywordIndex{}
	ib := newIndexBuilder(ix, w)
	for i, ct := range corpus {
		if err := ib.add(int64(i+1), encodeTerms(ct)); err != nil {
			t.Fatal(err)
		}
	}
	ib.finish()
	return ix
}

func sameTop(got, want []scored) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d hits, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].row != want[i].row || got[i].raw != want[i].raw {
			return fmt.Sprintf("rank %d: row %d score %v, want row %d score %v", i, got[i].row, got[i].raw, want[i].row, want[i].raw)
		}
	}
	return ""
}

// TestTopKPruningNeverChangesTopK: on random corpora and queries, MaxScore
// and term-at-a-time scoring return exactly the brute-force top k (rows,
// order, scores to the bit), while MaxScore scores to the end fewer
// passages than match, on some queries at least.
func TestTopKPruningNeverChangesTopK(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 1))
	pruned := 0
	for trial := range 300 {
		// Few words, so that scores tie often and lists overlap.
		vocab := make([]string, 2+r.IntN(40))
		for i := range vocab {
			vocab[i] = fmt.Sprintf("w%d", i)
		}
		zipf := rand.NewZipf(r, 1.2, 1, uint64(len(vocab)-1))
		corpus := make([]chunkTerms, 1+r.IntN(400))
		for i := range corpus {
			for c := range 3 {
				for range r.IntN([]int{4, 6, 30}[c]) {
					corpus[i][c] = append(corpus[i][c], vocab[zipf.Uint64()])
				}
			}
		}
		w := [3]float64{3, 1.5, 1}
		if trial%3 == 0 {
			w = [3]float64{1, 1, 1}
		}
		ix := buildIndex(t, corpus, w)
		for range 10 {
			var terms []string
			seen := map[string]bool{}
			for range 1 + r.IntN(8) {
				term := vocab[r.IntN(len(vocab))]
				if r.IntN(10) == 0 {
					term = "absent"
				}
				if !seen[term] {
					seen[term] = true
					terms = append(terms, term)
				}
			}
			k := 1 + r.IntN(20)
			want := bruteForce(corpus, w, terms, k)
			got, full := ix.maxScore(ix.cursors(terms), k)
			if d := sameTop(got, want); d != "" {
				t.Fatalf("trial %d, MaxScore, terms %v, k %d: %s", trial, terms, k, d)
			}
			if d := sameTop(ix.exhaustive(ix.cursors(terms), k), want); d != "" {
				t.Fatalf("trial %d, exhaustive, terms %v, k %d: %s", trial, terms, k, d)
			}
			if d := sameTop(ix.top(terms, k), want); d != "" {
				t.Fatalf("trial %d, top, terms %v, k %d: %s", trial, terms, k, d)
			}
			matching := len(bruteForce(corpus, w, terms, len(corpus)))
			if full < matching {
				pruned++
			}
		}
	}
	if pruned < 100 {
		t.Fatalf("MaxScore pruned on %d queries of 3000: the property was not exercised", pruned)
	}
	t.Logf("MaxScore skipped passages on %d queries of 3000", pruned)
}

// referenceFTS is a Moteur base's passages in an FTS5 table, as the base's
// keyword index was before kb_terms and as the "current scoring"
// ranks them: bm25() with the base's weights over each passage's title,
// heading path and body as indexText gives them, under analyze.Tokenizer.
type referenceFTS struct {
	s     *Store
	b     Base
	table string
}

// newReferenceFTS builds (again) the reference table of base b from its
// passages as they are now.
func newReferenceFTS(t testing.TB, s *Store, b Base) referenceFTS {
	t.Helper()
	ref := referenceFTS{s: s, b: b, table: fmt.Sprintf("ref_fts_%d", b.rowid)}
	ctx := context.Background()
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+ref.table); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, ftsDDL(ref.table, b.Analyzer)); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT c.rowid, d.title, c.headings, c.text FROM kb_chunks c
			JOIN kb_documents d ON d.rowid = c.doc WHERE c.kb = ?`, b.rowid)
		if err != nil {
			return err
		}
		var all [][4]any
		for rows.Next() {
			var row int64
			var title, heads, text string
			if err := rows.Scan(&row, &title, &heads, &text); err != nil {
				rows.Close()
				return err
			}
			all = append(all, [4]any{row, indexText(b, "", title), indexText(b, "", heads), indexText(b, "", text)})
		}
		rows.Close()
		for _, r := range all {
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+ref.table+` (rowid, title, headings, body) VALUES (?, ?, ?, ?)`, r[:]...); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// top is the reference's top k for terms: bm25() computed by SQLite.
func (ref referenceFTS) top(t testing.TB, terms []string, k int) []scored {
	t.Helper()
	out, err := ftsTop(context.Background(), ref.s.r, ref.table, weights(ref.b), terms, k)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// zipfCorpus writes n Markdown documents of the synthetic Zipf language.
func zipfCorpus(t testing.TB, n int) string {
	t.Helper()
	v := newVocabulary(7, 3000)
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("z%03d.md", i)] = v.markdown(fmt.Sprintf("Document %s", v.sentence(2)), 2000+i*37%3000)
	}
	for name, text := range handbook {
		files[name] = text
	}
	return writeFiles(t, files)
}

// TestKeywordIndexMatchesFTS5: on a fixed corpus ingested as usual, the
// memory index returns what the base's FTS5 table returns for the same
// terms by bm25() with the base's weights — the same rows in the same
// order, the same scores to the bit — for queries of one to many terms
// and pools from 1 to every match; and Store.keyword returns it.
func TestKeywordIndexMatchesFTS5(t *testing.T) {
	s := openTest(t, Config{})
	mustCreate(t, s, "docs", CreateOptions{Analyzer: AnalyzerMoteur})
	mustIngest(t, s, "docs", zipfCorpus(t, 60))
	ctx := context.Background()
	b, err := s.Base(ctx, "docs")
	if err != nil {
		t.Fatal(err)
	}
	ref := newReferenceFTS(t, s, b)
	ix, err := s.keywordIndex(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if ix.size() != b.Chunks || b.Chunks < 100 {
		t.Fatalf("index of %d rows, base of %d chunks", ix.size(), b.Chunks)
	}
	v := newVocabulary(7, 3000)
	queries := []string{"congés payés report", "ERR_4012 jeton", "télétravail semaine", "expense reports receipts",
		"network security VPN", "serveur de fichiers en panne"}
	for i := range 80 {
		queries = append(queries, v.sentence(1+i%9))
	}
	compared := 0
	for _, q := range queries {
		terms := ix.dropCommon(analyze.QueryTerms(q, analyze.Options{}))
		for _, k := range []int{1, 5, 30, 100000} {
			want := ref.top(t, terms, k)
			if d := sameTop(ix.top(terms, k), want); d != "" {
				t.Fatalf("query %q (terms %v), k %d: %s", q, terms, k, d)
			}
			compared += len(want)
		}
		if stopWordsOnly(b, q) {
			continue // answered by the phrase scan, not the index (phrase.go)
		}
		got, _, err := s.keyword(ctx, b, q, 30, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := ref.top(t, terms, 30)
		for i := range got {
			if got[i].row != want[i].row || got[i].raw != want[i].raw {
				t.Fatalf("keyword(%q) rank %d: row %d, FTS5 row %d", q, i, got[i].row, want[i].row)
			}
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d ranked rows compared", compared)
	}
}

// TestKeywordIndexFollowsWrites: a document added, replaced or removed, by
// this Store or another on the same file, is what the next search sees,
// exactly as FTS5 sees it.
func TestKeywordIndexFollowsWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, Config{Path: path})
	other := openTest(t, Config{Path: path, NewID: func() string { return "o" + randomID() }})
	mustCreate(t, s, "docs", CreateOptions{Analyzer: AnalyzerMoteur})
	dir := zipfCorpus(t, 10)
	mustIngest(t, s, "docs", dir)
	ctx := context.Background()
	check := func(step string) {
		t.Helper()
		b, err := s.Base(ctx, "docs")
		if err != nil {
			t.Fatal(err)
		}
		ref := newReferenceFTS(t, s, b)
		ix, err := s.keywordIndex(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		if ix.size() != b.Chunks {
			t.Fatalf("%s: index of %d rows, base of %d chunks", step, ix.size(), b.Chunks)
		}
		for _, q := range []string{"serveur panne", "congés report", "zeppelin unique", "kalo mire"} {
			terms := ix.dropCommon(analyze.QueryTerms(q, analyze.Options{}))
			want := ref.top(t, terms, 1000)
			if d := sameTop(ix.top(terms, 1000), want); d != "" {
				t.Fatalf("%s, query %q: %s", step, q, d)
			}
		}
	}
	check("ingested")
	if err := os.WriteFile(filepath.Join(dir, "erreurs.md"), []byte("# Codes\n\nLe serveur zeppelin unique tombe en panne.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Ingest(ctx, "docs", []string{dir}, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	check("replaced by another store")
	if res := search(t, s, Query{Text: "zeppelin", Mode: ModeKeyword}); len(res.Hits) != 1 || res.Hits[0].Title != "Codes" {
		t.Fatalf("after the other store's change: %s", titles(res.Hits))
	}
	if err := other.RemoveDocument(ctx, "docs", filepath.Join(dir, "erreurs.md")); err != nil {
		t.Fatal(err)
	}
	check("removed by another store")
	if res := search(t, s, Query{Text: "zeppelin", Mode: ModeKeyword}); len(res.Hits) != 0 {
		t.Fatalf("a removed document still found: %s", titles(res.Hits))
	}
}

// TestKeywordBadInput: a query of 10,000 terms and one of stop words only
// answer as FTS5 does; a base of 1,000,000 one-word passages answers a
// query of its commonest word after scoring only k of them.
func TestKeywordBadInput(t *testing.T) {
	s := openTest(t, Config{})
	mustCreate(t, s, "docs", CreateOptions{Analyzer: AnalyzerMoteur})
	mustIngest(t, s, "docs", zipfCorpus(t, 30))
	ctx := context.Background()
	b, _ := s.Base(ctx, "docs")
	ref := newReferenceFTS(t, s, b)
	ix, err := s.keywordIndex(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	v := newVocabulary(7, 3000)
	long := v.sentence(10_000)
	terms := ix.dropCommon(analyze.QueryTerms(long, analyze.Options{}))
	if len(terms) < 500 {
		t.Fatalf("the long query has only %d distinct terms", len(terms))
	}
	got, warn, err := s.keyword(ctx, b, long, 30, 0)
	if err != nil || len(got) != 30 {
		t.Fatalf("10,000 terms: %d hits, %v", len(got), err)
	}
	if !strings.Contains(warn, "pruning") {
		t.Fatalf("10,000 terms scored without pruning, and no warning: %q", warn)
	}
	if d := sameTop(got, ref.top(t, terms, 30)); d != "" {
		t.Fatalf("10,000 terms: %s", d)
	}

	for _, q := range []string{"le la les de et", "to be or not to be", "the of and"} {
		got, _, err := s.keyword(ctx, b, q, 30, 0)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		terms := ix.dropCommon(analyze.QueryTerms(q, analyze.Options{}))
		want := ref.top(t, terms, 30)
		if len(got) != len(want) {
			t.Fatalf("%q (terms %v): %d hits, FTS5 %d", q, terms, len(got), len(want))
		}
	}

	words := []string{"alpha", "beta", "gamma", "delta"}
	one := make([]chunkTerms, 1_000_000)
	for i := range one {
		one[i][2] = []string{words[i%len(words)]}
	}
	big := buildIndex(t, one, moteurWeights)
	top, full := big.maxScore(big.cursors([]string{"alpha", "zzz"}), 30)
	if len(top) != 30 || top[0].row != 1 || top[29].row != 1+29*4 {
		t.Fatalf("one-word passages: %v", top[:min(3, len(top))])
	}
	if full > 30 {
		t.Fatalf("one-word passages: %d passages scored for a top 30 of equal scores", full)
	}
	if d := sameTop(big.top([]string{"beta", "alpha"}, 30), big.exhaustive(big.cursors([]string{"beta", "alpha"}), 30)); d != "" {
		t.Fatalf("one-word passages, two terms: %s", d)
	}
}

// BenchmarkKeywordBadInput: the bad input of issue 18, per query.
func BenchmarkKeywordBadInput(b *testing.B) {
	v := newVocabulary(2, 20000)
	b.Run("terms-10000/10k", func(b *testing.B) {
		s := openTest(b, Config{Path: filepath.Join(b.TempDir(), "moteur.db")})
		base := mustCreate(b, s, "docs", CreateOptions{})
		bulkLoad(b, s, base, 10_000, nil)
		q := v.sentence(10_000)
		for b.Loop() {
			if _, err := s.Search(context.Background(), Query{Text: q, Mode: ModeKeyword}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stopwords/10k", func(b *testing.B) {
		s := openTest(b, Config{Path: filepath.Join(b.TempDir(), "moteur.db")})
		base := mustCreate(b, s, "docs", CreateOptions{})
		bulkLoad(b, s, base, 10_000, nil)
		for b.Loop() {
			if _, err := s.Search(context.Background(), Query{Text: "to be or not to be", Mode: ModeKeyword}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one-word-passages/1000k", func(b *testing.B) {
		words := strings.Fields(v.sentence(1000))
		one := make([]chunkTerms, 1_000_000)
		for i := range one {
			one[i][2] = []string{words[i%len(words)]}
		}
		ix := buildIndex(b, one, moteurWeights)
		q := []string{words[0], words[1], words[2]}
		for b.Loop() {
			if len(ix.top(ix.dropCommon(q), 30)) != 30 {
				b.Fatal("short")
			}
		}
	})
}

// BenchmarkKeywordIndexLoad measures building a base's memory index from
// kb_terms, paid once per generation.
func BenchmarkKeywordIndexLoad(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			s := openTest(b, Config{Path: filepath.Join(b.TempDir(), "moteur.db")})
			base := mustCreate(b, s, "docs", CreateOptions{})
			bulkLoad(b, s, base, n, nil)
			base, _ = s.Base(context.Background(), "docs")
			for b.Loop() {
				if _, err := s.loadKeywordIndex(context.Background(), base); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
