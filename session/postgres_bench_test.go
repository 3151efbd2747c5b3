package session

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/internal/pgtest"
)

// The benchmarks of bench_test.go on PostgreSQL, and both back ends with 32
// sessions appending at once. PostgreSQL runs with its defaults
// (synchronous_commit=on: every commit flushes the server's WAL), on the
// same machine unless $MOTEUR_TEST_POSTGRES says otherwise.

// benchPG opens a Store on a new database; maxConns 0 is the pool's
// default.
func benchPG(b *testing.B, maxConns int32) *Postgres {
	b.Helper()
	s, err := OpenPostgres(context.Background(), PostgresConfig{URL: pgtest.Database(b), MaxConns: maxConns})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// BenchmarkPostgresAppend appends one event per transaction.
func BenchmarkPostgresAppend(b *testing.B) {
	s := benchPG(b, 0)
	ctx := context.Background()
	n := 0
	for b.Loop() {
		n++
		if err := s.Append(ctx, turnEvent("bench", uint64(n))); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, n)
}

// BenchmarkPostgresAppendWithHead is BenchmarkPostgresAppend with the
// audit head stored with each event.
func BenchmarkPostgresAppendWithHead(b *testing.B) {
	s := benchPG(b, 0)
	ctx := context.Background()
	head := [][]byte{make([]byte, HeadSize)}
	n := 0
	for b.Loop() {
		n++
		head[0][0] = byte(n)
		if err := s.AppendWithHeads(ctx, []event.Event{turnEvent("bench", uint64(n))}, head); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b, n)
}

// BenchmarkPostgresAppendBatch appends 100 events per transaction.
func BenchmarkPostgresAppendBatch(b *testing.B) {
	s := benchPG(b, 0)
	ctx := context.Background()
	const size = 100
	seq, n := uint64(0), 0
	batch := make([]event.Event, size)
	for b.Loop() {
		for i := range batch {
			seq++
			batch[i] = turnEvent("bench", seq)
		}
		if err := s.Append(ctx, batch...); err != nil {
			b.Fatal(err)
		}
		n += size
	}
	reportRate(b, n)
}

// BenchmarkPostgresLoad10k loads a session of 10 000 events: what
// restoring a session reads.
func BenchmarkPostgresLoad10k(b *testing.B) {
	s := benchPG(b, 0)
	ctx := context.Background()
	const total = 10_000
	for from := uint64(1); from <= total; from += 500 {
		var batch []event.Event
		for seq := from; seq < from+500; seq++ {
			batch = append(batch, turnEvent("big", seq))
		}
		if err := s.Append(ctx, batch...); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	for b.Loop() {
		evs, err := s.Load(ctx, "big")
		if err != nil || len(evs) != total {
			b.Fatalf("%d events, %v", len(evs), err)
		}
		n += total
	}
	reportRate(b, n)
}

// BenchmarkAppend32Sessions has 32 goroutines append one event per
// transaction, each to a session of its own, on each back end: SQLite
// (synchronous=FULL, its default) and PostgreSQL with the pool's default
// size and with a connection per session.
func BenchmarkAppend32Sessions(b *testing.B) {
	backends := []struct {
		name string
		open func(b *testing.B) Store
	}{
		{"sqlite", func(b *testing.B) Store { return benchStore(b, "") }},
		{"postgres/pool=default", func(b *testing.B) Store { return benchPG(b, 0) }},
		{"postgres/pool=32", func(b *testing.B) Store { return benchPG(b, 32) }},
	}
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			s := be.open(b)
			var sessions, appended atomic.Int64
			// RunParallel runs SetParallelism × GOMAXPROCS goroutines.
			b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0)))
			b.RunParallel(func(pb *testing.PB) {
				id := fmt.Sprintf("s%02d", sessions.Add(1))
				ctx := context.Background()
				seq := uint64(0)
				for pb.Next() {
					seq++
					if err := s.Append(ctx, turnEvent(id, seq)); err != nil {
						b.Error(err)
						return
					}
					appended.Add(1)
				}
			})
			b.ReportMetric(float64(sessions.Load()), "sessions")
			reportRate(b, int(appended.Load()))
		})
	}
}
