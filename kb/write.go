package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/moteur/moteur/kb/analyze"
	"github.com/moteur/moteur/kb/chunk"
	"github.com/moteur/moteur/kb/parse"
)

// storedDoc is a parsed file as it is about to be stored.
type storedDoc struct {
	path       string
	hash       string
	size       int64
	doc        parse.Document
	classified string // the path rule that classifies it, "" when none
	// language is the document's, detected for a snowball base
	// (detectLanguage); "" for the others, which do not read it.
	language analyze.Language
}

// stored is the SHA-256 of the stored version of path ("" when none) and
// the classification rule it was stored with.
func (s *Store) stored(ctx context.Context, b Base, path string) (hash, classified string, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT sha256, classified FROM kb_documents WHERE kb = ? AND path = ?`, b.rowid, path).Scan(&hash, &classified)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", nil
	}
	return hash, classified, err
}

// storedMeta is a document's metadata as stored: without the page
// starts, which the chunks' pages already hold.
func storedMeta(meta map[string]string) map[string]string {
	if _, ok := meta[parse.MetaPageBlocks]; !ok {
		return meta
	}
	out := maps.Clone(meta)
	delete(out, parse.MetaPageBlocks)
	return out
}

// headingPath renders a heading path as the tools show it.
func headingPath(h []string) string { return strings.Join(h, " > ") }

// indexText is a text of a document in language lang as a keyword index
// reads it: an analysed base's terms, joined (insertChunks splits them
// back), or the text itself for a raw base, which its FTS5 table splits as
// SQLite does.
func indexText(b Base, lang analyze.Language, text string) string {
	if b.Analyzer == AnalyzerRaw {
		return text
	}
	return analyze.Join(indexTerms(b, lang, text))
}

// commit writes the documents of batch that need it in one transaction
// and fills their reports. When the transaction fails, each document is
// tried alone, so one bad document fails alone.
func (s *Store) commit(ctx context.Context, b Base, batch []*prepared) {
	var todo []*prepared
	for _, p := range batch {
		if p.write {
			todo = append(todo, p)
		}
	}
	if len(todo) == 0 {
		return
	}
	if err := s.writeBatch(ctx, b, todo); err == nil || len(todo) == 1 {
		if err != nil {
			todo[0].fail(fmt.Errorf("%s: %w", todo[0].doc.path, err))
		}
		return
	}
	for _, p := range todo {
		if err := s.writeBatch(ctx, b, []*prepared{p}); err != nil {
			p.fail(fmt.Errorf("%s: %w", p.doc.path, err))
		}
	}
}

// writeBatch stores the documents in one transaction, each replacing the
// previous version of its path. Their chunks were analysed by the workers
// (prepared.rows); the statements are prepared once for the batch.
func (s *Store) writeBatch(ctx context.Context, b Base, batch []*prepared) error {
	now := s.now().UTC().UnixNano()
	ids := make([]string, len(batch))
	replaced := make([]bool, len(batch))
	// The statements run without ctx's cancellation: given a context that
	// can be cancelled, the driver starts a goroutine per statement to
	// interrupt it, a fifth of an ingestion's allocations. A cancellation
	// still stops the batch: the transaction (begun with ctx) is rolled
	// back, and ctx is checked before each document.
	ectx := context.WithoutCancel(ctx)
	err := s.write(ctx, func(tx *sql.Tx) error {
		st := &chunkStmts{tx: tx, b: b}
		defer st.close()
		for i, p := range batch {
			if err := ctx.Err(); err != nil {
				return err
			}
			ids[i] = "d-" + s.newID()
			title, rows := p.title, p.rows
			if rows == nil { // not prepared by prepareDoc
				title = indexText(b, p.doc.language, p.doc.doc.Title)
				rows = analyseChunks(b, p.doc.language, title, p.chunks)
			}
			var err error
			if replaced[i], err = writeDocument(ectx, st, ids[i], p.doc, title, p.chunks, rows, p.vecs, now); err != nil {
				return err
			}
		}
		return bump(ectx, tx, b, now)
	})
	if err != nil {
		return err
	}
	for i, p := range batch {
		p.fr.Status, p.fr.Document, p.fr.Chunks = StatusAdded, ids[i], len(p.chunks)
		if replaced[i] {
			p.fr.Status = StatusUpdated
		}
	}
	return nil
}

// writeDocument stores one document and its chunks (with their rows, and
// title as the keyword index reads it) within st's transaction.
func writeDocument(ctx context.Context, st *chunkStmts, id string, d storedDoc, title string, chunks []chunk.Chunk, rows []chunkRow, vecs [][]float32, now int64) (replaced bool, err error) {
	b := st.b
	if replaced, err = deleteDocument(ctx, st.tx, b, `path = ?`, d.path); err != nil {
		return false, err
	}
	warnings, _ := json.Marshal(d.doc.Warnings)
	meta, _ := json.Marshal(storedMeta(d.doc.Meta))
	ins, err := st.prepare(ctx, &st.doc, `INSERT INTO kb_documents (id, kb, path, title, format, sha256, size, chunks,
		warnings, meta, classified, language, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return false, err
	}
	res, err := ins.ExecContext(ctx, id, b.rowid, d.path, d.doc.Title, d.doc.Format, d.hash, d.size, len(chunks), string(warnings), string(meta),
		d.classified, string(d.language), now)
	if err != nil {
		return false, err
	}
	doc, err := res.LastInsertId()
	if err != nil {
		return false, err
	}
	return replaced, writeChunks(ctx, st, doc, id, title, chunks, rows, vecs)
}

