package bench

import (
	"context"
	"path/filepath"
	"testing"
)

// ingestSize is the corpus of the ingestion benchmarks, in passages.
const ingestSize = 10_000

// BenchmarkIngest measures, in MB/s of the corpus's documents, Moteur's
// ingestion of them (kb.Store.Ingest: read, parse, chunk, analyse, index,
// commit, into a new base of the default analyzer) against bleve's indexing
// of the same passages (already cut: bleve neither parses nor chunks) into
// a new index on disk, closed at the end.
func BenchmarkIngest(b *testing.B) {
	b.Run("moteur", func(b *testing.B) {
		c := loadCorpus(b, "", ingestSize)
		b.SetBytes(c.Bytes)
		for b.Loop() {
			rep, err := IngestMoteur(context.Background(), filepath.Join(b.TempDir(), "moteur.db"), BaseDocs, "", c)
			if err != nil {
				b.Fatal(err)
			}
			if rep.Chunks != len(c.Passages) {
				b.Fatalf("%d chunks stored, the corpus has %d passages", rep.Chunks, len(c.Passages))
			}
		}
	})
	b.Run("bleve", func(b *testing.B) {
		c := loadCorpus(b, "", ingestSize)
		b.SetBytes(c.Bytes)
		for b.Loop() {
			if err := IndexBleve(filepath.Join(b.TempDir(), "bleve"), c); err != nil {
				b.Fatal(err)
			}
		}
	})
}
