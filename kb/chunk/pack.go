package chunk

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/moteur/moteur/kb/parse"
)

// partSep joins the blocks packed into one chunk.
const partSep = "\n\n"

// splitter walks the blocks once, keeping the chunk being filled open.
type splitter struct {
	size, overlap int
	out           []Chunk

	path        []string // heading path of the current section's body
	sectionLine string   // the current section's heading line ("## Title")
	prefix      []string // heading lines waiting to top the next chunk
	prefixStart int      // offset of the first pending heading

	cur *open // chunk being filled; nil when none

	pages []pageMark // where each page starts in reading order; nil when the document has no pages
}

// pageMark says that the text from offset start on is on page.
type pageMark struct{ start, page int }

// pageAt is the page of the text at offset pos, 0 when unknown.
func (s *splitter) pageAt(pos int) int {
	i := sort.Search(len(s.pages), func(i int) bool { return s.pages[i].start > pos })
	if i == 0 {
		return 0
	}
	return s.pages[i-1].page
}

// open is a chunk being filled with parts joined by partSep.
type open struct {
	kind  string
	parts []string
	n     int // runes of the joined parts
	start int
	last  part // the last body part, source of the next chunk's overlap
	// seedOnly: the only body is the overlap repeated from the previous
	// chunk, which must not become a chunk by itself.
	seedOnly bool
}

// part is a body text and its offset in reading order.
type part struct {
	text  string
	start int
}

// room is how many runes one more part may have.
func (o *open) room(size int) int {
	if len(o.parts) == 0 {
		return size
	}
	return size - o.n - len(partSep)
}

func (o *open) add(text string, n int) {
	if len(o.parts) > 0 {
		o.n += len(partSep)
	}
	o.parts = append(o.parts, text)
	o.n += n
}

func (o *open) addBody(text string, n, start int) {
	o.add(text, n)
	o.last = part{text, start}
	o.seedOnly = false
}

func (s *splitter) block(b parse.Block, pos int) {
	switch b.Kind {
	case parse.Heading:
		s.heading(b, pos)
	case parse.Code:
		s.code(b.Text, pos)
	case parse.Table:
		s.table(b, pos)
	default:
		s.prose(b.Text, pos)
	}
}

func (s *splitter) finish() {
	s.flush()
	s.flushPrefix()
}

// heading closes the current chunk and queues the heading line to top the
// next one; headings with no body in between are queued together.
func (s *splitter) heading(b parse.Block, pos int) {
	text := strings.TrimSpace(b.Text)
	if text == "" {
		return
	}
	s.flush()
	line := strings.Repeat("#", min(max(b.Level, 1), 6)) + " " + text
	if runes(strings.Join(append(s.prefix, line), partSep)) > s.size/2 {
		// Too many or too long headings would crowd the body out of the
		// chunk: they get a chunk of their own.
		s.flushPrefix()
	}
	if len(s.prefix) == 0 {
		s.prefixStart = pos
	}
	s.prefix = append(s.prefix, line)
	s.path = append(b.Headings[:len(b.Headings):len(b.Headings)], text)
	s.sectionLine = line
	if runes(line) > s.size/2 {
		s.flushPrefix()
	}
}

// flushPrefix emits the queued heading lines as a chunk of their own.
func (s *splitter) flushPrefix() {
	if len(s.prefix) == 0 {
		return
	}
	text := strings.Join(s.prefix, partSep)
	s.prefix = nil
	r := []rune(text)
	for _, p := range cutProse(r, s.size, s.size, 0) {
		s.emit(KindText, string(r[p.start:p.end]), s.prefixStart)
	}
}

// openChunk starts a chunk, topped by the queued heading lines if any.
func (s *splitter) openChunk(kind string, pos int) {
	s.cur = &open{kind: kind, start: pos}
	if len(s.prefix) > 0 {
		text := strings.Join(s.prefix, partSep)
		s.cur.add(text, runes(text))
		s.cur.start = s.prefixStart
		s.prefix = nil
	}
}

