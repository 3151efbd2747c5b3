package main

import (
	"strings"
	"testing"
)

// TestRatios takes the medians over runs and divides Moteur's by its
// peer's, pair by pair.
func TestRatios(t *testing.T) {
	in := `goos: linux
BenchmarkSearch/10k/moteur-2   	 600	 2000000 ns/op	 1.0 p50-ms	 3.0 p95-ms
BenchmarkSearch/10k/bleve-2    	 600	 1000000 ns/op	 2.0 p50-ms	 1.0 p95-ms
BenchmarkSearch/10k/moteur-2   	 600	 4000000 ns/op	 3.0 p50-ms	 3.0 p95-ms
BenchmarkSearch/10k/bleve-2    	 600	 1000000 ns/op	 2.0 p50-ms	 1.0 p95-ms
BenchmarkSearch/10k/moteur-2   	 600	 3000000 ns/op	 2.0 p50-ms	 3.0 p95-ms
PASS
`
	var out strings.Builder
	if err := run(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"BenchmarkSearch/10k/moteur", "n=3", "3e+06 ns/op", "moteur ÷ bleve:  ns/op ×3.00  p50-ms ×1.00  p95-ms ×3.00"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRatiosRefusesEmptyInput(t *testing.T) {
	if err := run(strings.NewReader("PASS\n"), &strings.Builder{}); err == nil {
		t.Error("no error for an input without results")
	}
}
