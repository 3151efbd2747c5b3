package parse

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// PDFs carry no structure a reader can rely on (tagged PDFs are rare), so
// headings are told by their size: a line alone in a font clearly larger
// than the body text's, short, with letters. Sizes rank the levels, the
// largest being level 1.
const (
	headingRatio    = 1.15 // how much larger than the body a heading's font is
	maxHeadingRunes = 100
	sameSize        = 0.5 // points: sizes closer than this are one size
)

// pdfOutline decides which lines are headings and at which level.
type pdfOutline struct {
	body   float64         // the body text's size: most characters have it
	levels map[float64]int // heading size → level
}

// newOutline studies the paragraphs of every page.
func newOutline(pages [][][]pdfLine) *pdfOutline {
	var sizes []sizeCount
	for _, paras := range pages {
		for _, p := range paras {
			for _, l := range p {
				sizes = tally(sizes, l.size, len(l.text))
			}
		}
	}
	o := &pdfOutline{body: mostCommon(sizes), levels: map[float64]int{}}
	var heads []float64
	for _, paras := range pages {
		for _, p := range paras {
			for i := range p {
				if o.candidate(p, i) && !slices.Contains(heads, p[i].size) {
					heads = append(heads, p[i].size)
				}
			}
		}
	}
	slices.SortFunc(heads, func(a, b float64) int { return int(b*2 - a*2) })
	for i, h := range heads {
		o.levels[h] = min(i+1, 6)
	}
	return o
}

// candidate reports a line of paragraph p that reads as a heading: alone
// in its size within the paragraph, larger than the body, short, with a
// letter.
func (o *pdfOutline) candidate(p []pdfLine, i int) bool {
	l := p[i]
	if o.body <= 0 || l.size < o.body*headingRatio || utf8.RuneCountInString(l.text) > maxHeadingRunes || isFolio(l.text) {
		return false
	}
	if i > 0 && abs(p[i-1].size-l.size) < sameSize || i+1 < len(p) && abs(p[i+1].size-l.size) < sameSize {
		return false // a paragraph set in a large font, not a heading
	}
	for _, r := range l.text {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// emit adds a paragraph's lines to b: headings as headings, the runs of
// other lines between them as paragraphs.
func (o *pdfOutline) emit(b *builder, p []pdfLine) {
	from := 0
	for i := range p {
		if !o.candidate(p, i) {
			continue
		}
		if from < i {
			b.paragraph(joinLines(p[from:i]))
		}
		b.heading(o.levels[p[i].size], p[i].text)
		from = i + 1
	}
	if from < len(p) {
		b.paragraph(joinLines(p[from:]))
	}
}