// flush emits the open chunk.
func (s *splitter) flush() {
	if s.cur == nil {
		return
	}
	s.emit(s.cur.kind, strings.Join(s.cur.parts, partSep), s.cur.start)
	s.cur = nil
}

func (s *splitter) emit(kind, text string, start int) {
	if strings.TrimSpace(text) == "" {
		return
	}
	s.out = append(s.out, Chunk{
		Index:    len(s.out),
		Text:     text,
		Headings: s.path,
		Kind:     kind,
		Start:    start,
		Page:     s.pageAt(start),
	})
}

// prose packs a paragraph into the open text chunk, or starts a new one
// that repeats the end of the previous (the overlap), or cuts the
// paragraph when it is longer than a chunk.
func (s *splitter) prose(text string, pos int) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	n := runes(text)
	if s.cur != nil && s.cur.kind != KindText {
		s.flush()
	}
	if s.cur != nil && n <= s.cur.room(s.size) {
		s.cur.addBody(text, n, pos)
		return
	}
	var seed part
	if s.cur != nil {
		seed = s.overlapOf(s.cur.last)
		s.flush()
	}
	s.openChunk(KindText, pos)
	if seed.text != "" && runes(seed.text) <= s.cur.room(s.size)-n-len(partSep) {
		s.seed(seed)
	}
	if n <= s.cur.room(s.size) {
		s.cur.addBody(text, n, pos)
		return
	}
	if seed.text != "" && s.cur.room(s.size) >= s.size/2+len(partSep)+runes(seed.text) {
		s.seed(seed) // a long paragraph keeps the overlap if it leaves room
	}
	s.cutInto(KindText, text, pos, func(r []rune, first int) []span {
		return cutProse(r, first, s.size, s.overlap)
	})
}

// seed starts the open chunk with the overlap taken from the previous one.
func (s *splitter) seed(p part) {
	s.cur.addBody(p.text, runes(p.text), p.start)
	s.cur.start = p.start
	s.cur.seedOnly = true
}

// overlapOf returns the end of p to repeat at the top of the next chunk:
// at most s.overlap runes, starting at a word.
func (s *splitter) overlapOf(p part) part {
	if s.overlap <= 0 || p.text == "" {
		return part{}
	}
	r := []rune(p.text)
	whole := span{0, len(r)}
	from := overlapStart(r, whole, s.overlap, len(r))
	if from >= len(r) {
		return part{}
	}
	return part{string(r[from:]), p.start + from}
}

// code packs code blocks together (never with prose) and cuts a block
// too long for a chunk at line ends.
func (s *splitter) code(text string, pos int) {
	if strings.TrimSpace(text) == "" {
		return
	}
	n := runes(text)
	if s.cur != nil && (s.cur.kind != KindCode || n > s.cur.room(s.size)) {
		s.flush()
	}
	if s.cur == nil {
		s.openChunk(KindCode, pos)
	}
	if n <= s.cur.room(s.size) {
		s.cur.addBody(text, n, pos)
		return
	}
	s.cutInto(KindCode, text, pos, func(r []rune, first int) []span {
		return cutLines(r, first, s.size)
	})
}

// cutInto cuts text with cut and distributes the pieces: the first into
// the open chunk, each middle one as a chunk, the last left open so that
// following small blocks can join it.
func (s *splitter) cutInto(kind, text string, pos int, cut func(r []rune, first int) []span) {
	r := []rune(text)
	pieces := cut(r, s.cur.room(s.size))
	for i, p := range pieces {
		if i > 0 || p == deferred {
			if s.cur != nil && s.cur.seedOnly {
				s.cur = nil
			}
			s.flush()
			if p == deferred {
				continue
			}
			s.openChunk(kind, pos+p.start)
		}
		piece := string(r[p.start:p.end])
		s.cur.addBody(piece, p.end-p.start, pos+p.start)
	}
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// blockLen is the block's length in the reading order used for Start.
func blockLen(b parse.Block) int {
	if b.Kind != parse.Table {
		return runes(b.Text)
	}
	return runes(tableText(b))
}
