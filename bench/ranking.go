package bench

import (
	"context"
	"fmt"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/moteur/moteur/kb/beir"
	"github.com/moteur/moteur/kb/kbeval"
)

// Ranking is the quality of the rankings of one evaluation set: Moteur's
// keyword search on a base of the default analyzer and plain FTS5 bm25()
// (both as `moteur kb eval` measures them), and bleve.
type Ranking struct {
	Set                 string
	Documents, Queries  int
	Moteur, FTS5, Bleve beir.Scores
}

// RankSet measures the rankings of set (named name).
func RankSet(ctx context.Context, name string, set beir.Set, tmp string) (Ranking, error) {
	rep, err := kbeval.Run(ctx, set, kbeval.Options{TempDir: tmp})
	if err != nil {
		return Ranking{}, fmt.Errorf("%s: moteur: %w", name, err)
	}
	r := Ranking{Set: name, Documents: rep.Documents, Queries: rep.Queries, FTS5: scores(rep.Baseline)}
	for _, m := range rep.Modes {
		if m.Name == "keyword" {
			r.Moteur = scores(m)
		}
	}
	if r.Bleve, err = BleveRanking(ctx, set); err != nil {
		return Ranking{}, fmt.Errorf("%s: bleve: %w", name, err)
	}
	return r, nil
}

func scores(s kbeval.Scores) beir.Scores {
	return beir.Scores{NDCG: s.NDCG, Recall: s.Recall, MRR: s.MRR}
}

// BleveRanking ranks set with bleve as a user would set it up: one bleve
// document per corpus document (bleve does not chunk), its title and text
// as fields analysed in English and scored by BM25, the title boosted as
// Moteur's is (3 against 1), the OR of the query's terms over both fields.
func BleveRanking(ctx context.Context, set beir.Set) (beir.Scores, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	im.DefaultAnalyzer = en.AnalyzerName
	ix, err := bleve.NewMemOnly(im)
	if err != nil {
		return beir.Scores{}, err
	}
	defer ix.Close()
	batch := ix.NewBatch()
	for i, d := range set.Corpus {
		if err := batch.Index(strconv.Itoa(i), map[string]any{"title": d.Title, "body": d.Text}); err != nil {
			return beir.Scores{}, err
		}
	}
	if err := ix.Batch(batch); err != nil {
		return beir.Scores{}, err
	}
	return beir.Evaluate(set, kbeval.K, func(q beir.Query) ([]string, error) {
		title, body := bleve.NewMatchQuery(q.Text), bleve.NewMatchQuery(q.Text)
		title.SetField("title")
		title.SetBoost(3)
		body.SetField("body")
		req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery([]query.Query{title, body}...), kbeval.K, 0, false)
		res, err := ix.SearchInContext(ctx, req)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			n, _ := strconv.Atoi(h.ID)
			ids[i] = set.Corpus[n].ID
		}
		return ids, nil
	})
}
