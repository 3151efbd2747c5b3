// Command ranking prints the ranking quality of every evaluation set under
// a directory (default ../kb/beir/testdata, the sets Moteur ships):
// nDCG@10, recall@10 and MRR@10 of Moteur's keyword search (the default
// analyzer, default settings), plain SQLite FTS5 bm25() and bleve (BM25,
// English analyzer), as a Markdown table.
//
// Usage: go run ./cmd/ranking [DIR]
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/moteur/moteur/bench"
	"github.com/moteur/moteur/kb/beir"
)

func main() {
	dir := "../kb/beir/testdata"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := run(context.Background(), dir, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ranking:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir string, w io.Writer) error {
	sets, err := filepath.Glob(filepath.Join(dir, "*", "queries.jsonl"))
	if err != nil {
		return err
	}
	if len(sets) == 0 {
		return fmt.Errorf("no evaluation set (DIR/*/queries.jsonl) under %s", dir)
	}
	sort.Strings(sets)
	tmp, err := os.MkdirTemp("", "moteur-ranking-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintln(w, "| set | documents | queries | ranking | nDCG@10 | recall@10 | MRR@10 |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, q := range sets {
		d := filepath.Dir(q)
		set, err := beir.Load(d)
		if err != nil {
			return err
		}
		r, err := bench.RankSet(ctx, filepath.Base(d), set, tmp)
		if err != nil {
			return err
		}
		for _, row := range []struct {
			name string
			s    beir.Scores
		}{{"Moteur keyword", r.Moteur}, {"FTS5 bm25()", r.FTS5}, {"bleve (BM25, en)", r.Bleve}} {
			fmt.Fprintf(w, "| %s | %d | %d | %s | %.3f | %.3f | %.3f |\n", r.Set, r.Documents, r.Queries, row.name, row.s.NDCG, row.s.Recall, row.s.MRR)
		}
	}
	return nil
}
