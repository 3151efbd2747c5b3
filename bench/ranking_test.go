package bench

import (
	"context"
	"testing"

	"github.com/moteur/moteur/kb/beir"
)

// bleve, set up as BleveRanking does, finds the one document that holds a
// query's words first, and scores a set where it always does as perfect.
func TestBleveRankingFindsTheDocument(t *testing.T) {
	set := beir.Set{
		Corpus: []beir.Doc{
			{ID: "a", Title: "Tar archives", Text: "Reading and writing tar archives."},
			{ID: "b", Title: "Network sockets", Text: "Listening on a TCP port."},
			{ID: "c", Title: "Images", Text: "Decoding PNG images."},
		},
		Queries: []beir.Query{{ID: "1", Text: "tcp port listening"}, {ID: "2", Text: "archive"}},
		Qrels:   map[string]map[string]int{"1": {"b": 1}, "2": {"a": 1}},
	}
	s, err := BleveRanking(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	if s.NDCG != 1 || s.Recall != 1 || s.MRR != 1 {
		t.Fatalf("scores %+v, want 1 each", s)
	}
}
