package kb

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/moteur/moteur/kb/chunk"
)

// vectorSet is a base's vectors held in memory for the exact cosine scan:
// one flat slice (rows × dims), unit length, so a similarity is a dot
// product. It is reloaded when the base's generation moves.
type vectorSet struct {
	generation int64
	dims       int
	rows       []int64 // kb_chunks rowids
	data       []float32
}

// embedText is what is embedded for a chunk: the document's title and the
// heading path give a passage the context its own words may lack.
func embedText(title string, c chunk.Chunk) string {
	var sb strings.Builder
	sb.WriteString(title)
	if len(c.Headings) > 0 {
		sb.WriteString("\n")
		sb.WriteString(headingPath(c.Headings))
	}
	sb.WriteString("\n\n")
	sb.WriteString(c.Text)
	return sb.String()
}

func (s *Store) embedChunks(ctx context.Context, title string, chunks []chunk.Chunk) ([][]float32, error) {
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = embedText(title, c)
	}
	vecs, err := s.embedder.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embeddings: %d vectors for %d chunks", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) == 0 || len(v) != len(vecs[0]) {
			return nil, fmt.Errorf("embeddings: vector %d has %d dimensions, the first has %d", i, len(v), len(vecs[0]))
		}
		normalize(v)
	}
	return vecs, nil
}

// normalize scales v to unit length (a zero vector stays zero).
func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte, into []float32) {
	for i := range into {
		into[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// vectors returns the base's vectors, loading them if the cache is stale.
func (s *Store) vectors(ctx context.Context, b Base) (*vectorSet, error) {
	s.vecMu.Lock()
	defer s.vecMu.Unlock()
	if vs := s.vecs[b.ID]; vs != nil && vs.generation == b.generation {
		return vs, nil
	}
	vs := &vectorSet{generation: b.generation, dims: b.EmbedDims}
	rows, err := s.r.QueryContext(ctx, `SELECT rowid, embedding FROM kb_chunks WHERE kb = ? AND embedding IS NOT NULL ORDER BY rowid`, b.rowid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var row int64
		var blob []byte
		if err := rows.Scan(&row, &blob); err != nil {
			return nil, err
		}
		if vs.dims == 0 {
			vs.dims = len(blob) / 4
		}
		if len(blob) != 4*vs.dims {
			return nil, fmt.Errorf("knowledge base %s: chunk %d has a vector of %d bytes, want %d", b.Name, row, len(blob), 4*vs.dims)
		}
		vs.rows = append(vs.rows, row)
		vs.data = slices.Grow(vs.data, vs.dims)[:len(vs.data)+vs.dims]
		decodeVector(blob, vs.data[len(vs.data)-vs.dims:])
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s.vecs[b.ID] = vs
	return vs, nil
}

func (s *Store) dropVectors(id string) {
	s.vecMu.Lock()
	delete(s.vecs, id)
	s.vecMu.Unlock()
}

// scored is a candidate chunk (by rowid) and its score.
type scored struct {
	row   int64
	score float64 // cosine, or BM25 divided by the query's best
	raw   float64 // the BM25 score itself (positive: SQLite's bm25() negated)
}

// nearest returns the top k rows by cosine similarity to q (unit length),
// those at or above threshold, best first.
func (vs *vectorSet) nearest(q []float32, k int, threshold float64) []scored {
	if len(q) != vs.dims || k <= 0 {
		return nil
	}
	top := make([]scored, 0, k+1)
	for i, row := range vs.rows {
		sim := similarity(vs.data[i*vs.dims:(i+1)*vs.dims], q)
		if sim < threshold || (len(top) == k && sim <= top[k-1].score) {
			continue
		}
		// Insert in order: k is small (the pool), a heap would not pay.
		at, _ := slices.BinarySearchFunc(top, sim, func(c scored, t float64) int {
			switch {
			case c.score > t:
				return -1
			case c.score < t:
				return 1
			}
			return 0
		})
		top = slices.Insert(top, at, scored{row: row, score: sim})
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// similarity is the cosine of two unit vectors.
func similarity(a, b []float32) float64 {
	var dot float32
	for i := range a {
		dot += a[i] * b[i]
	}
	return float64(dot)
}
