package kb

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/moteur/moteur/kb/analyze"
)

// An analysed base's keyword index (moteur or snowball) is one row of term
// frequencies per chunk in kb_terms, from which Moteur builds an inverted
// index in memory once per generation (keywordIndex). Searches read the
// memory index only: FTS5's bm25() scores every passage matching the OR
// query and reads each one's length from its docsize table, where the
// memory index scores only the passages that can reach the top k
// (topk.go), with the same formula to the last bit.

// BM25's parameters, FTS5's own (fts5_aux.c). Variables, not constants, so
// that k1+1 is computed in float64 as SQLite computes it, not exactly.
var (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// chunkTerms is what a chunk holds in each column of the keyword index:
// the tokens FTS5 stores, in order.
type chunkTerms [3][]string

// indexTerms is the analysed terms of text, of a document in language
// lang, in base b: the one place the indexing analysis is chosen, for
// ingestion and the migrations' backfills alike. A raw base has no
// kb_terms: its FTS5 table holds the text itself, split by unicode61 with
// diacritics removed, which no analysis reproduces yet. Only a snowball
// base reads lang.
func indexTerms(b Base, lang analyze.Language, text string) []string {
	return analyze.Terms(text, analysis(b, lang))
}

// analysis is the analysis of base b's documents in language lang.
func analysis(b Base, lang analyze.Language) analyze.Options {
	switch b.Analyzer {
	case AnalyzerRaw:
		return analyze.Options{Raw: true}
	case AnalyzerSnowball:
		return analyze.Options{Snowball: true, Language: lang}
	}
	return analyze.Options{}
}

// encodeTerms encodes a chunk's term frequencies for kb_terms: the row's
// token count, then for each distinct term (in first-seen order, title
// first) its length, its bytes and its frequency in each column, as
// unsigned varints.
func encodeTerms(ct chunkTerms) []byte {
	var e termEncoder
	return e.encode(ct)
}

// termEncoder is encodeTerms with its scratch kept from one chunk to the
// next (a document's chunks are encoded in a row).
type termEncoder struct {
	at map[string]int
	fs []termFreq
}

type termFreq struct {
	term string
	tf   [3]uint64
}

func (e *termEncoder) encode(ct chunkTerms) []byte {
	if e.at == nil {
		e.at = make(map[string]int, len(ct[2]))
	}
	clear(e.at)
	e.fs = e.fs[:0]
	total, size := 0, binary.MaxVarintLen64
	for col, terms := range ct {
		total += len(terms)
		for _, t := range terms {
			i, ok := e.at[t]
			if !ok {
				i = len(e.fs)
				e.at[t] = i
				e.fs = append(e.fs, termFreq{term: t})
				size += len(t) + 4 // the varints are one byte each, but in rare rows
			}
			e.fs[i].tf[col]++
		}
	}
	out := binary.AppendUvarint(make([]byte, 0, size), uint64(total))
	for _, f := range e.fs {
		out = binary.AppendUvarint(out, uint64(len(f.term)))
		out = append(out, f.term...)
		for _, n := range f.tf {
			out = binary.AppendUvarint(out, n)
		}
	}
	return out
}

// errBadTerms reports a kb_terms row that does not decode.
var errBadTerms = errors.New("corrupt term frequencies")

// decodeTerms calls fn for each term of an encoded row, with the term's
// bytes (valid during the call only) and its column frequencies; it
// returns the row's token count.
func decodeTerms(blob []byte, fn func(term []byte, tf [3]uint64)) (uint64, error) {
	total, n := uvarint(blob)
	if n <= 0 {
		return 0, errBadTerms
	}
	blob = blob[n:]
	for len(blob) > 0 {
		l, n := uvarint(blob)
		if n <= 0 || l > uint64(len(blob)-n) {
			return 0, errBadTerms
		}
		term := blob[n : n+int(l)]
		blob = blob[n+int(l):]
		var tf [3]uint64
		for c := range tf {
			v, n := uvarint(blob)
			if n <= 0 {
				return 0, errBadTerms
			}
			tf[c], blob = v, blob[n:]
		}
		fn(term, tf)
	}
	return total, nil
}

// uvarint is binary.Uvarint with a fast path for the one-byte values that
// make up nearly all of a row.
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
}

// postingList is one term's passages, by dense id ascending, each with
// the term's BM25 factor in it (part: everything but the IDF).
type postingList struct {
	docs []uint32
	part []float64
	// maxPart is the greatest part, the term's upper bound before IDF.
	maxPart float64
}

// keywordIndex is a base's inverted index in memory, as of one generation.
// It is immutable once built: searches share it without locks.
type keywordIndex struct {
	generation int64
	rows       []int64 // dense id → kb_chunks rowid, ascending
	terms      map[string]*postingList
	// langs counts the base's documents by language, for the analysis of
	// a snowball base's queries (analyze.QueryTermsIn); nil for other
	// bases. Read with the rows, so it is of the same generation.
	langs map[analyze.Language]int
}

// size is the number of rows of the index (FTS5's xRowCount).
func (ix *keywordIndex) size() int { return len(ix.rows) }

