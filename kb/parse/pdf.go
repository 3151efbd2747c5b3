package parse

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// Bounds on the page tree walk: a hostile file can make the tree cyclic
// or a DAG with exponentially many paths. A real tree visits each object
// once and an object takes more than 16 bytes of the file, hence the
// budget of len(data)/16 nodes, capped because each visit re-reads the
// object (about 10 µs).
const (
	maxPageTreeDepth = 64
	maxPageTreeNodes = 1 << 17
)

// parsePDF extracts the text of each page. Pages without text (scanned
// images) are reported as warnings; a document with no text at all is
// ErrEmpty so the caller can suggest OCR.
func parsePDF(data []byte) (Document, error) {
	r, err := openPDF(data)
	if err != nil {
		return Document{}, err
	}
	pages, err := pdfPages(r, min(len(data)/16+64, maxPageTreeNodes))
	if err != nil {
		return Document{}, err
	}
	var b builder
	var warnings []string
	var blank []int
	// A hostile page tree can list one heavy page many times: identical
	// page objects are laid out once, and the text is capped relative to
	// the file size.
	seen := map[string]string{}
	budget := 8*len(data) + 1<<20
	for i, p := range pages {
		text, err := cachedPageText(p, seen)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("page %d: unreadable: %v", i+1, err))
			continue
		}
		if budget -= len(text); budget < 0 {
			warnings = append(warnings, fmt.Sprintf("text truncated at page %d of %d: more text than the file size explains", i+1, len(pages)))
			break
		}
		paras := splitBlankLines(text)
		if len(paras) == 0 {
			blank = append(blank, i+1)
		}
		for _, para := range paras {
			b.paragraph(para)
		}
	}
	if len(b.blocks) == 0 {
		return Document{}, fmt.Errorf("%w: no extractable text in %d PDF page(s); scanned pages need OCR", ErrEmpty, len(pages))
	}
	if len(blank) > 0 {
		warnings = append(warnings, noTextWarning(blank))
	}
	doc := b.document()
	doc.Title = pdfTitle(r)
	doc.Warnings = warnings
	doc.Meta = map[string]string{"pages": strconv.Itoa(len(pages))}
	return doc, nil
}

// openPDF opens the file and classifies failures: a password or an
// unsupported encryption is ErrEncrypted, anything else ErrCorrupt.
func openPDF(data []byte) (r *pdf.Reader, err error) {
	defer func() {
		if x := recover(); x != nil {
			r, err = nil, fmt.Errorf("%w PDF: %v", ErrCorrupt, x)
		}
	}()
	r, err = pdf.NewReader(pdfHeaderFix{data}, int64(len(data)))
	switch {
	case err == nil:
		return r, nil
	case errors.Is(err, pdf.ErrInvalidPassword):
		return nil, fmt.Errorf("%w PDF: a password is required to open it", ErrEncrypted)
	case bytes.Contains(data, []byte("/Encrypt")):
		return nil, fmt.Errorf("%w PDF: %w", ErrEncrypted, err)
	default:
		return nil, fmt.Errorf("%w PDF: %w", ErrCorrupt, err)
	}
}

// pdfHeaderFix presents a PDF 2.0 header ("%PDF-2.0") as "%PDF-1.7": the
// library only accepts 1.x headers, and 2.0 files are read the same way.
type pdfHeaderFix struct{ data []byte }

func (p pdfHeaderFix) ReadAt(b []byte, off int64) (int, error) {
	n, err := bytes.NewReader(p.data).ReadAt(b, off)
	const fixed = "%PDF-1.7"
	d := p.data
	if len(d) > len(fixed) && bytes.HasPrefix(d, []byte("%PDF-2.")) && (d[8] == '\n' || d[8] == '\r') {
		for i := 0; i < n; i++ {
			if o := off + int64(i); o < int64(len(fixed)) {
				b[i] = fixed[o]
			}
		}
	}
	return n, err
}

// pdfPages walks the page tree itself instead of calling Reader.Page,
// which loops forever on a cyclic tree.
func pdfPages(r *pdf.Reader, budget int) (pages []pdf.Page, err error) {
	defer func() {
		if x := recover(); x != nil {
			pages, err = nil, fmt.Errorf("%w PDF: page tree: %v", ErrCorrupt, x)
		}
	}()
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		if budget <= 0 || depth > maxPageTreeDepth || v.Kind() != pdf.Dict {
			return
		}
		budget--
		kids := v.Key("Kids")
		if v.Key("Type").Name() == "Page" || kids.Kind() != pdf.Array {
			pages = append(pages, pdf.Page{V: v})
			return
		}
		for i := range kids.Len() {
			walk(kids.Index(i), depth+1)
		}
	}
	walk(r.Trailer().Key("Root").Key("Pages"), 0)
	if len(pages) == 0 {
		return nil, fmt.Errorf("%w PDF: no pages found", ErrCorrupt)
	}
	return pages, nil
}

func cachedPageText(p pdf.Page, seen map[string]string) (string, error) {
	key := p.V.String()
	if text, ok := seen[key]; ok {
		return text, nil
	}
	text, err := pageText(p)
	if err == nil {
		seen[key] = text
	}
	return text, err
}

// pageText lays out the page's glyphs as lines and paragraphs.
func pageText(p pdf.Page) (text string, err error) {
	defer func() {
		if x := recover(); x != nil {
			text, err = "", fmt.Errorf("%v", x)
		}
	}()
	return layoutGlyphs(p.Content().Text), nil
}

// layoutGlyphs rebuilds text from positioned glyphs in content-stream
// order: a vertical move of half a line starts a new line, a larger one a
// new paragraph (blank line), and a horizontal gap inserts a space. The
// library reports zero widths for fonts without a /Widths array, so gaps
// are measured from the previous glyph's end when known and only forward
// jumps count.
func layoutGlyphs(glyphs []pdf.Text) string {
	var sb strings.Builder
	var prev pdf.Text
	have := false
	for _, g := range glyphs {
		if g.S == "\n" || g.S == "" {
			continue // TJ end marker; positions tell where lines break
		}
		if have {
			sb.WriteString(glyphSeparator(prev, g))
		}
		sb.WriteString(g.S)
		prev, have = g, true
	}
	return sb.String()
}

func glyphSeparator(prev, g pdf.Text) string {
	size := math.Max(math.Max(math.Abs(prev.FontSize), math.Abs(g.FontSize)), 1)
	dy := math.Abs(prev.Y - g.Y)
	switch {
	case dy > 1.7*size:
		return "\n\n"
	case dy > 0.5*size:
		return "\n"
	}
	gap := g.X - (prev.X + prev.W)
	if gap > 0.2*size || g.X < prev.X-size {
		return " "
	}
	return ""
}

func pdfTitle(r *pdf.Reader) (title string) {
	defer func() {
		if recover() != nil {
			title = ""
		}
	}()
	return cleanInline(r.Trailer().Key("Info").Key("Title").Text())
}

// noTextWarning lists the pages without text, at most 20 of them.
func noTextWarning(pages []int) string {
	const show = 20
	var parts []string
	for _, p := range pages[:min(len(pages), show)] {
		parts = append(parts, strconv.Itoa(p))
	}
	list := strings.Join(parts, ", ")
	if len(pages) > show {
		list += fmt.Sprintf(" and %d more", len(pages)-show)
	}
	if len(pages) == 1 {
		return "page " + list + ": no text"
	}
	return "pages " + list + ": no text"
}
