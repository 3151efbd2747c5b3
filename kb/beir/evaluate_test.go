package beir

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// oneQuery is a set with a single query q whose judgements are rels.
func oneQuery(rels map[string]int) Set {
	return Set{Queries: []Query{{ID: "q", Text: "x"}}, Qrels: map[string]map[string]int{"q": rels}}
}

func ranking(ids ...string) func(Query) ([]string, error) {
	return func(Query) ([]string, error) { return ids, nil }
}

func TestEvaluateOneQuery(t *testing.T) {
	// Judgements: a = 2 (gain 2²−1 = 3), b = 1 (gain 1), c = 0 (judged not
	// relevant, gain 0). Ranking at k = 3: x, a, b.
	//
	// DCG  = 0/log2(2) + 3/log2(3) + 1/log2(4) = 3/1.5849625 + 0.5 = 2.3927893
	// IDCG = 3/log2(2) + 1/log2(3)             = 3 + 0.6309298     = 3.6309298
	// nDCG = 2.3927893 / 3.6309298 = 0.6590018
	// recall = 2 relevant found / 2 relevant = 1
	// MRR = 1/2 (a, the first relevant, is second)
	set := oneQuery(map[string]int{"a": 2, "b": 1, "c": 0})
	got, err := Evaluate(set, 3, ranking("x", "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.NDCG-0.6590018) > 1e-7 || !approx(got.Recall, 1) || !approx(got.MRR, 0.5) || got.Queries != 1 {
		t.Errorf("got %+v, want nDCG 0.6590018 recall 1 MRR 0.5", got)
	}
}

func TestEvaluateCutoff(t *testing.T) {
	// Judgements: a = 1, b = 1. Ranking x, y, a, b at k = 2: nothing
	// relevant in the top 2, so nDCG = recall = MRR = 0. At k = 3:
	// DCG = 1/log2(4) = 0.5, IDCG = 1 + 1/log2(3) = 1.6309298,
	// nDCG = 0.3065736; recall = 1/2; MRR = 1/3.
	set := oneQuery(map[string]int{"a": 1, "b": 1})
	rank := ranking("x", "y", "a", "b")
	got, err := Evaluate(set, 2, rank)
	if err != nil {
		t.Fatal(err)
	}
	if got.NDCG != 0 || got.Recall != 0 || got.MRR != 0 {
		t.Errorf("k=2: got %+v, want zeros", got)
	}
	got, err = Evaluate(set, 3, rank)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.NDCG-0.3065736) > 1e-7 || !approx(got.Recall, 0.5) || !approx(got.MRR, 1.0/3) {
		t.Errorf("k=3: got %+v", got)
	}
}

func TestEvaluateIdealIsCutAtK(t *testing.T) {
	// Three documents of relevance 1, k = 1, ranking a: DCG = 1, and the
	// ideal DCG at k = 1 is also 1 (not 1 + 0.63 + 0.5): nDCG = 1, while
	// recall = 1/3.
	set := oneQuery(map[string]int{"a": 1, "b": 1, "c": 1})
	got, err := Evaluate(set, 1, ranking("a"))
	if err != nil {
		t.Fatal(err)
	}
	if !approx(got.NDCG, 1) || !approx(got.Recall, 1.0/3) || !approx(got.MRR, 1) {
		t.Errorf("got %+v", got)
	}
}

func TestEvaluateMacroAverage(t *testing.T) {
	// q1 finds its document first (1, 1, 1); q2 finds nothing (0, 0, 0):
	// every average is 1/2.
	set := Set{
		Queries: []Query{{ID: "q1"}, {ID: "q2"}},
		Qrels:   map[string]map[string]int{"q1": {"a": 1}, "q2": {"b": 2}},
	}
	got, err := Evaluate(set, 10, ranking("a"))
	if err != nil {
		t.Fatal(err)
	}
	if !approx(got.NDCG, 0.5) || !approx(got.Recall, 0.5) || !approx(got.MRR, 0.5) || got.Queries != 2 {
		t.Errorf("got %+v", got)
	}
}

func TestEvaluateDuplicatesCountOnce(t *testing.T) {
	// Ranking a, a, b at k = 2 is read as a, b: both relevant documents are
	// in the top 2 (recall 1), not a twice.
	set := oneQuery(map[string]int{"a": 1, "b": 1})
	got, err := Evaluate(set, 2, ranking("a", "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if !approx(got.Recall, 1) || !approx(got.NDCG, 1) {
		t.Errorf("got %+v", got)
	}
}

func TestEvaluateNoRelevantScoresZero(t *testing.T) {
	set := oneQuery(map[string]int{"a": 0})
	got, err := Evaluate(set, 10, ranking("a"))
	if err != nil {
		t.Fatal(err)
	}
	if got != (Scores{Queries: 1}) {
		t.Errorf("got %+v, want zeros", got)
	}
}

func TestEvaluateErrors(t *testing.T) {
	set := oneQuery(map[string]int{"a": 1})
	if _, err := Evaluate(set, 0, ranking("a")); err == nil || !strings.Contains(err.Error(), "k = 0") {
		t.Errorf("k = 0: err = %v", err)
	}
	if _, err := Evaluate(Set{}, 10, ranking("a")); err == nil || !strings.Contains(err.Error(), "no queries") {
		t.Errorf("no queries: err = %v", err)
	}
	boom := errors.New("boom")
	_, err := Evaluate(set, 10, func(Query) ([]string, error) { return nil, boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "query q") {
		t.Errorf("rank error: err = %v", err)
	}
}
