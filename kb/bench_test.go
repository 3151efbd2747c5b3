package kb

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/kb/chunk"
	"github.com/moteur/moteur/kb/parse"
)

// vocabulary is a synthetic language: a few thousand words drawn with a
// Zipf law, as words are in real text, so that BM25's posting lists have
// realistic lengths.
type vocabulary struct {
	words []string
	zipf  *rand.Zipf
}

func newVocabulary(seed uint64, n int) *vocabulary {
	r := rand.New(rand.NewPCG(seed, seed))
	v := &vocabulary{zipf: rand.NewZipf(r, 1.1, 2, uint64(n-1))}
	syll := []string{"ka", "lo", "mi", "ré", "sa", "tu", "vé", "no", "pi", "gra", "der", "sel", "mon", "ti", "ba"}
	for i := range n {
		w := ""
		for x := i + 1; x > 0; x /= len(syll) {
			w += syll[x%len(syll)]
		}
		v.words = append(v.words, w)
	}
	return v
}

func (v *vocabulary) sentence(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = v.words[v.zipf.Uint64()]
	}
	return strings.Join(ws, " ") + "."
}

// markdown is a document of about size bytes.
func (v *vocabulary) markdown(title string, size int) string {
	var sb strings.Builder
	sb.WriteString("# " + title + "\n\n")
	for s := 0; sb.Len() < size; s++ {
		if s%8 == 0 {
			sb.WriteString("## " + v.sentence(3) + "\n\n")
		}
		for range 4 {
			sb.WriteString(v.sentence(12) + " ")
		}
		sb.WriteString("\n\n")
	}
	return sb.String()
}

// BenchmarkIngestMarkdown measures ingestion (read, parse, chunk, analyse,
// index, one committed transaction per file), in MB/s of Markdown, into a
// base of the default analyzer; the named variants into a base of theirs.
func BenchmarkIngestMarkdown(b *testing.B) { benchIngestMarkdown(b, "") }

func BenchmarkIngestMarkdownMoteur(b *testing.B) { benchIngestMarkdown(b, AnalyzerMoteur) }

func BenchmarkIngestMarkdownSnowball(b *testing.B) { benchIngestMarkdown(b, AnalyzerSnowball) }

func benchIngestMarkdown(b *testing.B, analyzer string) {
	v := newVocabulary(1, 5000)
	dir := b.TempDir()
	var total int64
	for i := range 50 {
		text := v.markdown(fmt.Sprintf("Document %d", i), 40<<10)
		total += int64(len(text))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("d%02d.md", i)), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(total)
	for i := 0; b.Loop(); i++ {
		s := openTest(b, Config{Path: filepath.Join(b.TempDir(), "moteur.db")})
		mustCreate(b, s, "docs", CreateOptions{Analyzer: analyzer})
		rep := mustIngest(b, s, "docs", dir)
		if rep.Failed > 0 {
			b.Fatal(rep)
		}
		s.Close()
	}
}

// bulkLoad fills base b with n synthetic chunks of about 60 words, in one
// transaction per thousand (the benchmarks measure search, not this).
func bulkLoad(b *testing.B, s *Store, base Base, n int, emb *bagEmbedder) {
	v := newVocabulary(2, 20000)
	ctx := context.Background()
	for start := 0; start < n; start += 1000 {
		err := s.write(ctx, func(tx *sql.Tx) error {
			for d := start; d < min(start+1000, n); d += 10 {
				doc := parse.Document{Title: "Doc " + v.sentence(2), Format: "markdown"}
				var chunks []chunk.Chunk
				for i := range 10 {
					chunks = append(chunks, chunk.Chunk{Index: i, Text: v.sentence(30) + " " + v.sentence(30), Headings: []string{doc.Title}, Kind: "text"})
				}
				var vecs [][]float32
				if emb != nil {
					texts := make([]string, len(chunks))
					for i, c := range chunks {
						texts[i] = c.Text
					}
					vecs, _ = emb.Embed(ctx, texts)
					for _, vec := range vecs {
						normalize(vec)
					}
				}
				res, err := tx.ExecContext(ctx, `INSERT INTO kb_documents (id, kb, path, title, format, sha256, size, chunks, ingested_at)
					VALUES (?, ?, ?, ?, 'markdown', '', 0, ?, 0)`, fmt.Sprintf("d-%d", d), base.rowid, fmt.Sprintf("/doc/%d", d), doc.Title, len(chunks))
				if err != nil {
					return err
				}
				row, _ := res.LastInsertId()
				if err := insertChunks(ctx, tx, base, row, fmt.Sprintf("d-%d", d), "", indexText(base, "", doc.Title), chunks, vecs); err != nil {
					return err
				}
			}
			return bump(ctx, tx, base, 1)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// benchSearch runs queries in mode over n chunks and reports the latency
// percentiles of single queries.
func benchSearch(b *testing.B, n int, mode Mode) {
	var emb *bagEmbedder
	cfg := Config{Path: filepath.Join(b.TempDir(), "moteur.db")}
	if mode != ModeKeyword {
		emb = &bagEmbedder{model: "bag-384", dims: 384}
		cfg.Embedder = emb
	}
	s := openTest(b, cfg)
	base := mustCreate(b, s, "docs", CreateOptions{})
	bulkLoad(b, s, base, n, emb)
	v := newVocabulary(2, 20000)
	queries := make([]string, 200)
	for i := range queries {
		queries[i] = v.sentence(5)
	}
	ctx := context.Background()
	if _, err := s.Search(ctx, Query{Text: queries[0], Mode: mode}); err != nil { // loads the vectors
		b.Fatal(err)
	}
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, err := s.Search(ctx, Query{Text: queries[i%len(queries)], Mode: mode}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, m := range []Mode{ModeKeyword, ModeHybrid} {
			b.Run(fmt.Sprintf("%s/%dk", m, n/1000), func(b *testing.B) { benchSearch(b, n, m) })
		}
	}
}

// BenchmarkFootprint100k reports what 100 000 chunks cost: the database
// on disk, and the memory of the vector cache (384 dimensions).
func BenchmarkFootprint100k(b *testing.B) {
	emb := &bagEmbedder{model: "bag-384", dims: 384}
	path := filepath.Join(b.TempDir(), "moteur.db")
	s := openTest(b, Config{Path: path, Embedder: emb})
	base := mustCreate(b, s, "docs", CreateOptions{})
	bulkLoad(b, s, base, 100_000, emb)
	base, _ = s.Base(context.Background(), "docs")
	var before, after runtime.MemStats
	for b.Loop() {
		s.dropVectors(base.ID)
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := s.vectors(context.Background(), base); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
	}
	size := int64(0)
	for _, suffix := range []string{"", "-wal"} {
		if st, err := os.Stat(path + suffix); err == nil {
			size += st.Size()
		}
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-vectors")
	b.ReportMetric(float64(size)/(1<<20), "MB-db")
}
