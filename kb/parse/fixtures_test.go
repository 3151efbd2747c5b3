package parse

import (
	"archive/zip"
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/parse/pdftest"
	"github.com/xuri/excelize/v2"
)

// pdfObjects assembles a PDF from object bodies (object i+1 is objs[i]),
// computing the xref offsets, with extra trailer entries.
func pdfObjects(objs []string, trailerExtra string) []byte {
	return pdftest.Objects(objs, trailerExtra)
}

// onePagePDF is a minimal valid one-page PDF using Helvetica whose page
// content stream is content.
func onePagePDF(content, trailerExtra string) []byte {
	return pdfObjects([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Title (Quarterly Report) >>",
	}, "/Info 6 0 R "+trailerExtra)
}

// helloPDF has a title line, a second line close below it and a
// paragraph further down.
func helloPDF() []byte {
	return onePagePDF("BT /F1 24 Tf 72 720 Td (Hello PDF world) Tj 0 -28 Td (second line) Tj ET\n"+
		"BT /F1 12 Tf 72 600 Td (A paragraph lower on the page.) Tj ET", "")
}

// zipFiles builds a zip archive from name → content, in sorted order so
// the bytes are deterministic.
func zipFiles(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range slices.Sorted(maps.Keys(files)) {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[n])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const wordNSDecl = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`

func docxPara(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

func docxTable(rows ...[]string) string {
	var sb strings.Builder
	sb.WriteString(`<w:tbl><w:tblPr/>`)
	for _, r := range rows {
		sb.WriteString(`<w:tr>`)
		for _, c := range r {
			sb.WriteString(`<w:tc>` + docxPara("", c) + `</w:tc>`)
		}
		sb.WriteString(`</w:tr>`)
	}
	sb.WriteString(`</w:tbl>`)
	return sb.String()
}

// sampleDOCX is a small DOCX: a Title, a Heading1 with text and a table,
// a custom-named heading style resolved through styles.xml, a list item,
// and a run with a tab and a break.
func sampleDOCX(t testing.TB) []byte {
	body := docxPara("Title", "Annual Review") +
		docxPara("Heading1", "Results") +
		docxPara("", "Revenue grew   strongly.") +
		docxTable([]string{"Region", "Sales"}, []string{"North", "120"}, []string{"South", "95"}) +
		docxPara("Kop2", "Details") +
		`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>first item</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t>left</w:t><w:tab/><w:t>right</w:t><w:br/><w:t>next line</w:t></w:r><w:del><w:r><w:delText>deleted</w:delText></w:r></w:del></w:p>`
	return zipFiles(t, map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/document.xml":   `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ` + wordNSDecl + `><w:body>` + body + `</w:body></w:document>`,
		"word/styles.xml": `<?xml version="1.0" encoding="UTF-8"?><w:styles ` + wordNSDecl + `>` +
			`<w:style w:type="paragraph" w:styleId="Kop2"><w:name w:val="heading 2"/></w:style></w:styles>`,
		"docProps/core.xml": `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Review 2025</dc:title></cp:coreProperties>`,
	})
}

// sampleXLSX has two filled sheets and an empty one.
func sampleXLSX(t testing.TB) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.SetSheetName("Sheet1", "Sales"))
	must(f.SetSheetRow("Sales", "A1", &[]any{"Region", "Q1", "Q2"}))
	must(f.SetSheetRow("Sales", "A2", &[]any{"North", 10, 12}))
	must(f.SetSheetRow("Sales", "A3", &[]any{"South", 7, 9}))
	_, err := f.NewSheet("Empty")
	must(err)
	_, err = f.NewSheet("Costs")
	must(err)
	must(f.SetSheetRow("Costs", "A1", &[]any{"Item", "Amount"}))
	must(f.SetSheetRow("Costs", "A2", &[]any{"Rent | office", 1500}))
	buf, err := f.WriteToBuffer()
	must(err)
	return buf.Bytes()
}

// oleFile is the start of an OLE compound file; with encrypted set its
// directory names the EncryptionInfo stream (UTF-16LE), as Office does for
// password-protected DOCX/XLSX files.
func oleFile(encrypted bool) []byte {
	data := append([]byte{}, oleMagic...)
	data = append(data, make([]byte, 504)...)
	if encrypted {
		data = append(data, utf16LE("EncryptionInfo")...)
		data = append(data, 0, 0)
		data = append(data, utf16LE("EncryptedPackage")...)
	} else {
		data = append(data, utf16LE("WordDocument")...)
	}
	return append(data, make([]byte, 512)...)
}