// df is how many rows hold term.
func (ix *keywordIndex) df(term string) int {
	if pl := ix.terms[term]; pl != nil {
		return len(pl.docs)
	}
	return 0
}

// weights are the column weights of base b's BM25.
func weights(b Base) [3]float64 {
	if b.Analyzer == AnalyzerRaw {
		return rawWeights
	}
	return moteurWeights
}

// keywordIndex returns base b's memory index, building it when the cached
// one is older than b's generation.
func (s *Store) keywordIndex(ctx context.Context, b Base) (*keywordIndex, error) {
	s.kwMu.Lock()
	defer s.kwMu.Unlock()
	if ix := s.kws[b.ID]; ix != nil && ix.generation >= b.generation {
		return ix, nil
	}
	ix, err := s.loadKeywordIndex(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("keyword index of %s: %w", b.Name, err)
	}
	s.kws[b.ID] = ix
	return ix, nil
}

func (s *Store) dropKeywordIndex(id string) {
	s.kwMu.Lock()
	delete(s.kws, id)
	s.kwMu.Unlock()
}

// loadKeywordIndex reads kb_terms in one read transaction, so that the
// generation it records is the one of the rows it read.
func (s *Store) loadKeywordIndex(ctx context.Context, b Base) (*keywordIndex, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	ix := &keywordIndex{terms: map[string]*postingList{}}
	if err := tx.QueryRowContext(ctx, `SELECT generation FROM kbs WHERE rowid = ?`, b.rowid).Scan(&ix.generation); err != nil {
		return nil, err
	}
	if b.Analyzer == AnalyzerSnowball {
		if ix.langs, err = documentLanguages(ctx, tx, b); err != nil {
			return nil, err
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT chunk, tf FROM kb_terms WHERE kb = ? ORDER BY chunk`, b.rowid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ib := newIndexBuilder(ix, weights(b))
	for rows.Next() {
		var row int64
		var blob sql.RawBytes
		if err := rows.Scan(&row, &blob); err != nil {
			return nil, err
		}
		if err := ib.add(row, blob); err != nil {
			return nil, fmt.Errorf("chunk %d: %w", row, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ib.finish()
	return ix, nil
}

// documentLanguages counts base b's documents by language ("" for those
// whose language was not told).
func documentLanguages(ctx context.Context, tx *sql.Tx, b Base) (map[analyze.Language]int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT language, count(*) FROM kb_documents WHERE kb = ? GROUP BY language`, b.rowid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	langs := map[analyze.Language]int{}
	for rows.Next() {
		var lang string
		var n int
		if err := rows.Scan(&lang, &n); err != nil {
			return nil, err
		}
		langs[analyze.Language(lang)] = n
	}
	return langs, rows.Err()
}

// indexBuilder fills a keywordIndex row by row, rowids ascending.
type indexBuilder struct {
	ix    *keywordIndex
	w     [3]float64
	lens  []uint64
	total uint64
}

func newIndexBuilder(ix *keywordIndex, w [3]float64) *indexBuilder {
	if ix.terms == nil {
		ix.terms = map[string]*postingList{}
	}
	return &indexBuilder{ix: ix, w: w}
}

// add appends the row of kb_terms blob (encodeTerms) for chunk row.
func (ib *indexBuilder) add(row int64, blob []byte) error {
	ix := ib.ix
	if n := len(ix.rows); n > 0 && row <= ix.rows[n-1] {
		return fmt.Errorf("rows out of order: %d after %d", row, ix.rows[n-1])
	}
	doc := uint32(len(ix.rows))
	n, err := decodeTerms(blob, func(term []byte, tf [3]uint64) {
		pl := ix.terms[string(term)]
		if pl == nil {
			pl = &postingList{}
			ix.terms[string(term)] = pl
		}
		// The phrase frequency as bm25() sums it: each instance adds its
		// column's weight, columns in order.
		f := 0.0
		for c, k := range tf {
			for range k {
				f += ib.w[c]
			}
		}
		pl.docs = append(pl.docs, doc)
		pl.part = append(pl.part, f) // the frequency, until finish knows the lengths
	})
	if err != nil {
		return err
	}
	ix.rows = append(ix.rows, row)
	ib.lens = append(ib.lens, n)
	ib.total += n
	return nil
}

// finish turns the frequencies into BM25 factors, which need the average
// row length, and sets each term's bound. The expression is bm25()'s
// (fts5_aux.c), operation for operation; the conversions keep a compiler
// from fusing a multiply and an add, which SQLite's build does not do.
func (ib *indexBuilder) finish() {
	if len(ib.ix.rows) == 0 {
		return
	}
	avgdl := float64(ib.total) / float64(len(ib.ix.rows))
	k1, bb := bm25K1, bm25B
	for _, pl := range ib.ix.terms {
		for i, f := range pl.part {
			d := float64(ib.lens[pl.docs[i]])
			p := float64(f*(k1+1.0)) / (f + float64(k1*(1-bb+float64(bb*d)/avgdl)))
			pl.part[i] = p
			pl.maxPart = max(pl.maxPart, p)
		}
	}
	ib.lens = nil
}
