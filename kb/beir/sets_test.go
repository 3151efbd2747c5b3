package beir

import (
	"testing"
)

// generatedSets are the sets kb/beir/internal/gensets builds from text
// installed on the machine (manual pages, Go documentation), with the
// least documents and queries each had when generated.
var generatedSets = []struct {
	dir             string
	docs, queries   int
	maxRelevantPerQ int
}{
	{"testdata/man-en", 1500, 1100, 20},
	{"testdata/man-i18n", 650, 700, 20},
	{"testdata/go-doc", 300, 300, 20},
}

// TestGeneratedSets checks that each generated set loads, is as large as
// when it was generated, and judges every query: Load keeps only the
// queries with a judgement, so a query left without one would be missing
// from the count.
func TestGeneratedSets(t *testing.T) {
	for _, g := range generatedSets {
		set, err := Load(g.dir)
		if err != nil {
			t.Fatalf("%s: %v", g.dir, err)
		}
		if len(set.Corpus) < g.docs || len(set.Queries) < g.queries {
			t.Errorf("%s: %d documents and %d queries, want at least %d and %d", g.dir, len(set.Corpus), len(set.Queries), g.docs, g.queries)
		}
		if n := countLines(t, g.dir+"/queries.jsonl"); n != len(set.Queries) {
			t.Errorf("%s: %d queries in the file, %d judged", g.dir, n, len(set.Queries))
		}
		for _, q := range set.Queries {
			if n := len(set.Qrels[q.ID]); n > g.maxRelevantPerQ {
				t.Errorf("%s: query %s %q judges %d documents relevant: too vague to rank", g.dir, q.ID, q.Text, n)
			}
		}
		for _, d := range set.Corpus {
			if d.Text == "" {
				t.Errorf("%s: document %s is empty", g.dir, d.ID)
			}
		}
	}
}
