package parse

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	gparser "github.com/yuin/goldmark/parser"
	gtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// mdParser is shared: goldmark parsers keep per-call state in the parse
// context, so one instance serves concurrent calls.
// It is built on first use: a process that parses no Markdown (moteur
// version) does not pay for it at start.
var mdParser = sync.OnceValue(func() gparser.Parser {
	return goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser()
})

// maxNesting bounds the recursion over nested block quotes and lists;
// deeper content is flattened to plain text so hostile input cannot
// exhaust the stack.
const maxNesting = 32

func parseMarkdownBytes(data []byte) (Document, error) {
	text, warnings := DecodeText(data)
	title, text := frontMatter(text)
	text, tamed := tameNesting(text)
	doc := parseMarkdown(text)
	if title != "" {
		doc.Title = title
	}
	if tamed {
		warnings = append(warnings, "Markdown nested too deeply: the deepest quotes and lists were flattened")
	}
	doc.Warnings = warnings
	return doc, nil
}

// frontMatter removes a leading YAML front matter block ("---" lines, as
// in Jekyll or Hugo sites), which goldmark would read as a rule and a
// heading, and returns its title field if any.
func frontMatter(text string) (title, body string) {
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return "", text
	}
	meta, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		meta, ok = strings.CutSuffix(strings.TrimRight(rest, "\n"), "\n---")
		if !ok {
			return "", text
		}
		body = ""
	}
	for line := range strings.SplitSeq(meta, "\n") {
		if v, ok := strings.CutPrefix(line, "title:"); ok {
			title = cleanInline(strings.Trim(strings.TrimSpace(v), `"'`))
		}
	}
	return title, body
}

// Nesting bounds applied before goldmark, whose block parser does work
// proportional to the nesting depth on every line: a few hundred KB of
// ">>>>…" or ever-deeper list items would take seconds or minutes.
const (
	maxLineMarkers = 32 // container markers (">", list bullets) starting one line
	maxLineIndent  = 64 // columns of leading white space and markers
)

// tameNesting rewrites the lines whose container prefix exceeds the
// bounds: the prefix becomes its first markers separated by single
// spaces, so the content survives at a bounded depth. Documents within
// the bounds are returned unchanged.
func tameNesting(text string) (string, bool) {
	var sb strings.Builder
	changed := false
	for start := 0; ; {
		end := len(text)
		nl := strings.IndexByte(text[start:], '\n')
		if nl >= 0 {
			end = start + nl
		}
		line := text[start:end]
		prefix, markers, cols := containerPrefix(line)
		switch {
		case markers > maxLineMarkers || cols > maxLineIndent:
			if !changed {
				sb.Grow(len(text))
				sb.WriteString(text[:start])
				changed = true
			}
			sb.WriteString(flatPrefix(line[:prefix]))
			sb.WriteString(line[prefix:])
		case changed:
			sb.WriteString(line)
		}
		if nl < 0 {
			break
		}
		if changed {
			sb.WriteByte('\n')
		}
		start = end + 1
	}
	if !changed {
		return text, false
	}
	return sb.String(), true
}

// containerPrefix measures the run of white space, ">" and list markers
// starting line: its byte length, marker count and width in columns.
func containerPrefix(line string) (end, markers, cols int) {
	for end < len(line) {
		c := line[end]
		switch {
		case c == ' ':
			cols++
		case c == '\t':
			cols += 4 - cols%4
		case c == '>':
			markers++
			cols++
		default:
			n := listMarkerLen(line[end:])
			if n == 0 {
				return end, markers, cols
			}
			markers++
			cols += n
			end += n
			continue
		}
		end++
	}
	return end, markers, cols
}

// listMarkerLen returns the length of a list marker ("-", "*", "+",
// "12." or "3)") at the start of s when a space, tab or the line end
// follows it, else 0.
func listMarkerLen(s string) int {
	n := 0
	switch {
	case s[0] == '-' || s[0] == '*' || s[0] == '+':
		n = 1
	default:
		for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n == len(s) || s[n] != '.' && s[n] != ')' {
			return 0
		}
		n++
	}
	if n < len(s) && s[n] != ' ' && s[n] != '\t' {
		return 0
	}
	return n
}

// flatPrefix keeps the first maxLineMarkers markers of an over-deep
// prefix, one space after each, dropping the indentation.
func flatPrefix(prefix string) string {
	var sb strings.Builder
	kept := 0
	for i := 0; i < len(prefix) && kept < maxLineMarkers; {
		switch c := prefix[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '>':
			sb.WriteString("> ")
			kept++
			i++
		default:
			n := listMarkerLen(prefix[i:])
			sb.WriteString(prefix[i:i+n] + " ")
			kept++
			i += n
		}
	}
	return sb.String()
}

// parseMarkdown also serves HTML, which is converted to Markdown first.
func parseMarkdown(text string) Document {
	w := mdWalker{src: []byte(text)}
	root := mdParser().Parse(gtext.NewReader(w.src))
	w.blocks(root, 0)
	return w.b.document()
}

// mdWalker maps goldmark's block tree onto the builder.
type mdWalker struct {
	src []byte
	b   builder
}