// chunkStmts are the insert statements of one write transaction, prepared
// on first use and closed with it: a batch of documents prepares each
// once, not once per document.
type chunkStmts struct {
	tx                *sql.Tx
	b                 Base
	doc, chunk, index *sql.Stmt
}

func (st *chunkStmts) prepare(ctx context.Context, at **sql.Stmt, query string) (*sql.Stmt, error) {
	if *at == nil {
		stmt, err := st.tx.PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		*at = stmt
	}
	return *at, nil
}

func (st *chunkStmts) close() {
	for _, s := range []*sql.Stmt{st.doc, st.chunk, st.index} {
		if s != nil {
			s.Close()
		}
	}
}

// insertChunks analyses and stores the chunks of document doc within tx;
// title is the document's title as the keyword index reads it.
func insertChunks(ctx context.Context, tx *sql.Tx, b Base, doc int64, docID string, lang analyze.Language, title string, chunks []chunk.Chunk, vecs [][]float32) error {
	rows := analyseChunks(b, lang, title, chunks)
	st := &chunkStmts{tx: tx, b: b}
	defer st.close()
	return writeChunks(ctx, st, doc, docID, title, chunks, rows, vecs)
}

// writeChunks stores the chunks of document doc and their keyword index
// entries from their analysed rows.
func writeChunks(ctx context.Context, st *chunkStmts, doc int64, docID, title string, chunks []chunk.Chunk, rows []chunkRow, vecs [][]float32) error {
	b := st.b
	ins, err := st.prepare(ctx, &st.chunk, `INSERT INTO kb_chunks (id, kb, doc, idx, kind, headings, text, start, terms, embedding, page)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	// The keyword index: a raw base's FTS5 table, a Moteur base's kb_terms.
	var idx *sql.Stmt
	if b.Keyword {
		index := `INSERT INTO kb_terms (kb, chunk, tf) VALUES (?, ?, ?)`
		if b.Analyzer == AnalyzerRaw {
			index = `INSERT INTO ` + ftsTable(b.rowid) + ` (rowid, title, headings, body) VALUES (?, ?, ?, ?)`
		}
		if idx, err = st.prepare(ctx, &st.index, index); err != nil {
			return err
		}
	}
	prefix := docID + "-"
	for i, c := range chunks {
		var blob []byte
		if vecs != nil {
			blob = encodeVector(vecs[i])
		}
		r := &rows[i]
		res, err := ins.ExecContext(ctx, prefix+strconv.Itoa(c.Index), b.rowid, doc, c.Index, c.Kind, r.heads, c.Text, c.Start, r.terms, blob, c.Page)
		if err != nil {
			return err
		}
		row, err := res.LastInsertId()
		if err != nil {
			return err
		}
		switch {
		case !b.Keyword:
		case b.Analyzer == AnalyzerRaw:
			if _, err := idx.ExecContext(ctx, row, title, r.heads, c.Text); err != nil {
				return err
			}
		default:
			if _, err := idx.ExecContext(ctx, b.rowid, row, r.index); err != nil {
				return err
			}
		}
	}
	if len(vecs) > 0 && b.EmbedDims == 0 {
		_, err := st.tx.ExecContext(ctx, `UPDATE kbs SET embed_dims = ? WHERE rowid = ? AND embed_dims = 0`, len(vecs[0]), b.rowid)
		return err
	}
	return nil
}

// deleteDocument removes the documents of base b matching where (with
// arg), their chunks and their index entries; found reports whether there
// was one.
func deleteDocument(ctx context.Context, tx *sql.Tx, b Base, where string, arg any) (found bool, err error) {
	rows, err := tx.QueryContext(ctx, `SELECT rowid FROM kb_documents WHERE kb = ? AND `+where, b.rowid, arg)
	if err != nil {
		return false, err
	}
	var docs []int64
	for rows.Next() {
		var d int64
		if err := rows.Scan(&d); err != nil {
			rows.Close()
			return false, err
		}
		docs = append(docs, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, err
	}
	for _, d := range docs {
		switch {
		case ftsIndexed(b):
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+ftsTable(b.rowid)+` WHERE rowid IN (SELECT rowid FROM kb_chunks WHERE doc = ?)`, d); err != nil {
				return false, err
			}
		case b.Keyword:
			if _, err := tx.ExecContext(ctx, `DELETE FROM kb_terms WHERE kb = ? AND chunk IN (SELECT rowid FROM kb_chunks WHERE doc = ?)`, b.rowid, d); err != nil {
				return false, err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM kb_documents WHERE rowid = ?`, d); err != nil {
			return false, err
		}
	}
	return len(docs) > 0, nil
}

// bump marks the base changed: readers holding its cached vectors,
// keyword index or sums reload them.
func bump(ctx context.Context, tx *sql.Tx, b Base, now int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE kbs SET generation = generation + 1, updated_at = ? WHERE rowid = ?`, now, b.rowid)
	return err
}

// RemoveDocument deletes one document (by id or stored path) of a base.
func (s *Store) RemoveDocument(ctx context.Context, name, doc string) error {
	b, err := s.Base(ctx, name)
	if err != nil {
		return err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		found, err := deleteDocument(ctx, tx, b, `(id = ?2 OR path = ?2)`, doc)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("document %s %w in %s", doc, ErrNotFound, b.Name)
		}
		return bump(ctx, tx, b, s.now().UTC().UnixNano())
	})
	if err != nil {
		return fmt.Errorf("remove document: %w", err)
	}
	return nil
}
