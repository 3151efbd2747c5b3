// Package xlsx reads the cell values of Office Open XML workbooks (.xlsx):
// the sheets in workbook order, shared and inline strings, numbers as
// stored, booleans, error values, and which numbers a date format shows.
// It owns no formatting, formulas (their cached results are read) or
// merged cells. Reading is bounded: the archive's parts may not expand
// past Limits, so a small hostile file cannot take the memory of the
// process. Read is safe for concurrent use; a Workbook is a plain value.
package xlsx

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

// Errors of Read, for errors.Is.
var (
	// ErrNotWorkbook: the bytes are not a readable XLSX workbook.
	ErrNotWorkbook = errors.New("not a readable workbook")
	// ErrTooLarge: the workbook expands past the Limits.
	ErrTooLarge = errors.New("workbook too large")
)

// Limits bound what Read expands; zero fields take the defaults.
type Limits struct {
	// Unzipped bounds the bytes read from the archive, all parts together
	// (default 256 MiB).
	Unzipped int64
	// Part bounds one part (default 128 MiB).
	Part int64
	// Cells bounds the cells of all sheets, the empty ones before a value
	// in its row included (default 8 million).
	Cells int
}

func (l Limits) withDefaults() Limits {
	if l.Unzipped <= 0 {
		l.Unzipped = 256 << 20
	}
	if l.Part <= 0 {
		l.Part = 128 << 20
	}
	if l.Cells <= 0 {
		l.Cells = 8_000_000
	}
	return l
}

// Kind is the type of a cell's value.
type Kind uint8

const (
	Empty Kind = iota
	String
	Number
	Bool
	Error
	// Date is a cell stored as an ISO 8601 text (type "d"), rare.
	Date
)

// Cell is one value as stored.
type Cell struct {
	// Value is the text of a string, a number's literal ("50.5", "1e3"),
	// "TRUE" or "FALSE", an error ("#DIV/0!"), or an ISO date.
	Value string
	Kind  Kind
	// DateFormat tells that a number is shown as a date or time: its
	// Value is then a serial (days since the workbook's epoch).
	DateFormat bool
}

// Row is one row with values; Cells[i] is in column i+1, empty cells
// before the last value included.
type Row struct {
	Num   int // 1-based
	Cells []Cell
}

// Sheet is one worksheet: its rows with at least one value, in order.
type Sheet struct {
	Name string
	Rows []Row
	// Err tells why the sheet could not be read (its Rows are then nil);
	// the other sheets are read all the same.
	Err error
}

// Workbook is what Read found.
type Workbook struct {
	Sheets []Sheet
	// Title is the document's title property ("" if none).
	Title string
	// Date1904 tells that serials count from 1904-01-01 (old Mac files).
	Date1904 bool
}

// reader holds the archive and what is left of the budget.
type reader struct {
	files map[string]*zip.File
	left  int64
	lim   Limits
	cells int
}

// Read reads the workbook in data.
func Read(data []byte, lim Limits) (*Workbook, error) {
	lim = lim.withDefaults()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotWorkbook, err)
	}
	r := &reader{files: make(map[string]*zip.File, len(zr.File)), left: lim.Unzipped, lim: lim}
	for _, f := range zr.File {
		r.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	wbPath := r.officeDocument()
	wb, err := r.workbook(wbPath)
	if err != nil {
		return nil, err
	}
	rels, err := r.rels(wbPath)
	if err != nil {
		return nil, err
	}
	out := &Workbook{Date1904: wb.date1904}
	var sst []string
	var styles *styleSheet
	for _, rel := range rels {
		switch {
		case strings.HasSuffix(rel.typ, "/sharedStrings"):
			if sst, err = r.sharedStrings(rel.target); err != nil {
				return nil, err
			}
		case strings.HasSuffix(rel.typ, "/styles"):
			if styles, err = r.styles(rel.target); err != nil {
				return nil, err
			}
		}
	}
	for _, s := range wb.sheets {
		target := ""
		for _, rel := range rels {
			if rel.id == s.rid {
				target = rel.target
			}
		}
		if target == "" {
			err := fmt.Errorf("%w: sheet %q has no part (relationship %q)", ErrNotWorkbook, s.name, s.rid)
			out.Sheets = append(out.Sheets, Sheet{Name: s.name, Err: err})
			continue
		}
		rows, err := r.sheet(target, sst, styles)
		if errors.Is(err, ErrTooLarge) {
			// The budget is the whole workbook's: past it, nothing more is read.
			return nil, fmt.Errorf("sheet %q: %w", s.name, err)
		}
		if err != nil {
			err = fmt.Errorf("sheet %q: %w", s.name, err)
		}
		out.Sheets = append(out.Sheets, Sheet{Name: s.name, Rows: rows, Err: err})
	}
	out.Title = r.title()
	return out, nil
}

