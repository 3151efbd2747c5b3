package kbeval

import (
	"context"
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
