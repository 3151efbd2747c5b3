package kb

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// candidates fuses the vector and keyword rankings, loads the chunks (of
// bases, the bases searched) and drops exact duplicates (same text),
// keeping the better ranked.
func (s *Store) candidates(ctx context.Context, bases []Base, vec, kw []scored) ([]Hit, error) {
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
	loaded, err := s.loadHits(ctx, bases, rows)
	if err != nil {
		return nil, err
	}
	vs, ks := index(vec), index(kw)
	seen := make(map[uint64][]string, len(ranked)) // texts by fieldsKey
	hits := make([]Hit, 0, len(ranked))
	for _, sc := range ranked {
		h, ok := loaded[sc.row]
		if !ok {
			continue // removed since the index was read
		}
		key := fieldsKey(h.Text)
		if slices.ContainsFunc(seen[key], func(t string) bool { return sameFields(t, h.Text) }) {
			continue
		}
		seen[key] = append(seen[key], h.Text)
		h.Score, h.Vector, h.Keyword = sc.score, vs[sc.row], ks[sc.row]
		hits = append(hits, h)
	}
	return hits, nil
}

// fieldsKey is a key of text that two texts with the same words in the
// same order share whatever their spacing (strings.Fields equal): the
// number of bytes outside white space and the hash of the first 64 of
// them. Texts of equal key are compared by sameFields; the key only keeps
// that comparison for the rare pairs that may be copies, at a fraction of
// the cost of hashing every byte.
func fieldsKey(text string) uint64 {
	h, n := uint64(14695981039346656037), uint64(0)
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			if asciiSpace[c] {
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			if unicode.IsSpace(r) {
				i += size
				continue
			}
			i++ // the rune's first byte; the others are counted as they come
		}
		if n < 64 {
			h ^= uint64(c)
			h *= 1099511628211
		}
		n++
	}
	return h ^ n<<48
}

// asciiSpace is the ASCII white space of unicode.IsSpace.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// sameFields reports whether a and b have the same words in the same
// order, whatever the spacing between them.
func sameFields(a, b string) bool {
	next, stop := iter.Pull(strings.FieldsSeq(b))
	defer stop()
	for f := range strings.FieldsSeq(a) {
		g, ok := next()
		if !ok || f != g {
			return false
		}
	}
	_, more := next()
	return !more
}

func index(l []scored) map[int64]float64 {
	m := make(map[int64]float64, len(l))
	for _, sc := range l {
		m[sc.row] = sc.score
	}
	return m
}

// loadHits reads the chunks of rows, with their document, in one
// statement prepared once (hitsQuery), and names their base from bases; a
// chunk of another base (none: the rows come from bases' indexes) is left
// out.
func (s *Store) loadHits(ctx context.Context, bases []Base, rows []int64) (map[int64]Hit, error) {
	list := make([]byte, 0, 1+len(rows)*8)
	list = append(list, '[')
	for i, r := range rows {
		if i > 0 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, r, 10)
	}
	list = append(list, ']')
	st, err := s.prepared(ctx, hitsQuery)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	res, err := st.QueryContext(ctx, string(list))
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer res.Close()
	out := make(map[int64]Hit, len(rows))
	for res.Next() {
		var h Hit
		var blob []byte
		var kb int64
		if err := res.Scan(&h.row, &h.Chunk, &h.Index, &h.Kind, &h.Page, &h.Headings, &h.Text, &h.terms, &blob,
			&h.Document, &h.Title, &h.Path, &h.Classified, &kb); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		i := slices.IndexFunc(bases, func(b Base) bool { return b.rowid == kb })
		if i < 0 {
			continue
		}
		h.Base, h.BaseName = bases[i].ID, bases[i].Name
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
