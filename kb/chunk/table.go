package chunk

import (
	"strings"

	"github.com/moteur/moteur/kb/parse"
)

// table cuts a table between rows. Every chunk starts with the header row
// and its delimiter row so each one reads as a Markdown table on its own;
// the first chunk also carries the queued heading lines and later ones
// the section's heading line, while they leave half the chunk to rows.
func (s *splitter) table(b parse.Block, pos int) {
	s.flush()
	if b.Header == "" && len(b.Rows) == 0 {
		return
	}
	header := tableHeader(b.Header)
	if len(s.prefix) > 0 && runes(strings.Join(s.prefix, partSep))+len(partSep)+runes(header) > s.size/2 {
		s.flushPrefix() // the headings cannot share the chunk with the rows
	}
	t := tableCut{s: s, header: header}
	t.begin(true, pos)
	off := pos
	if b.Header != "" {
		off += runes(b.Header) + 1
	}
	if len(b.Rows) == 0 { // a header alone is still content
		t.s.emit(KindTable, strings.Join(t.lines, "\n"), t.start)
		return
	}
	for _, row := range b.Rows {
		t.row(row, off)
		off += runes(row) + 1
	}
	t.end()
}

// tableCut is the state of one table being cut.
type tableCut struct {
	s      *splitter
	header string // header and delimiter rows, "" when the table has none
	lines  []string
	n      int  // runes of lines joined by "\n"
	rows   bool // lines holds data rows, not only context
	start  int
}

// begin starts a chunk with its context lines.
func (t *tableCut) begin(first bool, start int) {
	t.lines, t.n, t.rows, t.start = nil, 0, false, start
	ctx := t.context(first)
	if ctx != "" {
		t.lines = append(t.lines, ctx)
		t.n = runes(ctx)
	}
}

// context is what tops a chunk: the queued headings (first chunk) or the
// section's heading line, then the header, as long as it takes at most
// half the chunk.
func (t *tableCut) context(first bool) string {
	heading := t.s.sectionLine
	if first && len(t.s.prefix) > 0 {
		heading = strings.Join(t.s.prefix, partSep)
		t.start = t.s.prefixStart
		t.s.prefix = nil
	}
	for _, c := range []string{joinNonEmpty(heading, t.header), t.header} {
		if runes(c) <= t.s.size/2 {
			return c
		}
	}
	return ""
}

func joinNonEmpty(heading, header string) string {
	switch {
	case heading == "":
		return header
	case header == "":
		return heading
	}
	return heading + partSep + header
}

// row adds one row, starting a new chunk when it does not fit; a row
// longer than a chunk is cut as prose, each piece under the context.
func (t *tableCut) row(row string, off int) {
	n := runes(row)
	if t.n+1+n <= t.s.size {
		t.add(row, n)
		return
	}
	if t.rows {
		t.end()
		t.begin(false, off)
	}
	room := t.s.size - t.n - 1
	if n <= room {
		t.add(row, n)
		return
	}
	// Later pieces sit under the section's context, which may be shorter
	// or longer than this chunk's. Never asking for more than room after
	// the first piece means no deferred first piece.
	later := min(room, t.s.size-runes(t.context(false))-1)
	r := []rune(row)
	for i, p := range cutProse(r, room, later, 0) {
		if i > 0 {
			t.end()
			t.begin(false, off+p.start)
		}
		t.add(string(r[p.start:p.end]), p.end-p.start)
	}
}

func (t *tableCut) add(line string, n int) {
	if len(t.lines) > 0 {
		t.n++
	}
	t.lines = append(t.lines, line)
	t.n += n
	t.rows = true
}

// end emits the chunk if it holds rows.
func (t *tableCut) end() {
	if t.rows {
		t.s.emit(KindTable, strings.Join(t.lines, "\n"), t.start)
	}
	t.lines, t.rows = nil, false
}

// tableHeader is the header row followed by its delimiter row.
func tableHeader(header string) string {
	if header == "" {
		return ""
	}
	return header + "\n" + delimiterRow(countCells(header))
}

// countCells counts the cells of a rendered row "| a | b |", escaped
// pipes excluded.
func countCells(row string) int {
	n := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return max(n-1, 1)
}

func delimiterRow(cells int) string {
	return "|" + strings.Repeat(" --- |", cells)
}

// tableText is the table's text in reading order (for offsets): header
// and rows joined by "\n".
func tableText(b parse.Block) string {
	lines := b.Rows
	if b.Header != "" {
		lines = append([]string{b.Header}, b.Rows...)
	}
	return strings.Join(lines, "\n")
}
