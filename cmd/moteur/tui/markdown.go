package tui

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	gparser "github.com/yuin/goldmark/parser"
	gtext "github.com/yuin/goldmark/text"
)

// The finished answers are rendered from Markdown by Moteur's own
// renderer: goldmark parses, and each block becomes lines wrapped to the
// width, every run of words styled on its own line so that no style leaks
// into the margin or the next line. Fenced code keeps its text as written
// (no highlighting: a highlighter's lexer tables cost milliseconds at every
// start of the program, whether or not a chat ever shows code).

// mdParser is shared: goldmark keeps per-call state in the parse context,
// so one instance serves every model.
var mdParser gparser.Parser = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList, extension.Linkify),
).Parser()

// mdMaxDepth bounds the nesting of block quotes and lists rendered as
// such: deeper content is shown as plain text, so that an answer cannot
// exhaust the stack or the width.
const mdMaxDepth = 16

// mdMargin is the left margin of an answer's lines, in cells.
const mdMargin = 2

// Inline style flags, combined as the inline nodes nest.
type mdFlags uint16

const (
	mdStrong mdFlags = 1 << iota
	mdEmph
	mdStrike
	mdCode
	mdLink
	mdURL
	mdHeading
	mdH1
	mdQuote
	mdCodeBlock
	mdFaint
)

// mdTheme is the look of one style: its colours, and whether markers
// ("**", "`", "#") are written out because the terminal shows no styles.
type mdTheme struct {
	ascii                          bool
	heading, code, codeBg, link, q string
	rule, quoteBar, bullet         string
	// sgr holds the escape sequence of each combination of flags, built
	// once: styling run by run must stay cheap for long answers.
	sgr map[mdFlags]ansi.Style
}

func themeFor(style string) *mdTheme {
	switch style {
	case "ascii", "notty":
		return &mdTheme{ascii: true, rule: "-", quoteBar: "| ", bullet: "• "}
	case "light":
		return &mdTheme{heading: "4", code: "1", codeBg: "254", link: "4", q: "8", rule: "─", quoteBar: "│ ", bullet: "• "}
	}
	return &mdTheme{heading: "6", code: "3", codeBg: "236", link: "6", q: "7", rule: "─", quoteBar: "│ ", bullet: "• "}
}

// style is the SGR style of f (empty in the ascii style).
func (t *mdTheme) style(f mdFlags) ansi.Style {
	if s, ok := t.sgr[f]; ok || t.ascii {
		return s
	}
	var s ansi.Style
	if f&(mdStrong|mdHeading) != 0 {
		s = s.Bold()
	}
	if f&(mdURL|mdFaint) != 0 {
		s = s.Faint()
	}
	if f&mdEmph != 0 {
		s = s.Italic(true)
	}
	if f&(mdH1|mdLink) != 0 {
		s = s.Underline(true)
	}
	if f&mdStrike != 0 {
		s = s.Strikethrough(true)
	}
	switch {
	case f&(mdCode|mdCodeBlock) != 0:
		s = s.ForegroundColor(lipgloss.Color(t.code))
	case f&mdLink != 0:
		s = s.ForegroundColor(lipgloss.Color(t.link))
	case f&mdHeading != 0:
		s = s.ForegroundColor(lipgloss.Color(t.heading))
	case f&mdQuote != 0:
		s = s.ForegroundColor(lipgloss.Color(t.q))
	}
	if f&mdCode != 0 {
		s = s.BackgroundColor(lipgloss.Color(t.codeBg))
	}
	if t.sgr == nil {
		t.sgr = map[mdFlags]ansi.Style{}
	}
	t.sgr[f] = s
	return s
}

// markdown renders finished answers in one style ("dark", "light" or
// "ascii"). It is used from the interface's goroutine only.
type markdown struct {
	style string
	theme *mdTheme
}

func (m *markdown) render(text string, width int) []string {
	// Tabs would become single spaces: code keeps its indentation.
	text = cleanText(strings.ReplaceAll(text, "\t", "    "))
	if m.theme == nil {
		m.theme = themeFor(m.style)
	}
	src := []byte(text)
	doc := mdParser.Parse(gtext.NewReader(src))
	r := &mdRenderer{src: src, th: m.theme}
	ls := r.blocks(doc, max(width-2*mdMargin, 10), 0)
	pad := strings.Repeat(" ", mdMargin)
	for i, l := range ls {
		if l != "" {
			ls[i] = pad + l
		}
	}
	if len(ls) == 0 {
		return []string{""}
	}
	return ls
}

type mdRenderer struct {
	src []byte
	th  *mdTheme
}

