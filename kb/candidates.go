package kb

import (
	"context"
	"fmt"
	"strings"
)

// candidates fuses the vector and keyword rankings, loads the chunks and
// drops exact duplicates (same text), keeping the better ranked.
func (s *Store) candidates(ctx context.Context, vec, kw []scored) ([]Hit, error) {
	r := s.retrieval
	var ranked []scored
	switch {
	case len(vec) > 0 && len(kw) > 0:
		ranked = fuse(r.RRFK, [][]scored{vec, kw}, []float64{r.VectorWeight, r.KeywordWeight})
		best := (r.VectorWeight + r.KeywordWeight) / float64(r.RRFK+1)
		for i := range ranked {
			ranked[i].score /= best
		}
	case len(vec) > 0:
		ranked = vec
	default:
		ranked = kw
	}
	if len(ranked) == 0 {
		return nil, nil
	}
	rows := make([]int64, len(ranked))
	for i, sc := range ranked {
		rows[i] = sc.row
	}
	loaded, err := s.loadHits(ctx, rows)
	if err != nil {
		return nil, err
	}
	vs, ks := index(vec), index(kw)
	seen := map[string]bool{}
	hits := make([]Hit, 0, len(ranked))
	for _, sc := range ranked {
		h, ok := loaded[sc.row]
		if !ok {
			continue // removed since the index was read
		}
		key := strings.Join(strings.Fields(h.Text), " ")
		if seen[key] {
			continue
		}
		seen[key] = true
		h.Score, h.Vector, h.Keyword = sc.score, vs[sc.row], ks[sc.row]
		hits = append(hits, h)
	}
	return hits, nil
}

func index(l []scored) map[int64]float64 {
	m := make(map[int64]float64, len(l))
	for _, sc := range l {
		m[sc.row] = sc.score
	}
	return m
}

// loadHits reads the chunks of rows, with their document and base.
func (s *Store) loadHits(ctx context.Context, rows []int64) (map[int64]Hit, error) {
	args := make([]any, len(rows))
	marks := make([]string, len(rows))
	for i, r := range rows {
		args[i], marks[i] = r, "?"
	}
	q := `SELECT c.rowid, c.id, c.idx, c.kind, c.page, c.headings, c.text, c.terms, c.embedding,
		d.id, d.title, d.path, d.classified, k.id, k.name
		FROM kb_chunks c JOIN kb_documents d ON d.rowid = c.doc JOIN kbs k ON k.rowid = c.kb
		WHERE c.rowid IN (` + strings.Join(marks, ",") + `)`
	res, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer res.Close()
	out := make(map[int64]Hit, len(rows))
	for res.Next() {
		var h Hit
		var blob []byte
		if err := res.Scan(&h.row, &h.Chunk, &h.Index, &h.Kind, &h.Page, &h.Headings, &h.Text, &h.terms, &blob,
			&h.Document, &h.Title, &h.Path, &h.Classified, &h.Base, &h.BaseName); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if len(blob) > 0 && len(blob)%4 == 0 {
			h.embedding = make([]float32, len(blob)/4)
			decodeVector(blob, h.embedding)
		}
		out[h.row] = h
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return out, nil
}
