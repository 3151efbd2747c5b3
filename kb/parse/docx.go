package parse

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// maxXMLPart bounds how much one XML part of an Office file may expand
// to, so a zip bomb is refused instead of filling memory.
const maxXMLPart = 256 << 20

// WordprocessingML namespaces (transitional and strict). Elements of other
// namespaces (DrawingML text in shapes, charts) are not body text.
var wordNS = map[string]bool{
	"http://schemas.openxmlformats.org/wordprocessingml/2006/main": true,
	"http://purl.oclc.org/ooxml/wordprocessingml/main":             true,
}

// parseDOCX reads word/document.xml: paragraphs, headings (by paragraph
// style or outline level) and tables. Styles and the title come from
// word/styles.xml and docProps/core.xml when present.
func parseDOCX(data []byte) (Document, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Document{}, fmt.Errorf("%w DOCX: not a readable zip archive: %w", ErrCorrupt, err)
	}
	parts := map[string]*zip.File{}
	for _, f := range zr.File {
		parts[f.Name] = f
	}
	body := parts["word/document.xml"]
	if body == nil {
		return Document{}, fmt.Errorf("%w DOCX: word/document.xml is missing", ErrCorrupt)
	}
	w := docxWalker{styles: headingStyles(parts["word/styles.xml"])}
	if err := w.read(body); err != nil {
		return Document{}, err
	}
	doc := w.b.document()
	if t := coreTitle(parts["docProps/core.xml"]); t != "" {
		doc.Title = t
	}
	return doc, nil
}

// openPart opens a zip member for streaming, refusing parts that declare
// an expanded size above maxXMLPart; the LimitReader catches lying headers.
func openPart(f *zip.File) (io.ReadCloser, error) {
	if f.UncompressedSize64 > maxXMLPart {
		return nil, fmt.Errorf("%w: %s expands to %s, limit %s", ErrTooLarge, f.Name, humanBytes(int64(min(f.UncompressedSize64, 1<<62))), humanBytes(maxXMLPart))
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w DOCX: %s: %w", ErrCorrupt, f.Name, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(rc, maxXMLPart), rc}, nil
}

// docxWalker streams document.xml tokens into the builder.
type docxWalker struct {
	b      builder
	styles map[string]int // paragraph style id → heading level

	stack []string // local names of open elements

	para   strings.Builder // text of the current top-level paragraph
	pDepth int             // paragraphs nest inside text boxes
	level  int             // heading level of the current paragraph
	inList bool            // the paragraph has numbering
	inText bool            // inside <w:t>

	tblDepth int // tables nest; inner ones are flattened into cells
	rows     [][]string
	row      []string
	cell     strings.Builder
}

func (w *docxWalker) read(f *zip.File) error {
	rc, err := openPart(f)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := xml.NewDecoder(rc)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w DOCX: word/document.xml: %w", ErrCorrupt, err)
		}
		if err := w.token(d, tok); err != nil {
			return fmt.Errorf("%w DOCX: word/document.xml: %w", ErrCorrupt, err)
		}
	}
}

func (w *docxWalker) token(d *xml.Decoder, tok xml.Token) error {
	switch t := tok.(type) {
	case xml.StartElement:
		if skipDOCXElement(t.Name) {
			return d.Skip()
		}
		w.stack = append(w.stack, t.Name.Local)
		if wordNS[t.Name.Space] {
			w.start(t)
		}
	case xml.EndElement:
		if n := len(w.stack); n > 0 {
			w.stack = w.stack[:n-1]
		}
		if wordNS[t.Name.Space] {
			w.end(t.Name.Local)
		}
	case xml.CharData:
		if w.inText {
			w.para.Write(t)
		}
	}
	return nil
}

// skipDOCXElement: mc:Fallback repeats the content of mc:Choice (text
// boxes are stored twice), and moved-from or deleted text is history.
func skipDOCXElement(n xml.Name) bool {
	switch n.Local {
	case "Fallback":
		return !wordNS[n.Space]
	case "moveFrom", "del":
		return wordNS[n.Space]
	}
	return false
}

