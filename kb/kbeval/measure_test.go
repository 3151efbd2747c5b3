package kbeval

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/retrieval"
)

// TestMeasureStore prints the store's keyword figures on every set for the
// analyzers in MOTEUR_MEASURE_ANALYZERS (comma-separated, default
// "moteur") at the keyword thresholds of MOTEUR_MEASURE_THRESHOLDS
// (default: retrieval's). It measures rather than checks, so it runs only
// when MOTEUR_MEASURE is set: go test ./kb/kbeval -run TestMeasureStore -v.
func TestMeasureStore(t *testing.T) {
	if os.Getenv("MOTEUR_MEASURE") == "" {
		t.Skip("set MOTEUR_MEASURE=1 to measure")
	}
	analyzers := []string{"moteur"}
	if v := os.Getenv("MOTEUR_MEASURE_ANALYZERS"); v != "" {
		analyzers = strings.Split(v, ",")
	}
	thresholds := []float64{retrieval.Default().KeywordThreshold}
	if v := os.Getenv("MOTEUR_MEASURE_THRESHOLDS"); v != "" {
		thresholds = nil
		for _, f := range strings.Split(v, ",") {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatal(err)
			}
			thresholds = append(thresholds, x)
		}
	}
	for _, name := range evalSets {
		set := loadNamed(t, name)
		for _, a := range analyzers {
			for _, th := range thresholds {
				rep, err := Run(context.Background(), set, Options{TempDir: t.TempDir(), Analyzer: a,
					Retrieval: retrieval.Settings{KeywordThreshold: th}})
				if err != nil {
					t.Fatal(err)
				}
				m, b := rep.Modes[0], rep.Baseline
				t.Logf("MEASURE %-13s %-9s th %.2f  store %.4f/%.4f/%.4f  bm25 %.4f/%.4f/%.4f",
					name, a, th, m.NDCG, m.Recall, m.MRR, b.NDCG, b.Recall, b.MRR)
			}
		}
	}
}
