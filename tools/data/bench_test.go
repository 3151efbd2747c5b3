package data

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// benchCSV is a CSV of n rows: an id, one of 50 regions, an amount and a
// date.
func benchCSV(n int) []byte {
	var b strings.Builder
	b.Grow(n * 40)
	b.WriteString("id,region,amount,day\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,region %d,%d.%02d,2024-%02d-%02d\n", i, i%50, i%1000, i%100, i%12+1, i%28+1)
	}
	return []byte(b.String())
}

// BenchmarkLoadAndGroupBy loads a 1,000,000-row CSV into its database
// (MB/s) and runs a GROUP BY on it (query-ms).
func BenchmarkLoadAndGroupBy(b *testing.B) {
	data := benchCSV(1_000_000)
	b.SetBytes(int64(len(data)))
	ctx := context.Background()
	var query time.Duration
	for b.Loop() {
		p, err := parseDelimited("bench.csv", data, 0)
		if err != nil {
			b.Fatal(err)
		}
		ds, err := openDataset(ctx, p)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		start := time.Now()
		a, err := ds.query(ctx, "SELECT region, COUNT(*), SUM(amount), MAX(day) FROM dataset GROUP BY region ORDER BY 3 DESC", DefaultMaxRows, time.Minute)
		query += time.Since(start)
		if err != nil || a.total != 50 {
			b.Fatalf("GROUP BY: %d rows, %v", a.total, err)
		}
		_ = ds.close()
		b.StartTimer()
	}
	b.ReportMetric(float64(query.Milliseconds())/float64(b.N), "query-ms")
}
