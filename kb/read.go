package kb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// DocInfo describes a stored document.
type DocInfo struct {
	ID       string `json:"id"`
	Base     string `json:"base"`
	BaseName string `json:"base_name"`
	Path     string `json:"path"`
	Title    string `json:"title"`
	Format   string `json:"format"`
	Size     int64  `json:"size"`
	Chunks   int    `json:"chunks"`
	SHA256   string `json:"sha256"`
	// Classified is the classification rule the document's path matched.
	Classified string            `json:"classified,omitempty"`
	Warnings   []string          `json:"warnings,omitempty"`
	Meta       map[string]string `json:"meta,omitempty"`
	IngestedAt time.Time         `json:"ingested_at"`
}

// ChunkInfo is one stored chunk.
type ChunkInfo struct {
	ID       string `json:"id"`
	Document string `json:"document"`
	Index    int    `json:"index"`
	Kind     string `json:"kind"`
	Headings string `json:"headings,omitempty"`
	Page     int    `json:"page,omitempty"` // where it starts in a document with pages; 0 when unknown
	Text     string `json:"text"`
}

const docColumns = `d.id, k.id, k.name, d.path, d.title, d.format, d.size, d.chunks, d.sha256, d.classified, d.warnings, d.meta, d.ingested_at`

func scanDoc(r scanner) (DocInfo, error) {
	var d DocInfo
	var warnings, meta string
	var at int64
	if err := r.Scan(&d.ID, &d.Base, &d.BaseName, &d.Path, &d.Title, &d.Format, &d.Size, &d.Chunks, &d.SHA256,
		&d.Classified, &warnings, &meta, &at); err != nil {
		return d, err
	}
	// Both were written by json.Marshal; a damaged value is shown empty
	// rather than hiding the document.
	_ = json.Unmarshal([]byte(warnings), &d.Warnings)
	_ = json.Unmarshal([]byte(meta), &d.Meta)
	d.IngestedAt = time.Unix(0, at).UTC()
	return d, nil
}

// Document returns the document with id.
func (s *Store) Document(ctx context.Context, id string) (DocInfo, error) {
	return queryOne(ctx, s.r, scanDoc, "document "+id, `SELECT `+docColumns+`
		FROM kb_documents d JOIN kbs k ON k.rowid = d.kb WHERE d.id = ?`, id)
}

// Documents lists a base's documents whose title or path contains
// keyword (case-insensitive; "" for all), by title, one page at a time
// (page from 1); total counts every match.
func (s *Store) Documents(ctx context.Context, base, keyword string, page, pageSize int) (docs []DocInfo, total int, err error) {
	b, err := s.Base(ctx, base)
	if err != nil {
		return nil, 0, err
	}
	page, pageSize = max(page, 1), max(pageSize, 1)
	filter := `d.kb = ? AND (?2 = '' OR instr(lower(d.title), lower(?2)) > 0 OR instr(lower(d.path), lower(?2)) > 0)`
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM kb_documents d WHERE `+filter, b.rowid, keyword).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("list documents of %s: %w", b.Name, err)
	}
	docs, err = queryAll(ctx, s.r, scanDoc, `SELECT `+docColumns+` FROM kb_documents d JOIN kbs k ON k.rowid = d.kb
		WHERE `+filter+` ORDER BY d.title, d.path LIMIT ?3 OFFSET ?4`, b.rowid, keyword, pageSize, (page-1)*pageSize)
	if err != nil {
		return nil, 0, fmt.Errorf("list documents of %s: %w", b.Name, err)
	}
	return docs, total, nil
}

// DocumentsOfFormat lists a base's documents of the given formats (as
// DocInfo.Format records them: "csv", "xlsx"…), by title: the filter runs
// in the database, so a base of many documents and few tables costs what
// its tables do.
func (s *Store) DocumentsOfFormat(ctx context.Context, base string, formats ...string) ([]DocInfo, error) {
	b, err := s.Base(ctx, base)
	if err != nil {
		return nil, err
	}
	if len(formats) == 0 {
		return nil, nil
	}
	args := []any{b.rowid}
	for _, f := range formats {
		args = append(args, f)
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(formats)), ", ")
	docs, err := queryAll(ctx, s.r, scanDoc, `SELECT `+docColumns+` FROM kb_documents d JOIN kbs k ON k.rowid = d.kb
		WHERE d.kb = ? AND d.format IN (`+marks+`) ORDER BY d.title, d.path`, args...)
	if err != nil {
		return nil, fmt.Errorf("list documents of %s: %w", b.Name, err)
	}
	return docs, nil
}

const chunkColumns = `c.id, d.id, c.idx, c.kind, c.page, c.headings, c.text`

func scanChunk(r scanner) (ChunkInfo, error) {
	var c ChunkInfo
	err := r.Scan(&c.ID, &c.Document, &c.Index, &c.Kind, &c.Page, &c.Headings, &c.Text)
	return c, err
}

// Chunk returns the chunk with id.
func (s *Store) Chunk(ctx context.Context, id string) (ChunkInfo, error) {
	return queryOne(ctx, s.r, scanChunk, "chunk "+id, `SELECT `+chunkColumns+`
		FROM kb_chunks c JOIN kb_documents d ON d.rowid = c.doc WHERE c.id = ?`, id)
}

// Chunks returns up to limit chunks of a document in reading order,
// starting at offset (0-based); limit < 0 means all.
func (s *Store) Chunks(ctx context.Context, doc string, offset, limit int) ([]ChunkInfo, error) {
	out, err := queryAll(ctx, s.r, scanChunk, `SELECT `+chunkColumns+`
		FROM kb_chunks c JOIN kb_documents d ON d.rowid = c.doc WHERE d.id = ? ORDER BY c.idx LIMIT ? OFFSET ?`,
		doc, limit, max(offset, 0))
	if err != nil {
		return nil, fmt.Errorf("chunks of %s: %w", doc, err)
	}
	return out, nil
}