func (w *docxWalker) start(t xml.StartElement) {
	switch t.Name.Local {
	case "p":
		w.pDepth++
		if w.pDepth == 1 {
			w.para.Reset()
			w.level, w.inList = 0, false
		}
	case "pStyle":
		if lvl := w.styles[attr(t, "val")]; lvl > 0 && w.pDepth == 1 {
			w.level = lvl
		} else if lvl := builtinHeadingLevel(attr(t, "val")); lvl > 0 && w.pDepth == 1 {
			w.level = lvl
		}
	case "outlineLvl":
		if n, err := strconv.Atoi(attr(t, "val")); err == nil && n >= 0 && n < 9 && w.pDepth == 1 {
			w.level = n + 1
		}
	case "numPr":
		w.inList = true
	case "t":
		w.inText = true
	case "tab":
		if w.parent() == "r" {
			w.para.WriteByte('\t')
		}
	case "br", "cr":
		w.para.WriteByte('\n')
	case "noBreakHyphen":
		w.para.WriteByte('-')
	case "tbl":
		w.tblDepth++
		if w.tblDepth == 1 {
			w.rows = nil
		}
	case "tr":
		if w.tblDepth == 1 {
			w.row = nil
		}
	case "tc":
		if w.tblDepth == 1 {
			w.cell.Reset()
		}
	}
}

func (w *docxWalker) end(local string) {
	switch local {
	case "t":
		w.inText = false
	case "p":
		w.endParagraph()
	case "tc":
		if w.tblDepth == 1 {
			w.row = append(w.row, w.cell.String())
		}
	case "tr":
		if w.tblDepth == 1 {
			w.rows = append(w.rows, w.row)
		}
	case "tbl":
		w.tblDepth--
		if w.tblDepth == 0 && len(w.rows) > 0 {
			w.b.table(w.rows[0], w.rows[1:])
			w.rows = nil
		}
	}
}

// endParagraph emits the paragraph, or adds it to the enclosing table cell
// or text-box host paragraph.
func (w *docxWalker) endParagraph() {
	w.pDepth--
	switch {
	case w.pDepth > 0:
		w.para.WriteByte('\n') // end of a text-box paragraph inside a run
		return
	case w.pDepth < 0:
		w.pDepth = 0
		return
	}
	text := w.para.String()
	switch {
	case w.tblDepth > 0:
		if w.cell.Len() > 0 {
			w.cell.WriteByte(' ')
		}
		w.cell.WriteString(text)
	case w.level > 0:
		w.b.heading(w.level, text)
	case w.inList:
		if t := cleanInline(text); t != "" {
			w.b.paragraph("- " + t)
		}
	default:
		w.b.paragraph(text)
	}
}

func (w *docxWalker) parent() string {
	if n := len(w.stack); n >= 2 {
		return w.stack[n-2]
	}
	return ""
}

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// builtinHeadingPattern matches the style ids Word gives headings in
// common locales when styles.xml is missing or says nothing.
var builtinHeadingPattern = regexp.MustCompile(`^(?i:heading|titre|berschrift|titolo|ttulo|kop|nagwek)([1-9])$`)

func builtinHeadingLevel(id string) int {
	if m := builtinHeadingPattern.FindStringSubmatch(id); m != nil {
		return int(m[1][0] - '0')
	}
	switch strings.ToLower(id) {
	case "title", "titre":
		return 1
	}
	return 0
}

// headingStyles maps paragraph style ids to heading levels using the
// style's outline level or its English name ("heading 2", "Title"), which
// Word keeps whatever the UI language. Errors leave the map partial: the
// built-in id patterns still apply.
func headingStyles(f *zip.File) map[string]int {
	levels := map[string]int{}
	if f == nil {
		return levels
	}
	rc, err := openPart(f)
	if err != nil {
		return levels
	}
	defer rc.Close()
	var styles struct {
		Style []struct {
			Type string `xml:"type,attr"`
			ID   string `xml:"styleId,attr"`
			Name struct {
				Val string `xml:"val,attr"`
			} `xml:"name"`
			Outline *struct {
				Val int `xml:"val,attr"`
			} `xml:"pPr>outlineLvl"`
		} `xml:"style"`
	}
	if xml.NewDecoder(rc).Decode(&styles) != nil {
		return levels
	}
	for _, s := range styles.Style {
		if s.Type != "" && s.Type != "paragraph" {
			continue
		}
		switch {
		case s.Outline != nil && s.Outline.Val >= 0 && s.Outline.Val < 9:
			levels[s.ID] = s.Outline.Val + 1
		case strings.EqualFold(s.Name.Val, "title"):
			levels[s.ID] = 1
		default:
			if n, ok := strings.CutPrefix(strings.ToLower(s.Name.Val), "heading "); ok && len(n) == 1 && n[0] >= '1' && n[0] <= '9' {
				levels[s.ID] = int(n[0] - '0')
			}
		}
	}
	return levels
}

// coreTitle reads dc:title from docProps/core.xml.
func coreTitle(f *zip.File) string {
	if f == nil {
		return ""
	}
	rc, err := openPart(f)
	if err != nil {
		return ""
	}
	defer rc.Close()
	var core struct {
		Title string `xml:"title"`
	}
	if xml.NewDecoder(rc).Decode(&core) != nil {
		return ""
	}
	return cleanInline(core.Title)
}
