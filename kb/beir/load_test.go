package beir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeSet writes a test set into a temporary directory.
func writeSet(t *testing.T, corpus, queries, qrels string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "qrels"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"corpus.jsonl": corpus, "queries.jsonl": queries, "qrels/test.tsv": qrels} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	goodCorpus = `{"_id": "d1", "title": "Un", "text": "premier", "metadata": {}}
{"_id": "d2", "title": "", "text": "second"}

{"_id": "d3", "text": "troisième"}
`
	goodQueries = "{\"_id\": \"q1\", \"text\": \"un\"}\r\n{\"_id\": \"q2\", \"text\": \"deux\"}\r\n{\"_id\": \"q3\", \"text\": \"sans jugement\"}\r\n"
	goodQrels   = "query-id\tcorpus-id\tscore\nq2\td2\t1\nq1\td1\t2\nq1\td3\t0\n"
)

func TestLoad(t *testing.T) {
	set, err := Load(writeSet(t, goodCorpus, goodQueries, goodQrels))
	if err != nil {
		t.Fatal(err)
	}
	want := Set{
		Corpus:  []Doc{{"d1", "Un", "premier"}, {"d2", "", "second"}, {"d3", "", "troisième"}},
		Queries: []Query{{"q1", "un"}, {"q2", "deux"}}, // q3 has no judgement; file order kept
		Qrels:   map[string]map[string]int{"q1": {"d1": 2, "d3": 0}, "q2": {"d2": 1}},
	}
	if !reflect.DeepEqual(set, want) {
		t.Errorf("Load:\n got %+v\nwant %+v", set, want)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name                   string
		corpus, queries, qrels string
		want                   string
	}{
		{"bad JSON", goodCorpus + "{\"_id\": \"d4\",\n", goodQueries, goodQrels, "corpus.jsonl:5: not a JSON object"},
		{"two values on a line", `{"_id": "d1"} {"_id": "d2"}`, goodQueries, goodQrels, "corpus.jsonl:1: more than one JSON value"},
		{"missing doc id", `{"title": "x"}`, goodQueries, goodQrels, `corpus.jsonl:1: missing "_id"`},
		{"numeric doc id", `{"_id": 7}`, goodQueries, goodQrels, "corpus.jsonl:1: not a JSON object"},
		{"duplicate doc", goodCorpus + `{"_id": "d2"}`, goodQueries, goodQrels, `corpus.jsonl:5: duplicate document id "d2"`},
		{"duplicate query", goodCorpus, goodQueries + `{"_id": "q1"}`, goodQrels, `queries.jsonl:4: duplicate query id "q1"`},
		{"missing query id", goodCorpus, `{"text": "x"}`, goodQrels, `queries.jsonl:1: missing "_id"`},
		{"no header", goodCorpus, goodQueries, "q1\td1\t1\n", `test.tsv:1: header is "q1\td1\t1"`},
		{"empty qrels", goodCorpus, goodQueries, "", "test.tsv: empty"},
		{"two fields", goodCorpus, goodQueries, "query-id\tcorpus-id\tscore\nq1\td1\n", "test.tsv:2: 2 tab-separated fields"},
		{"score not an integer", goodCorpus, goodQueries, "query-id\tcorpus-id\tscore\nq1\td1\thigh\n", `test.tsv:2: score "high"`},
		{"unknown query", goodCorpus, goodQueries, "query-id\tcorpus-id\tscore\nq9\td1\t1\n", `test.tsv:2: unknown query "q9"`},
		{"unknown doc", goodCorpus, goodQueries, "query-id\tcorpus-id\tscore\n\nq1\td9\t1\n", `test.tsv:3: unknown document "d9"`},
		{"judged twice", goodCorpus, goodQueries, goodQrels + "q1\td1\t1\n", `test.tsv:5: query "q1" judges document "d1" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeSet(t, tt.corpus, tt.queries, tt.qrels))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(t.TempDir())
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "corpus.jsonl") {
		t.Errorf("err = %v, want the missing corpus.jsonl", err)
	}
}
