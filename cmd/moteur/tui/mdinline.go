package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// An inline run of Markdown is a list of segments, each text in one set
// of styles; wrapSegs lays them out in lines of a width.

type mdSeg struct {
	text string
	f    mdFlags
	brk  bool // a hard line break
}

// inline appends the segments of n's inline children, in flags f.
func (r *mdRenderer) inline(n ast.Node, f mdFlags, out []mdSeg) []mdSeg {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = r.inlineNode(c, f, out)
	}
	return out
}

func (r *mdRenderer) inlineNode(c ast.Node, f mdFlags, out []mdSeg) []mdSeg {
	ascii := r.th.ascii
	mark := func(m string) []mdSeg {
		if ascii {
			out = append(out, mdSeg{text: m, f: f})
		}
		return out
	}
	switch c := c.(type) {
	case *ast.Text:
		out = append(out, mdSeg{text: string(c.Segment.Value(r.src)), f: f})
		switch {
		case c.HardLineBreak():
			out = append(out, mdSeg{brk: true})
		case c.SoftLineBreak():
			out = append(out, mdSeg{text: " ", f: f})
		}
	case *ast.String:
		out = append(out, mdSeg{text: string(c.Value), f: f})
	case *ast.CodeSpan:
		var sb strings.Builder
		for t := c.FirstChild(); t != nil; t = t.NextSibling() {
			switch t := t.(type) {
			case *ast.Text:
				sb.Write(t.Segment.Value(r.src))
			case *ast.String:
				sb.Write(t.Value)
			}
		}
		out = mark("`")
		out = append(out, mdSeg{text: sb.String(), f: f | mdCode})
		out = mark("`")
	case *ast.Emphasis:
		m, fl := "*", mdEmph
		if c.Level >= 2 {
			m, fl = "**", mdStrong
		}
		out = mark(m)
		out = r.inline(c, f|fl, out)
		out = mark(m)
	case *east.Strikethrough:
		out = mark("~~")
		out = r.inline(c, f|mdStrike, out)
		out = mark("~~")
	case *ast.Link:
		start := len(out)
		out = r.inline(c, f|mdLink, out)
		var text strings.Builder
		for _, s := range out[start:] {
			text.WriteString(s.text)
		}
		if dest := string(c.Destination); dest != "" && dest != text.String() {
			out = append(out, mdSeg{text: " (", f: f | mdURL}, mdSeg{text: dest, f: f | mdURL}, mdSeg{text: ")", f: f | mdURL})
		}
	case *ast.AutoLink:
		out = append(out, mdSeg{text: string(c.URL(r.src)), f: f | mdLink})
	case *ast.Image:
		out = append(out, mdSeg{text: "[", f: f | mdFaint})
		out = r.inline(c, f|mdFaint, out)
		out = append(out, mdSeg{text: "]", f: f | mdFaint})
		if dest := string(c.Destination); dest != "" {
			out = append(out, mdSeg{text: " (" + dest + ")", f: f | mdURL})
		}
	case *ast.RawHTML:
		for i := 0; i < c.Segments.Len(); i++ {
			seg := c.Segments.At(i)
			out = append(out, mdSeg{text: string(seg.Value(r.src)), f: f | mdFaint})
		}
	case *east.TaskCheckBox:
		box := "[ ] "
		if c.IsChecked {
			box = "[x] "
		}
		out = append(out, mdSeg{text: box, f: f})
	default:
		out = r.inline(c, f, out)
	}
	return out
}

// mdRun is text of one style on a line being laid out.
type mdRun struct {
	text string
	f    mdFlags
}

// wrapSegs lays segs out in lines of at most width cells, breaking at
// spaces (runs of spaces become one) and cutting only a word longer than
// a line. Each line is styled on its own.
func wrapSegs(segs []mdSeg, width int, th *mdTheme) []string {
	width = max(width, 1)
	w := mdWrapper{width: width, th: th}
	for _, s := range segs {
		if s.brk {
			w.flushWord()
			w.emit()
			continue
		}
		t := s.text
		for t != "" {
			i := strings.IndexAny(t, " \n")
			if i < 0 {
				w.addPiece(t, s.f)
				break
			}
			if i > 0 {
				w.addPiece(t[:i], s.f)
			}
			w.flushWord()
			t = t[i+1:]
		}
	}
	w.flushWord()
	if len(w.runs) > 0 || len(w.lines) == 0 {
		w.emit()
	}
	return w.lines
}

type mdWrapper struct {
	width int
	th    *mdTheme
	lines []string
	runs  []mdRun // the line being filled
	lineW int
	word  []mdRun // the word being read
	wordW int
}

func (w *mdWrapper) addPiece(t string, f mdFlags) {
	w.word = append(w.word, mdRun{t, f})
	w.wordW += ansi.StringWidth(t)
}

func (w *mdWrapper) flushWord() {
	if len(w.word) == 0 {
		return
	}
	if w.lineW > 0 && w.lineW+1+w.wordW > w.width {
		w.emit()
	}
	if w.lineW > 0 {
		// The space between two words of one style is in that style, so
		// that an underlined link reads as one.
		var f mdFlags
		if last := w.runs[len(w.runs)-1]; last.f == w.word[0].f {
			f = last.f
		}
		w.runs = append(w.runs, mdRun{" ", f})
		w.lineW++
	}
	if w.lineW+w.wordW <= w.width {
		w.runs = append(w.runs, w.word...)
		w.lineW += w.wordW
	} else {
		w.cutWord()
	}
	w.word, w.wordW = w.word[:0], 0
}

// cutWord lays out a word wider than the room left, cell by cell.
func (w *mdWrapper) cutWord() {
	for _, p := range w.word {
		var sb strings.Builder
		for _, c := range p.text {
			cw := ansi.StringWidth(string(c))
			if w.lineW+cw > w.width && w.lineW > 0 {
				if sb.Len() > 0 {
					w.runs = append(w.runs, mdRun{sb.String(), p.f})
					sb.Reset()
				}
				w.emit()
			}
			sb.WriteRune(c)
			w.lineW += cw
		}
		if sb.Len() > 0 {
			w.runs = append(w.runs, mdRun{sb.String(), p.f})
		}
	}
}

// emit ends the line: adjacent runs of one style are rendered together.
func (w *mdWrapper) emit() {
	var sb strings.Builder
	for i := 0; i < len(w.runs); {
		j := i + 1
		for j < len(w.runs) && w.runs[j].f == w.runs[i].f {
			j++
		}
		var t strings.Builder
		for _, r := range w.runs[i:j] {
			t.WriteString(r.text)
		}
		sb.WriteString(w.th.render(w.runs[i].f, t.String()))
		i = j
	}
	w.lines = append(w.lines, sb.String())
	w.runs, w.lineW = w.runs[:0], 0
}

// render styles s in f; plain text and the ascii style need no escape
// sequences.
func (t *mdTheme) render(f mdFlags, s string) string {
	if f == 0 || t.ascii || s == "" {
		return s
	}
	return t.style(f).Styled(s)
}

// hardWrap cuts a line of plain text (code) to width cells, styled.
func hardWrap(l string, width int, st ansi.Style) []string {
	if l == "" {
		return []string{""}
	}
	ls := strings.Split(ansi.Hardwrap(l, max(width, 1), true), "\n")
	for i, x := range ls {
		if x != "" {
			ls[i] = st.Styled(x)
		}
	}
	return ls
}
