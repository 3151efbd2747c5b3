// Package chunk cuts a parsed document (package kb/parse) into chunks for
// indexing: pieces of at most Config.Size runes that follow the document's
// structure. It owns the sizing rules: headings start a new chunk and top
// it ("## Title\n\nbody"); small paragraphs of a section are packed; a
// paragraph too long is cut at sentence boundaries, then at white space,
// never inside a word unless the word alone exceeds the size, with an
// overlap repeated from the previous piece; code is never mixed with prose
// and is cut at line ends; tables are cut between rows with their header
// repeated. The result is deterministic and never holds an empty chunk.
package chunk

import (
	"fmt"

	"github.com/moteur/moteur/kb/parse"
)

// Defaults and bounds of Config.
const (
	DefaultSize    = 1000
	DefaultOverlap = 100
	MinSize        = 100
	MaxSize        = 20000
)

// Config sets the chunk size and overlap.
type Config struct {
	Size    int `json:"size"`    // target maximum chunk length in runes; 0 → DefaultSize (1000)
	Overlap int `json:"overlap"` // runes of the previous chunk's end repeated at the start of the next when a paragraph had to be split or blocks were packed; 0 → DefaultOverlap (100); negative → no overlap
}

// Chunk is one indexable piece of a document. Chunks of one section share
// their Headings slice: treat it as read-only.
type Chunk struct {
	Index    int      // 0-based, reading order
	Text     string   // never empty; at most Size runes
	Headings []string // heading path of the chunk's first block, its section's own heading included
	Kind     string   // "text", "code" or "table"
	Start    int      // rune offset of the chunk's start in the document's reading order (concatenation of block texts), for positions
	Page     int      // page (1-based) where the chunk starts, for documents with pages (PDF); 0 when unknown
}

// Chunk kinds.
const (
	KindText  = "text"
	KindCode  = "code"
	KindTable = "table"
)

// Resolved returns c with its defaults applied, an overlap of none written
// -1: the same chunking as c, stated in full.
func (c Config) Resolved() Config {
	size, overlap := c.resolved()
	if overlap == 0 {
		overlap = -1
	}
	return Config{Size: size, Overlap: overlap}
}

// resolved returns the size and overlap in force, defaults applied.
func (c Config) resolved() (size, overlap int) {
	size, overlap = c.Size, c.Overlap
	if size == 0 {
		size = DefaultSize
	}
	switch {
	case overlap == 0:
		overlap = DefaultOverlap
	case overlap < 0:
		overlap = 0
	}
	return size, overlap
}

// Validate reports a Config that Split would have to correct.
func (c Config) Validate() error {
	size, overlap := c.resolved()
	if size < MinSize || size > MaxSize {
		return fmt.Errorf("chunk: size %d runes is out of range [%d, %d]: smaller chunks carry too little context to be retrieved, larger ones exceed what embedding models accept", size, MinSize, MaxSize)
	}
	if overlap >= size/2 {
		return fmt.Errorf("chunk: overlap %d runes must be less than half the size (%d runes): each chunk must bring more new text than it repeats", overlap, size)
	}
	return nil
}

// clamped is the nearest valid configuration, so Split never fails.
func (c Config) clamped() (size, overlap int) {
	size, overlap = c.resolved()
	size = min(max(size, MinSize), MaxSize)
	if overlap >= size/2 {
		overlap = size/2 - 1
	}
	return size, overlap
}

// Split cuts doc into chunks in reading order. An invalid cfg is clamped
// to the nearest valid one (see Validate to report it instead).
//
// A document with pages (parse.Document.BlockPages) is cut at each page
// too, and each chunk carries its page.
//
// Start offsets count runes in the concatenation of the blocks' texts,
// where a table's text is its header and rows joined by "\n".
func Split(doc parse.Document, cfg Config) []Chunk {
	size, overlap := cfg.clamped()
	s := splitter{size: size, overlap: overlap}
	pages := doc.BlockPages()
	pos := 0
	for i, b := range doc.Blocks {
		if pages != nil && (len(s.pages) == 0 || s.pages[len(s.pages)-1].page != pages[i]) {
			// A new page closes the chunk: a passage is cited by the page
			// it is on.
			s.flush()
			s.pages = append(s.pages, pageMark{start: pos, page: pages[i]})
		}
		s.block(b, pos)
		pos += blockLen(b)
	}
	s.finish()
	return s.out
}