func (w *mdWalker) blocks(parent ast.Node, depth int) {
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		w.block(n, depth)
	}
}

func (w *mdWalker) block(n ast.Node, depth int) {
	switch n := n.(type) {
	case *ast.Heading:
		w.b.heading(n.Level, w.inline(n))
	case *ast.Paragraph, *ast.TextBlock:
		w.b.paragraph(w.inline(n))
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		w.b.code(w.lines(n))
	case *ast.HTMLBlock:
		w.b.paragraph(htmlText(w.lines(n)))
	case *ast.List:
		w.b.preformatted(strings.Join(w.list(n, 0), "\n"))
	case *east.Table:
		w.table(n)
	case *ast.ThematicBreak:
	default: // block quotes and unknown containers: their content counts
		if depth >= maxNesting {
			w.b.paragraph(w.plain(n))
			return
		}
		w.blocks(n, depth+1)
	}
}

// list renders a list one line per item ("- text" or "3. text"), the
// item's further lines and nested lists indented by two spaces, so items
// stay with their text. Lines are relative to the list's own indentation.
func (w *mdWalker) list(l *ast.List, depth int) []string {
	var lines []string
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "-"
		if l.IsOrdered() {
			marker = fmt.Sprintf("%d.", num)
			num++
		}
		prefix := marker + " "
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			for _, line := range w.itemLines(c, depth) {
				lines = append(lines, prefix+line)
				prefix = "  "
			}
		}
	}
	return lines
}

// itemLines renders one child of a list item.
func (w *mdWalker) itemLines(c ast.Node, depth int) []string {
	switch c := c.(type) {
	case *ast.List:
		if depth < maxNesting {
			return w.list(c, depth+1)
		}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return strings.Split(cleanCode(w.lines(c)), "\n")
	case *ast.Paragraph, *ast.TextBlock, *ast.Heading:
		return nonEmpty(cleanInline(w.inline(c)))
	}
	return nonEmpty(cleanInline(w.plain(c)))
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func (w *mdWalker) table(t *east.Table) {
	var header []string
	var rows [][]string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, w.inline(c))
		}
		if _, ok := r.(*east.TableHeader); ok {
			header = cells
		} else {
			rows = append(rows, cells)
		}
	}
	w.b.table(header, rows)
}

// lines returns the raw source lines of a code or HTML block.
func (w *mdWalker) lines(n ast.Node) string {
	var sb strings.Builder
	segs := n.Lines()
	for i := range segs.Len() {
		seg := segs.At(i)
		sb.Write(seg.Value(w.src))
	}
	return sb.String()
}

// inline returns the text of n's inline content without Markdown syntax:
// emphasis markers dropped, link and image text kept, escapes and entity
// references resolved, hard line breaks kept as newlines.
func (w *mdWalker) inline(n ast.Node) string {
	var sb strings.Builder
	walkIter(n, func(c ast.Node) bool { return w.writeInline(&sb, c) })
	return sb.String()
}

// plain is inline for any subtree, code and HTML lines included; it is
// the fallback for content nested too deep or of unknown kind.
func (w *mdWalker) plain(n ast.Node) string {
	var sb strings.Builder
	walkIter(n, func(c ast.Node) bool {
		if c.Type() != ast.TypeBlock {
			return w.writeInline(&sb, c)
		}
		sb.WriteByte('\n')
		switch c.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			sb.WriteString(w.lines(c))
			return false
		}
		return true
	})
	return sb.String()
}

// writeInline writes one inline node and says whether to visit its
// children.
func (w *mdWalker) writeInline(sb *strings.Builder, n ast.Node) bool {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Value(w.src)
		if !n.IsRaw() {
			v = unescapeMarkdown(v)
		}
		sb.Write(v)
		switch {
		case n.HardLineBreak():
			sb.WriteByte('\n')
		case n.SoftLineBreak():
			sb.WriteByte(' ')
		}
	case *ast.String:
		sb.Write(n.Value)
	case *ast.CodeSpan:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				sb.Write(bytes.ReplaceAll(t.Value(w.src), []byte("\n"), []byte(" ")))
			}
		}
		return false
	case *ast.AutoLink:
		sb.Write(n.Label(w.src))
	case *ast.RawHTML:
		// Inline tags carry no text; a space keeps "a<br>b" two words.
		sb.WriteByte(' ')
	}
	return true
}

// walkIter visits root's descendants in document order without recursion,
// so nesting depth (e.g. thousands of emphasis markers) cannot overflow
// the stack. visit returns false to skip a node's children.
func walkIter(root ast.Node, visit func(ast.Node) bool) {
	n := root.FirstChild()
	for n != nil {
		if visit(n) && n.FirstChild() != nil {
			n = n.FirstChild()
			continue
		}
		for n != nil && n != root && n.NextSibling() == nil {
			n = n.Parent()
		}
		if n == nil || n == root {
			return
		}
		n = n.NextSibling()
	}
}

func unescapeMarkdown(v []byte) []byte {
	if bytes.IndexByte(v, '\\') >= 0 {
		v = util.UnescapePunctuations(v)
	}
	if bytes.IndexByte(v, '&') >= 0 {
		v = util.ResolveEntityNames(util.ResolveNumericReferences(v))
	}
	return v
}
