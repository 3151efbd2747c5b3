package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/moteur/moteur/bench/corpus"
)

// The fields of a passage in bleve and their boosts: Moteur's bm25()
// column weights (title 3, heading path 1.5, body 1), so that both rank by
// the same weighted BM25.
var bleveFields = []struct {
	name  string
	boost float64
}{{"title", 3}, {"headings", 1.5}, {"body", 1}}

// bleveBatch is how many passages go in one bleve batch (bulk indexing as
// bleve's documentation advises).
const bleveBatch = 1000

// bleveMapping indexes the three fields with the English analyzer and
// scores by BM25; the fields are stored, so that a search returns the
// passages' text as Moteur's does, and carry neither term vectors nor doc
// values nor an _all field, which nothing here reads.
func bleveMapping() mapping.IndexMapping {
	im := bleve.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	im.DefaultAnalyzer = en.AnalyzerName
	dm := bleve.NewDocumentStaticMapping()
	for _, f := range bleveFields {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.IncludeTermVectors, fm.IncludeInAll, fm.DocValues = false, false, false
		dm.AddFieldMappingsAt(f.name, fm)
	}
	im.DefaultMapping = dm
	return im
}

// IndexBleve indexes the corpus's passages into a new bleve index at
// path, in batches, and closes it (which persists it).
func IndexBleve(path string, c *corpus.Corpus) error {
	ix, err := bleve.New(path, bleveMapping())
	if err != nil {
		return fmt.Errorf("bleve index %s: %w", path, err)
	}
	batch := ix.NewBatch()
	for i, p := range c.Passages {
		doc := map[string]any{"title": p.Title, "headings": p.Headings, "body": p.Text}
		if err := batch.Index(strconv.Itoa(i), doc); err != nil {
			ix.Close()
			return fmt.Errorf("bleve index: %w", err)
		}
		if batch.Size() == bleveBatch || i == len(c.Passages)-1 {
			if err := ix.Batch(batch); err != nil {
				ix.Close()
				return fmt.Errorf("bleve index: %w", err)
			}
			batch.Reset()
		}
	}
	return ix.Close()
}

// BleveIndex returns the corpus's bleve index, built once and cached
// beside the corpus.
func BleveIndex(c *corpus.Corpus) (string, error) {
	return cached(filepath.Join(c.Cache, "bleve-v1"), func(tmp string) error { return IndexBleve(tmp, c) })
}

// BleveSearch searches a bleve index: the OR of the query's terms over
// the three fields with their boosts, the top hits with their stored text.
type BleveSearch struct {
	ix   bleve.Index
	size int
}

// OpenBleveSearch opens the index at path; searches return size hits.
func OpenBleveSearch(path string, size int) (*BleveSearch, error) {
	ix, err := bleve.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bleve open %s: %w", path, err)
	}
	return &BleveSearch{ix: ix, size: size}, nil
}

// Search returns the number of hits of text.
func (s *BleveSearch) Search(ctx context.Context, text string) (int, error) {
	qs := make([]query.Query, len(bleveFields))
	for i, f := range bleveFields {
		q := bleve.NewMatchQuery(text)
		q.SetField(f.name)
		q.SetBoost(f.boost)
		qs[i] = q
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), s.size, 0, false)
	req.Fields = []string{"title", "body"}
	res, err := s.ix.SearchInContext(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("bleve search: %w", err)
	}
	return len(res.Hits), nil
}

// Close closes the index.
func (s *BleveSearch) Close() error { return s.ix.Close() }