// blocks renders the block children of n, a blank line between two.
func (r *mdRenderer) blocks(n ast.Node, width, depth int) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		ls := r.block(c, width, depth)
		if len(ls) == 0 {
			continue
		}
		if len(out) > 0 && !tightItem(c) {
			out = append(out, "")
		}
		out = append(out, ls...)
	}
	return out
}

// tightItem tells whether c follows its previous sibling without a blank
// line: the text and the nested list of a tight list's item.
func tightItem(c ast.Node) bool {
	l, ok := c.Parent().(*ast.ListItem)
	if !ok {
		return false
	}
	list, ok := l.Parent().(*ast.List)
	return ok && list.IsTight
}

func (r *mdRenderer) block(n ast.Node, width, depth int) []string {
	width = max(width, 4)
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return wrapSegs(r.inline(n, 0, nil), width, r.th)
	case *ast.Heading:
		f := mdHeading
		if n.Level == 1 {
			f |= mdH1
		}
		var pre []mdSeg
		if r.th.ascii || n.Level > 1 {
			pre = []mdSeg{{text: strings.Repeat("#", n.Level) + " ", f: f}}
		}
		return wrapSegs(append(pre, r.inline(n, f, nil)...), width, r.th)
	case *ast.ThematicBreak:
		return []string{r.th.render(mdFaint, strings.Repeat(r.th.rule, min(width, 8)))}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return r.code(n, width)
	case *ast.Blockquote:
		bar := r.th.render(mdQuote, r.th.quoteBar)
		var ls []string
		if depth >= mdMaxDepth {
			ls = r.plain(n, width-2)
		} else {
			ls = r.blocks(n, width-2, depth+1)
		}
		for i, l := range ls {
			ls[i] = bar + l
		}
		return ls
	case *ast.List:
		if depth >= mdMaxDepth {
			return r.plain(n, width)
		}
		return r.list(n, width, depth)
	case *east.Table:
		return r.table(n, width)
	case *ast.HTMLBlock:
		var ls []string
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			ls = append(ls, hardWrap(strings.TrimRight(string(seg.Value(r.src)), "\n"), width, r.th.style(mdFaint))...)
		}
		return ls
	}
	if n.HasChildren() {
		return r.blocks(n, width, depth)
	}
	return nil
}

// code renders a code block: its lines as written, cut (never joined) to
// the width, in the code colour.
func (r *mdRenderer) code(n ast.Node, width int) []string {
	st := r.th.style(mdCodeBlock)
	lines := n.Lines()
	var out []string
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		l := strings.TrimRight(string(seg.Value(r.src)), "\r\n")
		out = append(out, hardWrap(l, width-mdMargin, st)...)
	}
	pad := strings.Repeat(" ", mdMargin)
	for i, l := range out {
		if l != "" {
			out[i] = pad + l
		}
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

func (r *mdRenderer) list(n *ast.List, width, depth int) []string {
	num := n.Start
	markers := make([]string, 0, n.ChildCount())
	w := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		mk := r.th.bullet
		if n.IsOrdered() {
			mk = strconv.Itoa(num) + string(n.Marker) + " "
			num++
		}
		markers = append(markers, mk)
		w = max(w, ansi.StringWidth(mk))
	}
	var out []string
	i := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if i > 0 && !n.IsTight {
			out = append(out, "")
		}
		ls := r.blocks(c, width-w, depth+1)
		if len(ls) == 0 {
			ls = []string{""}
		}
		mk := markers[i] + strings.Repeat(" ", w-ansi.StringWidth(markers[i]))
		ind := strings.Repeat(" ", w)
		for j, l := range ls {
			switch {
			case j == 0:
				ls[j] = mk + l
			case l != "":
				ls[j] = ind + l
			}
		}
		out = append(out, ls...)
		i++
	}
	return out
}

// plain renders the text of n as one wrapped paragraph: the fallback past
// the nesting bound.
func (r *mdRenderer) plain(n ast.Node, width int) []string {
	var sb strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			sb.Write(c.Segment.Value(r.src))
			sb.WriteByte(' ')
		case *ast.String:
			sb.Write(c.Value)
		}
		if c.Type() == ast.TypeBlock && c.Lines().Len() > 0 && !c.HasChildren() {
			for i := 0; i < c.Lines().Len(); i++ {
				seg := c.Lines().At(i)
				sb.Write(seg.Value(r.src))
				sb.WriteByte(' ')
			}
		}
		return ast.WalkContinue, nil
	})
	return wrapSegs([]mdSeg{{text: sb.String()}}, width, r.th)
}
