package parse

import (
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pdfLine is one line of a page's text.
type pdfLine struct {
	text    string
	size    float64 // the font size most of its characters have
	newPara bool    // a paragraph starts with this line
}

// layoutLines rebuilds a page's lines from its glyphs in content order: a
// vertical move of half a line starts a new line, a larger one a new
// paragraph, and a horizontal gap, or a backward jump on the same line,
// inserts a space. Space characters count as gaps.
func layoutLines(glyphs []pdfGlyph) []pdfLine {
	var lines []pdfLine
	var buf []byte // the line being built, reused
	var sizes []sizeCount
	newPara := true
	end := func() {
		if len(buf) > 0 {
			lines = append(lines, pdfLine{text: string(buf), size: mostCommon(sizes), newPara: newPara})
		}
		buf, sizes = buf[:0], sizes[:0]
	}
	var prev pdfGlyph
	have, space := false, false
	for _, g := range glyphs {
		if g.text == "" {
			continue
		}
		if g.text == " " || strings.TrimSpace(g.text) == "" {
			space = have
			continue
		}
		if have {
			switch sep := glyphGap(prev, g); {
			case sep == "\n\n" || sep == "\n":
				end()
				newPara = sep == "\n\n"
			case sep == " " || space:
				buf = append(buf, ' ')
			}
		}
		buf = append(buf, g.text...)
		sizes = tally(sizes, g.size, len(g.text))
		prev, have, space = g, true, false
	}
	end()
	return lines
}

// sizeCount is how many bytes of a line are in one font size.
type sizeCount struct {
	size float64
	n    int
}

func tally(sizes []sizeCount, size float64, n int) []sizeCount {
	size = math.Round(size*2) / 2 // half points: the same size drawn through two matrices
	for i := range sizes {
		if sizes[i].size == size {
			sizes[i].n += n
			return sizes
		}
	}
	return append(sizes, sizeCount{size, n})
}

func mostCommon(sizes []sizeCount) float64 {
	best := sizeCount{}
	for _, s := range sizes {
		if s.n > best.n {
			best = s
		}
	}
	return best.size
}

func glyphGap(prev, g pdfGlyph) string {
	size := max(prev.size, g.size, 1)
	dy := math.Abs(prev.y - g.y)
	switch {
	case dy > 1.7*size:
		return "\n\n"
	case dy > 0.5*size:
		return "\n"
	}
	gap := g.x - (prev.x + prev.w)
	if gap > 0.15*size || g.x < prev.x-size {
		return " "
	}
	return ""
}

// pageParagraphs groups a page's lines into paragraphs, without the
// page's own number (a first or last paragraph that is only a number),
// with table-of-contents dot leaders dropped and blank lines left out.
func pageParagraphs(lines []pdfLine) [][]pdfLine {
	var paras [][]pdfLine
	for _, l := range lines {
		if mayHaveLeaders(l.text) {
			l.text = dropLineLeaders(l.text)
		}
		if strings.TrimSpace(l.text) == "" {
			continue
		}
		if l.newPara || len(paras) == 0 {
			paras = append(paras, nil)
		}
		paras[len(paras)-1] = append(paras[len(paras)-1], l)
	}
	folio := func(p []pdfLine) bool { return len(p) == 1 && isFolio(p[0].text) }
	if n := len(paras); n > 1 && folio(paras[n-1]) {
		paras = paras[:n-1]
	}
	if len(paras) > 1 && folio(paras[0]) {
		paras = paras[1:]
	}
	return paras
}

// mayHaveLeaders is a quick test for the characters isLeader knows: the
// ASCII ones, or the lead byte of the others' UTF-8.
func mayHaveLeaders(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.', ':', '_', 0xC2, 0xE2:
			return true
		}
	}
	return false
}

// joinLines is a paragraph's text, one line a line.
func joinLines(lines []pdfLine) string {
	texts := make([]string, len(lines))
	for i, l := range lines {
		texts[i] = l.text
	}
	return strings.Join(texts, "\n")
}

// isFolio reports a page number standing alone: "12", "- 12 -", "xiv"
// (front matter is numbered i to xxxix).
func isFolio(s string) bool {
	s = strings.Trim(strings.TrimSpace(s), "-– ")
	if s == "" || len(s) > 6 {
		return false
	}
	if strings.Trim(s, "0123456789") == "" {
		return true
	}
	return smallRoman.MatchString(s)
}

var smallRoman = regexp.MustCompile(`^x{0,3}(ix|iv|v?i{0,3})$`)

// dropLineLeaders removes the dot leaders of a line: "Introduction .....
// 3" becomes "Introduction 3". A leader is a run of at least four dots
// (or colons, middle dots, ellipses, underscores), spaced or not.
func dropLineLeaders(l string) string {
	out := make([]byte, 0, len(l))
	changed := false
	for i := 0; i < len(l); {
		j, scanned, n := leaderRun(l, i)
		if n < 4 {
			// Not a leader: keep what was scanned (at least one rune),
			// so that each byte is looked at a bounded number of times.
			next := max(j, scanned)
			if next == i {
				_, size := utf8.DecodeRuneInString(l[i:])
				next = i + size
			}
			out = append(out, l[i:next]...)
			i = next
			continue
		}
		for len(out) > 0 && out[len(out)-1] == ' ' {
			out = out[:len(out)-1]
		}
		for j < len(l) && l[j] == ' ' {
			j++
		}
		if len(out) > 0 && j < len(l) {
			out = append(out, ' ')
		}
		i, changed = j, true
	}
	if !changed {
		return l
	}
	return strings.TrimSpace(string(out))
}

// leaderRun measures the run of leader characters (with spaces between)
// starting at i: where its last leader ends, where the scan stopped (at
// the first other character) and how many leader characters it holds. A
// period ending a sentence ("end. Next") is a run of one.
func leaderRun(l string, i int) (end, scanned, n int) {
	end = i
	k := i
	for k < len(l) {
		r, size := utf8.DecodeRuneInString(l[k:])
		switch {
		case isLeader(r):
			n++
			k += size
			end = k
		case r == ' ' || unicode.Is(unicode.Zs, r):
			k += size
		default:
			return end, k, n
		}
	}
	return end, k, n
}

func isLeader(r rune) bool {
	switch r {
	case '.', ':', '·', '…', '_', '⋅', '∙':
		return true
	}
	return false
}
