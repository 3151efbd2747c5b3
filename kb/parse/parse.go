// Package parse turns a file into a Document: its text as ordered blocks
// (headings, paragraphs, code, tables) with the heading path in force,
// whatever the format (plain text, Markdown, HTML, PDF, DOCX, CSV/TSV, XLSX,
// JSON/JSONL, source code), and each of them gzip-compressed (notes.md.gz).
//
// The package owns format detection, character-set decoding, text
// normalisation (NFC, collapsed spaces outside code) and the classification
// of bad input into a few sentinel errors (ErrUnsupported, ErrEmpty,
// ErrEncrypted, ErrCorrupt, ErrTooLarge) that callers can test with
// errors.Is and show to users as they are. It never panics on any input.
// Cutting the blocks into chunks for indexing belongs to package kb/chunk.
package parse

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// BlockKind says what a Block holds. Lists are kept as Paragraph blocks
// (one per list, one line per item) so an item never leaves its text.
type BlockKind string

// The kinds of Block.
const (
	Heading   BlockKind = "heading"
	Paragraph BlockKind = "paragraph"
	Code      BlockKind = "code"
	Table     BlockKind = "table"
)

// Block is one unit of a document in reading order. Blocks of one section
// share their Headings slice: treat it as read-only.
type Block struct {
	Kind     BlockKind
	Text     string   // the block's text; for a Table, empty (see Header/Rows)
	Level    int      // heading level (1 = top) for a Heading
	Headings []string // the heading path in force at this block (for a heading: its parents, not itself)
	Header   string   // Table: the header row rendered as "| a | b |" (Markdown table row), may be "" if none
	Rows     []string // Table: each data row rendered the same way
}

// Document is a parsed file.
type Document struct {
	Title    string // first H1 / PDF or DOCX title / HTML <title> / file name without extension
	Format   string // "text","markdown","html","pdf","docx","csv","xlsx","json","code"
	Blocks   []Block
	Warnings []string          // things the user should know that did not stop parsing
	Meta     map[string]string // optional (sheet names, language of code, page count…)
}

// DefaultMaxBytes is the file size limit used when Limits.MaxBytes is zero.
const DefaultMaxBytes = 64 << 20

// Limits bounds what File accepts.
type Limits struct {
	MaxBytes int64 // zero → DefaultMaxBytes
}

func (l Limits) maxBytes() int64 {
	if l.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return l.MaxBytes
}

// Sentinel errors. Returned errors wrap exactly one of them (or an fs error
// from File) and say which file and why.
var (
	ErrUnsupported = errors.New("unsupported format")
	ErrEmpty       = errors.New("empty document")
	ErrEncrypted   = errors.New("encrypted")
	ErrCorrupt     = errors.New("corrupt")
	ErrTooLarge    = errors.New("file too large")
)

// File parses the file at path. It checks the size before reading so that
// an oversized file is refused without touching its content.
func File(path string, lim Limits) (Document, error) {
	limit := lim.maxBytes()
	fi, err := os.Stat(path)
	if err != nil {
		return Document{}, fmt.Errorf("parse: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return Document{}, fmt.Errorf("parse: %s: %w: not a regular file (%s)", path, ErrUnsupported, fi.Mode().Type())
	}
	if fi.Size() > limit {
		return Document{}, fmt.Errorf("parse: %s: %w: %s, limit %s", path, ErrTooLarge, humanBytes(fi.Size()), humanBytes(limit))
	}
	data, err := readAtMost(path, limit)
	if err != nil {
		return Document{}, err
	}
	return Bytes(path, data)
}

// readAtMost reads the file but stops one byte past limit, so a file that
// grew after Stat is still refused instead of filling memory.
func readAtMost(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("parse: %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("parse: %s: %w: grew past the limit of %s while being read", path, ErrTooLarge, humanBytes(limit))
	}
	return data, nil
}

// Bytes parses data; name gives the extension (format) and the fallback
// title, and appears in errors. The format is chosen by extension, then by
// content sniffing.
func Bytes(name string, data []byte) (doc Document, err error) {
	defer func() {
		// The third-party parsers panic on some hostile inputs; a panic
		// here must never take the caller down.
		if r := recover(); r != nil {
			doc, err = Document{}, fmt.Errorf("parse: %s: %w: parser failure: %v", name, ErrCorrupt, r)
		}
	}()
	doc, err = parseBytes(name, data)
	if err != nil {
		return Document{}, fmt.Errorf("parse: %s: %w", name, err)
	}
	return doc, nil
}

func parseBytes(name string, data []byte) (Document, error) {
	if inner, ok := gzipInner(name); ok {
		return parseGzip(inner, data)
	}
	if isBlank(data) {
		return Document{}, fmt.Errorf("%w: no content", ErrEmpty)
	}
	format, parse, err := detect(name, data)
	if err != nil {
		return Document{}, err
	}
	doc, err := parse(data)
	if err != nil {
		return Document{}, err
	}
	doc.Format = format
	if doc.Title == "" {
		doc.Title = baseTitle(name)
	}
	if len(doc.Blocks) == 0 {
		return Document{}, fmt.Errorf("%w: no text found in %s content", ErrEmpty, format)
	}
	return doc, nil
}

// baseTitle is the file name without directory and extension.
func baseTitle(name string) string {
	base := filepath.Base(name)
	if base == "." || base == string(filepath.Separator) {
		return ""
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

func isBlank(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r', '\f', '\v':
		default:
			return false
		}
	}
	return true
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
