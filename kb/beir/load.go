package beir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// qrelsHeader is the first line BEIR writes in a qrels file.
const qrelsHeader = "query-id\tcorpus-id\tscore"

// Load reads the set in dir: dir/corpus.jsonl, dir/queries.jsonl and
// dir/qrels/test.tsv. Errors name the file and line. Duplicate IDs, a
// judgement given twice, or one naming an unknown document or query are
// errors: they would make scores silently wrong.
func Load(dir string) (Set, error) {
	corpus, err := loadCorpus(filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		return Set{}, err
	}
	queries, err := loadQueries(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return Set{}, err
	}
	qrels, err := loadQrels(filepath.Join(dir, "qrels", "test.tsv"), corpus, queries)
	if err != nil {
		return Set{}, err
	}
	set := Set{Corpus: corpus, Qrels: qrels}
	for _, q := range queries {
		if len(qrels[q.ID]) > 0 {
			set.Queries = append(set.Queries, q)
		}
	}
	return set, nil
}

func loadCorpus(path string) ([]Doc, error) {
	var docs []Doc
	seen := map[string]bool{}
	err := eachLine(path, func(text []byte) error {
		var d struct {
			ID    *string `json:"_id"`
			Title string  `json:"title"`
			Text  string  `json:"text"`
		}
		if err := decodeLine(text, &d); err != nil {
			return err
		}
		if d.ID == nil || *d.ID == "" {
			return errors.New(`missing "_id"`)
		}
		if seen[*d.ID] {
			return fmt.Errorf("duplicate document id %q", *d.ID)
		}
		seen[*d.ID] = true
		docs = append(docs, Doc{ID: *d.ID, Title: d.Title, Text: d.Text})
		return nil
	})
	return docs, err
}

func loadQueries(path string) ([]Query, error) {
	var queries []Query
	seen := map[string]bool{}
	err := eachLine(path, func(text []byte) error {
		var q struct {
			ID   *string `json:"_id"`
			Text string  `json:"text"`
		}
		if err := decodeLine(text, &q); err != nil {
			return err
		}
		if q.ID == nil || *q.ID == "" {
			return errors.New(`missing "_id"`)
		}
		if seen[*q.ID] {
			return fmt.Errorf("duplicate query id %q", *q.ID)
		}
		seen[*q.ID] = true
		queries = append(queries, Query{ID: *q.ID, Text: q.Text})
		return nil
	})
	return queries, err
}

// decodeLine decodes one JSON object, which must be alone on its line.
func decodeLine(text []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

func loadQrels(path string, corpus []Doc, queries []Query) (map[string]map[string]int, error) {
	docs := map[string]bool{}
	for _, d := range corpus {
		docs[d.ID] = true
	}
	known := map[string]bool{}
	for _, q := range queries {
		known[q.ID] = true
	}
	qrels := map[string]map[string]int{}
	header := false
	err := eachLine(path, func(text []byte) error {
		row := strings.Split(string(text), "\t")
		if !header {
			if string(text) != qrelsHeader {
				return fmt.Errorf("header is %q, want %q", text, qrelsHeader)
			}
			header = true
			return nil
		}
		if len(row) != 3 {
			return fmt.Errorf("%d tab-separated fields, want 3 (query-id, corpus-id, score)", len(row))
		}
		qid, did := row[0], row[1]
		score, err := strconv.Atoi(row[2])
		if err != nil {
			return fmt.Errorf("score %q is not an integer", row[2])
		}
		switch {
		case !known[qid]:
			return fmt.Errorf("unknown query %q", qid)
		case !docs[did]:
			return fmt.Errorf("unknown document %q", did)
		}
		if _, dup := qrels[qid][did]; dup {
			return fmt.Errorf("query %q judges document %q twice", qid, did)
		}
		if qrels[qid] == nil {
			qrels[qid] = map[string]int{}
		}
		qrels[qid][did] = score
		return nil
	})
	if err == nil && !header {
		err = fmt.Errorf("%s: empty, want the header %q", path, qrelsHeader)
	}
	return qrels, err
}

// eachLine calls fn with each non-blank line of the file at path, without
// its line ending, and wraps fn's error with path:line.
func eachLine(path string, fn func(text []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read test set: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		text, err := r.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		text = bytes.TrimRight(text, "\r\n")
		if len(bytes.TrimSpace(text)) > 0 {
			if ferr := fn(text); ferr != nil {
				return fmt.Errorf("%s:%d: %w", path, n, ferr)
			}
		}
		if err != nil { // io.EOF
			return nil
		}
	}
}
