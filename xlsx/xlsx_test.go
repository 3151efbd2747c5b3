package xlsx

import (
	"archive/zip"
	"bytes"
	"errors"
	"strings"
	"testing"
)

// build zips parts (name → content) in the order given, as pairs.
func build(t testing.TB, parts ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for i := 0; i+1 < len(parts); i += 2 {
		f, err := w.Create(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(parts[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const (
	nsMain = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	relT   = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
)

func rels(pairs ...string) string {
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`)
	for i := 0; i+2 < len(pairs); i += 3 {
		sb.WriteString(`<Relationship Id="` + pairs[i] + `" Type="` + relT + pairs[i+1] + `" Target="` + pairs[i+2] + `"/>`)
	}
	sb.WriteString(`</Relationships>`)
	return sb.String()
}

// sampleParts is a workbook of two sheets covering every kind of value.
func sampleParts() []string {
	return []string{
		"_rels/.rels", rels("rId1", "officeDocument", "xl/workbook.xml"),
		"docProps/core.xml", `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title> Sales 2024 </dc:title></cp:coreProperties>`,
		"xl/workbook.xml", `<workbook ` + nsMain + `><workbookPr date1904="0"/><sheets><sheet name="Données" sheetId="1" r:id="rId1"/><sheet name="Second" sheetId="2" r:id="rId2"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels", rels("rId1", "worksheet", "worksheets/sheet1.xml", "rId2", "worksheet", "/xl/worksheets/sheet2.xml",
			"rId3", "sharedStrings", "sharedStrings.xml", "rId4", "styles", "styles.xml"),
		"xl/sharedStrings.xml", `<sst ` + nsMain + `><si><t>Région</t></si><si><r><t>Mon</t></r><r><rPr><b/></rPr><t xml:space="preserve">tant </t></r><rPh><t>ignored</t></rPh></si><si><t>Lille &amp; co</t></si></sst>`,
		"xl/styles.xml", `<styleSheet ` + nsMain + `><numFmts count="2"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/><numFmt numFmtId="165" formatCode="&quot;day &quot;0.00"/></numFmts>` +
			`<cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs><cellXfs count="5"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="22"/></cellXfs></styleSheet>`,
		"xl/worksheets/sheet1.xml", `<worksheet ` + nsMain + `><sheetData>` +
			`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><t>Date</t></is></c></row>` +
			`<row r="2" s="3" customFormat="1"/>` + // styled, no value
			`<row r="3"><c r="A3" t="s"><v>2</v></c><c r="B3"><v>50.5</v></c><c r="C3" s="1"><v>45352</v></c><c r="E3" t="b"><v>1</v></c></row>` +
			`<row r="4"><c r="A4" t="str"><f>A3</f><v>formula text</v></c><c r="B4" s="3"><v>1e3</v></c><c r="C4" s="2"><v>45353.5</v></c><c r="D4" t="e"><v>#DIV/0!</v></c><c r="F4" s="1"/></row>` +
			`</sheetData></worksheet>`,
		"xl/worksheets/sheet2.xml", `<worksheet ` + nsMain + `><sheetData>` +
			`<row><c><v>1</v></c><c t="b"><v>0</v></c></row><row><c s="4"><v>0.25</v></c></row>` +
			`</sheetData></worksheet>`,
	}
}

func TestReadEveryKindOfValue(t *testing.T) {
	wb, err := Read(build(t, sampleParts()...), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if wb.Title != "Sales 2024" || wb.Date1904 || len(wb.Sheets) != 2 || wb.Sheets[0].Name != "Données" || wb.Sheets[1].Name != "Second" {
		t.Fatalf("workbook = %+v", wb)
	}
	s := wb.Sheets[0]
	if len(s.Rows) != 3 || s.Rows[0].Num != 1 || s.Rows[1].Num != 3 || s.Rows[2].Num != 4 {
		t.Fatalf("rows = %+v, want rows 1, 3 and 4 (the styled empty row 2 dropped)", s.Rows)
	}
	got := s.Texts(false)
	want := [][]string{
		{"Région", "Montant ", "Date"},
		{"Lille & co", "50.5", "2024-03-01", "", "TRUE"},
		{"formula text", "1e3", "2024-03-02 12:00:00", "#DIV/0!"},
	}
	if !equalRows(got, want) {
		t.Errorf("texts = %q\nwant %q", got, want)
	}
	if c := s.Rows[1].Cells[1]; c.Kind != Number || c.DateFormat {
		t.Errorf("B3 = %+v, want a plain number", c)
	}
	if c := s.Rows[2].Cells[1]; c.DateFormat {
		t.Errorf(`B4 in "day "0.00 read as a date: %+v`, c)
	}
	if c := s.Rows[1].Cells[2]; c.Kind != Number || !c.DateFormat || c.Value != "45352" {
		t.Errorf("C3 = %+v, want the serial with its date format", c)
	}
	if c := s.Rows[1].Cells[4]; c.Kind != Bool {
		t.Errorf("E3 = %+v, want a boolean", c)
	}
	if c := s.Rows[2].Cells[3]; c.Kind != Error {
		t.Errorf("D4 = %+v, want an error value", c)
	}
	if got := wb.Sheets[1].Texts(false); !equalRows(got, [][]string{{"1", "FALSE"}, {"1899-12-31 06:00:00"}}) {
		t.Errorf("second sheet (no references) = %q", got)
	}
}

func TestRead1904Dates(t *testing.T) {
	parts := sampleParts()
	for i := range parts {
		parts[i] = strings.Replace(parts[i], `date1904="0"`, `date1904="1"`, 1)
	}
	wb, err := Read(build(t, parts...), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !wb.Date1904 {
		t.Fatal("date1904 not read")
	}
	if got := wb.Sheets[0].Rows[1].Cells[2].Text(wb.Date1904); got != "2028-03-02" {
		t.Errorf("serial 45352 in the 1904 system = %s, want 2028-03-02", got)
	}
}

func TestIsDateFormat(t *testing.T) {
	for code, want := range map[string]bool{
		"dd/mm/yyyy": true, "yyyy-mm-dd hh:mm": true, "[h]:mm:ss": true, "h:mm AM/PM": true, "d-mmm": true,
		"General": false, "0.00": false, `"day "0.00`: false, `#,##0 [$€-1]`: false, `0\d`: false, "[Red]0.0": false, "mm": false,
	} {
		if got := IsDateFormat(code); got != want {
			t.Errorf("IsDateFormat(%q) = %v, want %v", code, got, want)
		}
	}
}

func TestSerialTime(t *testing.T) {
	for serial, want := range map[float64]string{
		1: "1900-01-01", 59: "1900-02-28", 61: "1900-03-01", 45352: "2024-03-01", 45352.75: "2024-03-01 18:00:00",
	} {
		tm, ok := SerialTime(serial, false)
		got := tm.Format("2006-01-02")
		if tm.Hour() != 0 {
			got = tm.Format("2006-01-02 15:04:05")
		}
		if !ok || got != want {
			t.Errorf("SerialTime(%v) = %s, %v; want %s", serial, got, ok, want)
		}
	}
	if _, ok := SerialTime(-1, false); ok {
		t.Error("a negative serial read as a date")
	}
	if got := ISODate("abc", false); got != "abc" {
		t.Errorf("ISODate of a non-number = %q", got)
	}
}

func TestReadRejectsBadWorkbooks(t *testing.T) {
	good := sampleParts()
	with := func(name, content string) []byte {
		parts := append([]string{}, good...)
		for i := 0; i < len(parts); i += 2 {
			if parts[i] == name {
				parts[i+1] = content
			}
		}
		return build(t, parts...)
	}
	without := func(name string) []byte {
		var parts []string
		for i := 0; i < len(good); i += 2 {
			if good[i] != name {
				parts = append(parts, good[i], good[i+1])
			}
		}
		return build(t, parts...)
	}
	sheet := func(data string) []byte {
		return with("xl/worksheets/sheet1.xml", `<worksheet><sheetData>`+data+`</sheetData></worksheet>`)
	}
	// A sheet that cannot be read is said so; the others are still read.
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"no sheet part":       {without("xl/worksheets/sheet1.xml"), "part xl/worksheets/sheet1.xml missing"},
		"shared string out":   {sheet(`<row r="1"><c r="A1" t="s"><v>99</v></c></row>`), `shared string "99" of 3`},
		"bad number":          {sheet(`<row r="1"><c r="A1"><v>12abc</v></c></row>`), `number "12abc"`},
		"bad reference":       {sheet(`<row r="1"><c r="1A"><v>1</v></c></row>`), `cell reference "1A"`},
		"column past XFD":     {sheet(`<row r="1"><c r="XFE1"><v>1</v></c></row>`), `cell reference "XFE1"`},
		"row past the last":   {sheet(`<row r="1048577"><c><v>1</v></c></row>`), `row number "1048577"`},
		"rows out of order":   {sheet(`<row r="5"><c><v>1</v></c></row><row r="2"><c><v>1</v></c></row>`), "row 2 after row 5"},
		"cells out of order":  {sheet(`<row r="1"><c r="C1"><v>1</v></c><c r="A1"><v>1</v></c></row>`), "out of order"},
		"truncated sheet XML": {with("xl/worksheets/sheet1.xml", `<worksheet><sheetData><row r="1"><c r="A1"><v>1</v`), "not a readable workbook"},
	} {
		t.Run(name, func(t *testing.T) {
			wb, err := Read(c.data, Limits{})
			if err != nil {
				t.Fatalf("Read = %v, want the workbook with one sheet unreadable", err)
			}
			first, second := wb.Sheets[0], wb.Sheets[1]
			if err := first.Err; err == nil || !errors.Is(err, ErrNotWorkbook) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"Données"`) {
				t.Errorf("sheet error = %v, want ErrNotWorkbook naming the sheet and saying %q", err, c.want)
			}
			if first.Rows != nil || second.Err != nil || len(second.Rows) != 2 {
				t.Errorf("sheets = %+v, want the first without rows and the second read", wb.Sheets)
			}
		})
	}
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"not a zip":   {[]byte("PK not really"), "not a readable workbook"},
		"no workbook": {without("xl/workbook.xml"), "part xl/workbook.xml missing"},
		"bad XML":     {with("xl/workbook.xml", "<workbook><sheets><sheet"), "not a readable workbook"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Read(c.data, Limits{})
			if err == nil || !errors.Is(err, ErrNotWorkbook) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want ErrNotWorkbook saying %q", err, c.want)
			}
		})
	}
}

func TestReadBoundsExpansion(t *testing.T) {
	// A part that inflates a thousandfold: refused by the part bound, the
	// whole-archive bound, and the cell bound alike, never read whole.
	big := `<worksheet><sheetData>` + strings.Repeat(`<row><c><v>1</v></c></row>`, 40000) + `</sheetData></worksheet>`
	data := func() []byte {
		parts := sampleParts()
		for i := range parts {
			if parts[i] == "xl/worksheets/sheet2.xml" {
				parts[i+1] = big
			}
		}
		return build(t, parts...)
	}()
	if len(data) > len(big)/20 {
		t.Fatalf("the test archive does not compress: %d bytes", len(data))
	}
	for name, lim := range map[string]Limits{
		"part":  {Part: 100 << 10},
		"total": {Unzipped: 200 << 10},
		"cells": {Cells: 1000},
	} {
		_, err := Read(data, lim)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s bound: err = %v, want ErrTooLarge", name, err)
		}
	}
	// A lone cell in the last column costs that row 16,384 cells.
	sparse := build(t, func() []string {
		parts := sampleParts()
		for i := range parts {
			if parts[i] == "xl/worksheets/sheet2.xml" {
				parts[i+1] = `<worksheet><sheetData>` + strings.Repeat(`<row><c r="XFD1"><v>1</v></c></row>`, 100) + `</sheetData></worksheet>`
			}
		}
		return parts
	}()...)
	if _, err := Read(sparse, Limits{Cells: 1_000_000}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("sparse far cells: err = %v, want ErrTooLarge", err)
	}
	if _, err := Read(data, Limits{}); err != nil {
		t.Errorf("within the default bounds: %v", err)
	}
}

func equalRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") || len(a[i]) != len(b[i]) {
			return false
		}
	}
	return true
}
