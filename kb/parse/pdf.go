package parse

// PDF text extraction. github.com/ledongthuc/pdf reads the file's objects
// (cross-reference tables and streams, object streams, filters, RC4/AES
// decryption); the text is Moteur's own: a content-stream interpreter
// (pdflex.go, pdftext.go) that decodes each font's codes through its
// ToUnicode map (pdfcmap.go), its encoding and Differences by glyph name
// (pdfencodings.go, pdfglyphs.go) or its built-in encoding, then lays the
// glyphs out as lines and paragraphs (pdflayout.go). The library's own
// text API re-parsed fonts at every use (20–35 KB/s), read no built-in
// font encoding (TeX's bullets came out as "�"), kept ligature characters
// and put an "Ω" at each line end of TeX's documents.

import (
	"bytes"
	"errors"
	"fmt"
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

// parsePDF extracts the text of each page.
func parsePDF(data []byte) (Document, error) { return parsePDFProgress(data, nil) }

// parsePDFProgress extracts the text of each page, calling progress (when
// set) after each page with the pages done and their total. Pages without
// text (scanned images) are reported as warnings; a document with no text
// at all is ErrEmpty, saying OCR is not supported. Each block's page is
// recorded for BlockPages.
func parsePDFProgress(data []byte, progress PageProgress) (Document, error) {
	r, err := openPDF(data)
	if err != nil {
		return Document{}, err
	}
	pages, err := pdfPages(r, min(len(data)/16+64, maxPageTreeNodes))
	if err != nil {
		return Document{}, err
	}
	var warnings []string
	var blank, unmapped []int
	// A hostile page tree can list one heavy page many times: identical
	// page objects are laid out once, and the text is capped relative to
	// the file size.
	seen := map[string]pageResult{}
	budget := 8*len(data) + 1<<20
	x := newPDFExtractor(len(data))
	texts := make([][][]pdfLine, 0, len(pages)) // each page's paragraphs
	for i, p := range pages {
		res, err := cachedPageText(x, p, seen)
		if progress != nil {
			progress(i+1, len(pages))
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("page %d: unreadable: %v", i+1, err))
			texts = append(texts, nil)
			continue
		}
		if res.unmapped > 0 {
			unmapped = append(unmapped, i+1)
		}
		if budget -= res.size; budget < 0 {
			warnings = append(warnings, fmt.Sprintf("text truncated at page %d of %d: more text than the file size explains", i+1, len(pages)))
			break
		}
		if len(res.paras) == 0 {
			blank = append(blank, i+1)
		}
		texts = append(texts, res.paras)
	}
	// Headings are told by their size against the whole document's body
	// text, hence the second pass.
	outline := newOutline(texts)
	var b builder
	starts := make([]int, 0, len(pages))
	for _, paras := range texts {
		starts = append(starts, len(b.blocks))
		for _, p := range paras {
			outline.emit(&b, p)
		}
	}
	for len(starts) < len(pages) {
		starts = append(starts, len(b.blocks)) // pages after a truncation
	}
	if len(b.blocks) == 0 && len(unmapped) > 0 {
		return Document{}, fmt.Errorf("%w: the text of this PDF is drawn in fonts without a Unicode map (%s): its characters cannot be known; OCR is not supported", ErrEmpty, pageList(unmapped))
	}
	if len(b.blocks) == 0 {
		return Document{}, fmt.Errorf("%w: no text layer in %d PDF page(s): scanned pages? OCR is not supported", ErrEmpty, len(pages))
	}
	if len(blank) > 0 {
		warnings = append(warnings, noTextWarning(blank))
	}
	if len(unmapped) > 0 {
		warnings = append(warnings, pageList(unmapped)+": some text is in fonts without a Unicode map and was left out")
	}
	doc := b.document()
	if title := pdfTitle(r); title != "" {
		doc.Title = title
	}
	doc.Warnings = warnings
	doc.Meta = map[string]string{"pages": strconv.Itoa(len(pages)), MetaPageBlocks: encodePageStarts(starts)}
	return doc, nil
}

// openPDF opens the file and classifies failures: a password or an
// unsupported encryption is ErrEncrypted, anything else ErrCorrupt.
func openPDF(data []byte) (r *pdf.Reader, err error) {
	if err := checkXrefSizes(data); err != nil {
		return nil, err
	}
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
		return nil, fmt.Errorf("%w PDF: a password is required to open it; save a copy without the password (qpdf --decrypt --password=… in.pdf out.pdf) and add that", ErrEncrypted)
	case bytes.Contains(data, []byte("/Encrypt")):
		return nil, fmt.Errorf("%w PDF: its encryption is not supported (%w); save a copy without encryption (qpdf --decrypt in.pdf out.pdf) and add that", ErrEncrypted, err)
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

// pageResult is a page's paragraphs, the bytes of their text and how
// many of its glyphs showed no known character.
type pageResult struct {
	paras    [][]pdfLine
	size     int
	unmapped int
}

func cachedPageText(x *pdfExtractor, p pdf.Page, seen map[string]pageResult) (pageResult, error) {
	key := p.V.String()
	if res, ok := seen[key]; ok {
		return res, nil
	}
	res, err := pageText(x, p)
	if err == nil {
		seen[key] = res
	}
	return res, err
}

// pageText lays out the page's glyphs as lines and paragraphs.
func pageText(x *pdfExtractor, p pdf.Page) (res pageResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = pageResult{}, fmt.Errorf("%v", r)
		}
	}()
	glyphs := x.page(p.V)
	for _, g := range glyphs {
		if g.text == "" {
			res.unmapped++
		}
	}
	res.paras = pageParagraphs(layoutLines(glyphs))
	for _, para := range res.paras {
		for _, l := range para {
			res.size += len(l.text)
		}
	}
	return res, nil
}

func pdfTitle(r *pdf.Reader) (title string) {
	defer func() {
		if recover() != nil {
			title = ""
		}
	}()
	return cleanInline(r.Trailer().Key("Info").Key("Title").Text())
}

// noTextWarning lists the pages without text.
func noTextWarning(pages []int) string { return pageList(pages) + ": no text" }

// pageList names pages, at most 20 of them: "page 3", "pages 1, 4 and 9 more".
func pageList(pages []int) string {
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
		return "page " + list
	}
	return "pages " + list
}
