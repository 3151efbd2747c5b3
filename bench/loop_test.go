package bench

import (
	"context"
	"testing"
)

// looper is one agent loop playing the turn.
type looper interface {
	Turn(ctx context.Context) (answer string, results int, err error)
}

func newLoop(tb testing.TB, name string) looper {
	tb.Helper()
	switch name {
	case "moteur":
		m, err := NewMoteurLoop()
		if err != nil {
			tb.Fatal(err)
		}
		return m
	case "eino":
		return NewEinoLoop()
	}
	tb.Fatalf("no loop %q", name)
	return nil
}

var loopNames = []string{"moteur", "eino"}

// TestLoopsPlayTheScript checks that each loop runs the whole script: the
// answer comes after every round's two tool results, so the benchmark
// measures the same work on both.
func TestLoopsPlayTheScript(t *testing.T) {
	for _, name := range loopNames {
		answer, results, err := newLoop(t, name).Turn(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if answer != answerText || results != 2*Rounds {
			t.Errorf("%s: answer %q after %d tool results, want %q after %d", name, answer, results, answerText, 2*Rounds)
		}
	}
}

// BenchmarkTurn plays engine.BenchmarkTurn's turn (10 rounds × 2 calls,
// 50 tools, scripted model) on each loop, built per turn.
func BenchmarkTurn(b *testing.B) {
	for _, name := range loopNames {
		b.Run(name, func(b *testing.B) {
			l := newLoop(b, name)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, n, err := l.Turn(ctx); err != nil || n != 2*Rounds {
					b.Fatalf("%d tool results, %v", n, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/Rounds, "ns/round")
		})
	}
}
