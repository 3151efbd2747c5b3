package bench

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// benchSizes are the corpus sizes of the search benchmarks, in passages.
var benchSizes = []int{10_000, 100_000}

// warmQueries are run before the measure: an engine's first search loads
// its index (Moteur's inverted index, bleve's segments, SQLite's pages).
const warmQueries = 20

// BenchmarkSearch measures single keyword searches over the same passages
// and the same queries on each engine, and reports their latency
// percentiles (p50-ms, p95-ms) besides the mean (ns/op). The corpus and
// the indexes are built on first use and cached under corpus.DefaultRoot.
func BenchmarkSearch(b *testing.B) {
	for _, n := range benchSizes {
		for _, name := range engineNames {
			b.Run(fmt.Sprintf("%dk/%s", n/1000, name), func(b *testing.B) {
				c := loadCorpus(b, "", n)
				s := openEngine(b, name, c)
				ctx := context.Background()
				for _, q := range c.Queries[:min(warmQueries, len(c.Queries))] {
					if _, err := s.Search(ctx, q); err != nil {
						b.Fatal(err)
					}
				}
				lat := make([]time.Duration, 0, 1024)
				hits := 0
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					start := time.Now()
					n, err := s.Search(ctx, c.Queries[i%len(c.Queries)])
					lat = append(lat, time.Since(start))
					if err != nil {
						b.Fatal(err)
					}
					hits += n
				}
				if hits == 0 {
					b.Fatal("no query found anything")
				}
				slices.Sort(lat)
				b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
				b.ReportMetric(ms(lat[len(lat)*95/100]), "p95-ms")
			})
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
