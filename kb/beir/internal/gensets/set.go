package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
)

// doc and query are one line of corpus.jsonl and queries.jsonl.
type doc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

type query struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// set is a test set being built: every query has at least one relevant
// document, graded 1.
type set struct {
	docs    []doc
	queries []query
	qrels   map[string][]string // query ID → relevant document IDs, in order
	readme  string
}

// maxWords cuts a document's text: the sets stay a few MB, and the first
// paragraphs of a section are what says what it is about.
const maxWords = 200

func cutWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// sampled keeps one path in every n, chosen by a hash of it so that the
// choice does not move when other files appear.
func sampled(path string, n uint32) bool {
	if n <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(path))
	return h.Sum32()%n == 0
}

// judged builds a set from candidate (query text, document) pairs: one
// query per distinct text, judging relevant every document it was paired
// with; documents with the same text kept once (the first).
func judged(pairs []pair, idPrefix string) set {
	st := set{qrels: map[string][]string{}}
	byText := map[string]string{} // document text → ID
	byQuery := map[string]string{}
	for _, p := range pairs {
		if p.doc.Text == "" {
			continue // a section left out
		}
		id, dup := byText[p.doc.Text]
		if !dup {
			id = fmt.Sprintf("%s%05d", idPrefix, len(st.docs)+1)
			byText[p.doc.Text] = id
			d := p.doc
			d.ID = id
			st.docs = append(st.docs, d)
		}
		if p.query == "" {
			continue // a distractor
		}
		key := strings.ToLower(p.query)
		qid, seen := byQuery[key]
		if !seen {
			qid = fmt.Sprintf("q%05d", len(st.queries)+1)
			byQuery[key] = qid
			st.queries = append(st.queries, query{ID: qid, Text: p.query})
		}
		if !contains(st.qrels[qid], id) {
			st.qrels[qid] = append(st.qrels[qid], id)
		}
	}
	return st
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// pair is a query and the document that answers it; a pair without a query
// adds a distractor document.
type pair struct {
	query string
	doc   doc
}

// write writes the set in the BEIR layout under dir.
func (st set) write(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "qrels"), 0o755); err != nil {
		return err
	}
	var corpus, queries, qrels bytes.Buffer
	enc := json.NewEncoder(&corpus)
	enc.SetEscapeHTML(false)
	for _, d := range st.docs {
		if err := enc.Encode(d); err != nil {
			return err
		}
	}
	enc = json.NewEncoder(&queries)
	enc.SetEscapeHTML(false)
	for _, q := range st.queries {
		if err := enc.Encode(q); err != nil {
			return err
		}
	}
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	for _, q := range st.queries {
		for _, id := range st.qrels[q.ID] {
			fmt.Fprintf(&qrels, "%s\t%s\t1\n", q.ID, id)
		}
	}
	files := map[string][]byte{
		"corpus.jsonl":   corpus.Bytes(),
		"queries.jsonl":  queries.Bytes(),
		"qrels/test.tsv": qrels.Bytes(),
		"README.md":      []byte(st.readme),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