// open returns a bounded reader of the part at name; a missing part is
// ErrNotWorkbook.
func (r *reader) open(name string) (io.ReadCloser, error) {
	f, ok := r.files[name]
	if !ok {
		return nil, fmt.Errorf("%w: part %s missing", ErrNotWorkbook, name)
	}
	// The declared size is only a hint (a hostile archive may lie); the
	// bounded reader below is what holds.
	if f.UncompressedSize64 > uint64(r.lim.Part) || int64(f.UncompressedSize64) > r.left {
		return nil, r.tooLarge(name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: part %s: %w", ErrNotWorkbook, name, err)
	}
	return &boundedReader{rc: rc, r: r, name: name, part: r.lim.Part}, nil
}

func (r *reader) tooLarge(name string) error {
	return fmt.Errorf("%w: part %s expands past %d bytes (at most %d for one part)", ErrTooLarge, name, r.lim.Unzipped, r.lim.Part)
}

// boundedReader fails once the part or the whole budget is spent.
type boundedReader struct {
	rc   io.ReadCloser
	r    *reader
	name string
	part int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.part -= int64(n)
	b.r.left -= int64(n)
	if b.part < 0 || b.r.left < 0 {
		return n, b.r.tooLarge(b.name)
	}
	return n, err
}

func (b *boundedReader) Close() error { return b.rc.Close() }

// decode walks the elements of the part at name, calling fn with each
// start element; fn may consume the element's content from d.
func (r *reader) decode(name string, fn func(d *xml.Decoder, se xml.StartElement) error) error {
	rc, err := r.open(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := xml.NewDecoder(rc)
	d.Strict = false
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return err
			}
			return fmt.Errorf("%w: part %s: %w", ErrNotWorkbook, name, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if err := fn(d, se); err != nil {
				return err
			}
		}
	}
}

// attr is the value of the attribute named local (any namespace).
func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// officeDocument is the workbook part the package relationships name.
func (r *reader) officeDocument() string {
	rels, err := r.relsOf("_rels/.rels", "")
	if err == nil {
		for _, rel := range rels {
			if strings.HasSuffix(rel.typ, "/officeDocument") {
				return rel.target
			}
		}
	}
	return "xl/workbook.xml"
}

type sheetRef struct{ name, rid string }

type workbookPart struct {
	sheets   []sheetRef
	date1904 bool
}

func (r *reader) workbook(name string) (*workbookPart, error) {
	wb := &workbookPart{}
	err := r.decode(name, func(_ *xml.Decoder, se xml.StartElement) error {
		switch se.Name.Local {
		case "workbookPr":
			v := attr(se, "date1904")
			wb.date1904 = v == "1" || v == "true"
		case "sheet":
			wb.sheets = append(wb.sheets, sheetRef{name: attr(se, "name"), rid: attr(se, "id")})
		}
		return nil
	})
	return wb, err
}

type relation struct{ id, typ, target string }

// rels reads the relationships of the part at name.
func (r *reader) rels(name string) ([]relation, error) {
	dir, file := path.Split(name)
	return r.relsOf(dir+"_rels/"+file+".rels", dir)
}

// relsOf reads a relationships part; targets are resolved against dir.
func (r *reader) relsOf(name, dir string) ([]relation, error) {
	if _, ok := r.files[name]; !ok {
		return nil, nil
	}
	var out []relation
	err := r.decode(name, func(_ *xml.Decoder, se xml.StartElement) error {
		if se.Name.Local != "Relationship" || attr(se, "TargetMode") == "External" {
			return nil
		}
		t := attr(se, "Target")
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(path.Clean(t), "/")
		} else {
			t = path.Clean(dir + t)
		}
		out = append(out, relation{id: attr(se, "Id"), typ: attr(se, "Type"), target: t})
		return nil
	})
	return out, err
}

// text reads the character data of the element just started, up to its
// end, keeping only that of <t> elements when runs is set (a rich text's
// runs, without its phonetic guides).
func text(d *xml.Decoder, runs bool) (string, error) {
	var sb strings.Builder
	depth, inT, skip := 1, !runs, 0
	for depth > 0 {
		tok, err := d.RawToken()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "t":
				inT = true
			case "rPh", "phoneticPr":
				skip++
			}
		case xml.EndElement:
			depth--
			switch t.Name.Local {
			case "t":
				inT = !runs
			case "rPh", "phoneticPr":
				skip--
			}
		case xml.CharData:
			if inT && skip == 0 {
				sb.Write(t)
			}
		}
	}
	return sb.String(), nil
}

func (r *reader) sharedStrings(name string) ([]string, error) {
	var sst []string
	err := r.decode(name, func(d *xml.Decoder, se xml.StartElement) error {
		if se.Name.Local != "si" {
			return nil
		}
		s, err := text(d, true)
		if err != nil {
			return fmt.Errorf("%w: shared strings: %w", ErrNotWorkbook, err)
		}
		sst = append(sst, s)
		return nil
	})
	return sst, err
}

// title is the title of the core properties, "" if unreadable.
func (r *reader) title() string {
	title := ""
	_ = r.decode("docProps/core.xml", func(d *xml.Decoder, se xml.StartElement) error {
		if se.Name.Local == "title" {
			t, err := text(d, false)
			if err == nil {
				title = strings.TrimSpace(t)
			}
		}
		return nil
	})
	return title
}

// colIndex is the 0-based column of a reference such as "AB12", -1 when
// it has none or past the format's last column (XFD).
func colIndex(ref string) int {
	col := 0
	i := 0
	for ; i < len(ref); i++ {
		c := ref[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if c < 'A' || c > 'Z' {
			break
		}
		col = col*26 + int(c-'A'+1)
		if col > maxCols {
			return -1
		}
	}
	if i == 0 {
		return -1
	}
	return col - 1
}

// The format's bounds.
const (
	maxCols = 16384
	maxRows = 1 << 20
)

func atoiRow(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1 && n <= maxRows
}
