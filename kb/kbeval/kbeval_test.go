package kbeval

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/beir"
)

// wordsEmbedder hashes a text's lower-cased words into 256 buckets: enough
// for the semantic and hybrid modes to run without a model.
type wordsEmbedder struct{}

func (wordsEmbedder) Model() string { return "words-256" }

func (wordsEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 256)
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%256]++
		}
		out[i] = v
	}
	return out, nil
}

func loadSet(t *testing.T) beir.Set {
	t.Helper()
	set, err := beir.Load("../beir/testdata/moteur-fr-en")
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// Moteur's default keyword search beats SQLite FTS5's plain bm25() on the
// shipped set: the README says so.
func TestKeywordBeatsBaseline(t *testing.T) {
	set := loadSet(t)
	done := 0
	rep, err := Run(context.Background(), set, Options{TempDir: t.TempDir(), Progress: func(d, _ int) { done = d }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Modes) != 1 || rep.Modes[0].Name != "keyword" || rep.Baseline.Name == "" {
		t.Fatalf("report %+v", rep)
	}
	kw, base := rep.Modes[0], rep.Baseline
	t.Logf("keyword nDCG@10 %.3f recall@10 %.3f MRR@10 %.3f; baseline %.3f %.3f %.3f", kw.NDCG, kw.Recall, kw.MRR, base.NDCG, base.Recall, base.MRR)
	if kw.NDCG <= base.NDCG || kw.MRR <= base.MRR {
		t.Fatalf("keyword %+v does not beat the baseline %+v", kw, base)
	}
	if done != len(set.Corpus) || rep.Documents != len(set.Corpus) || rep.Queries != len(set.Queries) {
		t.Fatalf("progress %d, report %d documents %d queries", done, rep.Documents, rep.Queries)
	}
}

func TestEveryModeWithAnEmbedder(t *testing.T) {
	rep, err := Run(context.Background(), loadSet(t), Options{TempDir: t.TempDir(), Embedder: wordsEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range rep.Modes {
		names = append(names, m.Name)
		if m.NDCG <= 0 || m.NDCG > 1 {
			t.Errorf("%s nDCG@10 %g", m.Name, m.NDCG)
		}
	}
	if strings.Join(names, ",") != "keyword,semantic,hybrid" {
		t.Fatalf("modes %v", names)
	}
}

// Options.Analyzer reaches the base Run creates: an analyzer the store does
// not know fails the run, naming it.
func TestRunAnalyzerReachesTheBase(t *testing.T) {
	set := loadSet(t)
	if _, err := Run(context.Background(), set, Options{TempDir: t.TempDir(), Analyzer: "klingon"}); err == nil || !strings.Contains(err.Error(), `"klingon"`) {
		t.Fatalf("unknown analyzer: err = %v", err)
	}
	rep, err := Run(context.Background(), set, Options{TempDir: t.TempDir(), Analyzer: "raw"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Modes[0].NDCG <= 0 {
		t.Fatalf("raw base: %+v", rep.Modes[0])
	}
}

func TestKeywordIndexUnknownAnalysis(t *testing.T) {
	_, err := NewKeywordIndex(context.Background(), loadSet(t), "stemless")
	if err == nil || !strings.Contains(err.Error(), `unknown analysis "stemless"`) {
		t.Fatalf("err = %v", err)
	}
}

// A query of stop words only and a query of 10,000 terms both rank: the
// first through the analysis's fallback, the second without error.
func TestKeywordIndexBadQueries(t *testing.T) {
	ctx := context.Background()
	ix, err := NewKeywordIndex(ctx, loadSet(t), AnalysisSnowball)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if terms := ix.QueryTerms("le la les de des"); len(terms) == 0 {
		t.Fatal("a query of stop words has no terms")
	}
	words := make([]string, 10000)
	for i := range words {
		words[i] = fmt.Sprintf("mot%d", i)
	}
	words[5000] = "passe"
	got, err := ix.Rank(ctx, strings.Join(words, " "), KeywordOptions{})
	if err != nil || len(got) == 0 {
		t.Fatalf("10,000 terms: %d documents, err %v", len(got), err)
	}
}
