package parse

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// builder collects blocks in reading order and keeps the heading path in
// force. Every format parser goes through it, so cleaning rules (NFC, no
// empty blocks, collapsed spaces outside code) hold for all formats.
type builder struct {
	blocks []Block
	path   []string // heading texts in force, outermost first
	levels []int    // their levels
	title  string   // text of the first level-1 heading
}

func (b *builder) document() Document {
	return Document{Title: b.title, Blocks: b.blocks}
}

// heading closes the headings at the same or a deeper level and opens
// this one. The path slices are never appended to in place, so blocks
// already emitted keep their own path.
func (b *builder) heading(level int, text string) {
	text = cleanInline(text)
	if text == "" {
		return
	}
	level = max(level, 1)
	n := len(b.levels)
	for n > 0 && b.levels[n-1] >= level {
		n--
	}
	parents := b.path[:n:n]
	b.blocks = append(b.blocks, Block{Kind: Heading, Text: text, Level: level, Headings: parents})
	b.path = append(parents, text)
	b.levels = append(b.levels[:n:n], level)
	if level == 1 && b.title == "" {
		b.title = text
	}
}

// paragraph adds prose: lines are kept, spaces collapsed within them.
func (b *builder) paragraph(text string) {
	if text = cleanProse(text); text != "" {
		b.add(Block{Kind: Paragraph, Text: text})
	}
}

// preformatted adds a paragraph whose indentation carries meaning
// (nested lists, pretty-printed JSON): only NFC and control characters
// are cleaned.
func (b *builder) preformatted(text string) {
	if text = cleanCode(text); text != "" {
		b.add(Block{Kind: Paragraph, Text: text})
	}
}

// code adds source text verbatim apart from NFC, control characters and
// blank lines at both ends.
func (b *builder) code(text string) {
	if text = cleanCode(text); text != "" {
		b.add(Block{Kind: Code, Text: text})
	}
}

// table adds a table from raw cells; empty rows and trailing empty
// columns are dropped, short rows padded so every row has the same width.
func (b *builder) table(header []string, rows [][]string) {
	header = cleanCells(header)
	kept := make([][]string, 0, len(rows))
	width := len(header)
	for _, r := range rows {
		if r = cleanCells(r); len(r) > 0 {
			kept = append(kept, r)
			width = max(width, len(r))
		}
	}
	if width == 0 {
		return
	}
	blk := Block{Kind: Table, Rows: make([]string, 0, len(kept))}
	if len(header) > 0 {
		blk.Header = renderRow(header, width)
	}
	for _, r := range kept {
		blk.Rows = append(blk.Rows, renderRow(r, width))
	}
	b.add(blk)
}

func (b *builder) add(blk Block) {
	blk.Headings = b.path
	b.blocks = append(b.blocks, blk)
}

// cleanCells cleans each cell and drops trailing empty cells; a row of
// empty cells becomes nil.
func cleanCells(cells []string) []string {
	out := make([]string, len(cells))
	last := -1
	for i, c := range cells {
		out[i] = strings.ReplaceAll(cleanInline(c), "|", `\|`)
		if out[i] != "" {
			last = i
		}
	}
	return out[:last+1]
}

// renderRow renders cells as a Markdown table row "| a | b |".
func renderRow(cells []string, width int) string {
	var sb strings.Builder
	sb.WriteString("|")
	for i := range width {
		sb.WriteString(" ")
		if i < len(cells) {
			sb.WriteString(cells[i])
		}
		sb.WriteString(" |")
	}
	return sb.String()
}

// cleanInline makes one line of text: NFC, every run of whitespace
// (newlines included) becomes one space, control characters go.
func cleanInline(s string) string {
	return collapseSpaces(norm.NFC.String(s))
}

// cleanProse keeps line structure but collapses spaces within lines and
// drops empty lines.
func cleanProse(s string) string {
	s = norm.NFC.String(s)
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if l = collapseSpaces(l); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// cleanCode keeps text as is except NFC, control characters, trailing
// spaces and blank lines at both ends.
func cleanCode(s string) string {
	s = norm.NFC.String(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(stripControls(l), unicode.IsSpace)
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// collapseSpaces trims s and turns each run of white space (newlines
// included) into a single space. Control characters are dropped.
func collapseSpaces(s string) string {
	if isTidyASCII(s) {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case isControl(r):
			continue
		}
		if space && sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		space = false
		sb.WriteRune(r)
	}
	return sb.String()
}

// isTidyASCII is the common case collapseSpaces has nothing to do for:
// printable ASCII, single inner spaces, none at the ends.
func isTidyASCII(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}

func stripControls(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return -1
		}
		return r
	}, s)
}

// isControl reports characters that carry no text: C0/C1 controls other
// than tab and newline, and the BOM / zero-width no-break space.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' {
		return false
	}
	return unicode.IsControl(r) || r == '\uFEFF'
}
