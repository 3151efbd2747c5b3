package beir

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shipped is the small French and English test set of this repository:
// internal documentation of an imaginary company, Corvalis.
const shipped = "testdata/moteur-fr-en"

func loadShipped(t *testing.T) Set {
	t.Helper()
	set, err := Load(shipped)
	if err != nil {
		t.Fatalf("load the shipped set: %v", err)
	}
	return set
}

// TestShippedSetIntegrity checks what Load does not: every query of the file
// has a relevant document, judgements are 1 or 2 and 1 to 3 per query, and
// documents have a title and 40 to 150 words. (Load itself rejects
// duplicate IDs and judgements naming an unknown document or query.)
func TestShippedSetIntegrity(t *testing.T) {
	set := loadShipped(t)
	if n := countLines(t, filepath.Join(shipped, "queries.jsonl")); len(set.Queries) != n {
		t.Errorf("%d queries in the file, %d with judgements", n, len(set.Queries))
	}
	if len(set.Corpus) < 100 || len(set.Queries) < 40 {
		t.Errorf("%d documents and %d queries, want about 120 and 40", len(set.Corpus), len(set.Queries))
	}
	for _, q := range set.Queries {
		rels := set.Qrels[q.ID]
		if len(rels) < 1 || len(rels) > 3 {
			t.Errorf("query %s: %d judgements, want 1 to 3", q.ID, len(rels))
		}
		relevant := 0
		for id, rel := range rels {
			if rel != 1 && rel != 2 {
				t.Errorf("query %s, document %s: relevance %d, want 1 or 2", q.ID, id, rel)
			}
			if rel > 0 {
				relevant++
			}
		}
		if relevant == 0 {
			t.Errorf("query %s has no relevant document", q.ID)
		}
		if strings.TrimSpace(q.Text) == "" {
			t.Errorf("query %s is empty", q.ID)
		}
	}
	for _, d := range set.Corpus {
		if n := len(strings.Fields(d.Text)); d.Title == "" || n < 40 || n > 150 {
			t.Errorf("document %s: title %q, %d words; want a title and 40 to 150 words", d.ID, d.Title, n)
		}
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if strings.TrimSpace(sc.Text()) != "" {
			n++
		}
	}
	return n
}
