package parse

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// pdfStream is an uncompressed stream object holding content.
func pdfStream(content string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
}

// qualityCMap is a ToUnicode CMap for two-byte codes: a bfrange for the
// Greek word, a bfrange given as an array, and bfchars, one of them the
// ligature character ﬁ and one a ligature spelt as two letters.
const qualityCMap = `/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CMapName /Test-UCS def
1 begincodespacerange
<0000> <FFFF>
endcodespacerange
3 beginbfrange
<0041> <007A> <0041>
<0010> <0016> <0394>
<0020> <0022> [<03BF> <03BA> <03B9>]
endbfrange
4 beginbfchar
<0001> <FB01>
<0002> <00660066>
<0003> <0020>
<0004> <00E9>
endbfchar
endcmap
CMapName currentdict /CMap defineresource pop
end
end`

// qualityPDF has five pages: a table of contents with dot leaders, a
// Type 1 font with a Differences encoding, a Type 0 font with a ToUnicode
// CMap, the Symbol font, and WinAnsi accents; each page but the first
// ends with its number.
func qualityPDF() []byte {
	fonts := "/Font << /F1 5 0 R /F2 6 0 R /F3 7 0 R /F4 9 0 R >>"
	page := func(content int) string {
		return fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << %s >> /Contents %d 0 R >>", fonts, content)
	}
	folio := func(n int) string { return fmt.Sprintf("\nBT /F1 10 Tf 300 40 Td (%d) Tj ET", n) }
	toc := "BT /F1 18 Tf 72 720 Td (Contents) Tj ET\n" +
		"BT /F1 12 Tf 72 680 Td (Introduction) Tj 100 0 Td (. . . . . . . . . . . . .) Tj 200 0 Td (3) Tj ET\n" +
		"BT /F1 12 Tf 72 665 Td (R\\351sum\\351 ........................ 4) Tj ET\n" +
		"BT /F1 12 Tf 72 650 Td [(Appendix)-300(:::::::::::::::)-300(12)] TJ ET"
	diffs := "BT /F2 12 Tf 72 720 Td (\\001nal Gr\\002\\003e) Tj ET\n" +
		"BT /F2 12 Tf 72 705 Td (\\004\\005 \\006 \\007ow) Tj ET" + folio(2)
	type0 := "BT /F3 12 Tf 72 720 Td <0010001100120013001400150016> Tj ET\n" +
		"BT /F3 12 Tf 72 705 Td <00200021002200030001006C0065000300020069006E00030063006100660004> Tj ET" + folio(3)
	symbol := "BT /F4 12 Tf 72 720 Td (abg \\245 \\256) Tj ET" + folio(4)
	accents := "BT /F1 12 Tf 72 720 Td (Fran\\347ais, na\\357ve, \\374ber, Stra\\337e) Tj ET\n" +
		"BT /F1 12 Tf 72 680 Td (A second paragraph.) Tj ET" + folio(5)
	return pdfObjects([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R 11 0 R 13 0 R 15 0 R] /Count 5 >>",
		page(10),
		page(12),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+CMR10 /FirstChar 0 /LastChar 255" +
			" /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [1 /fi /udieresis /germandbls /Alpha /beta /uni03A9 /f_l] >> >>",
		"<< /Type /Font /Subtype /Type0 /BaseFont /Greek /Encoding /Identity-H /DescendantFonts [8 0 R] /ToUnicode 17 0 R >>",
		"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Greek /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 600 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Symbol >>",
		pdfStream(toc),
		page(14),
		pdfStream(diffs),
		page(16),
		pdfStream(type0),
		page(18),
		pdfStream(symbol),
		pdfStream(qualityCMap),
		pdfStream(accents),
	}, "")
}

func TestPDFQualityTextAndPages(t *testing.T) {
	doc := mustParse(t, "quality.pdf", qualityPDF())
	want := []struct {
		page int
		text string
	}{
		{1, "Contents"}, // a heading: 18 points over a body of 12
		{1, "Introduction 3\nRésumé 4\nAppendix 12"},
		{2, "final Grüße\nΑβ Ω flow"},
		{3, "ΔΕΖΗΘΙΚ\nοκι file ffin café"},
		{4, "αβγ ∞ →"},
		{5, "Français, naïve, über, Straße"},
		{5, "A second paragraph."},
	}
	pages := doc.BlockPages()
	if doc.Meta["pages"] != "5" || len(pages) != len(doc.Blocks) {
		t.Fatalf("pages %q, %d page numbers for %d blocks", doc.Meta["pages"], len(pages), len(doc.Blocks))
	}
	for i, b := range doc.Blocks {
		if i >= len(want) {
			t.Errorf("extra block %d (page %d): %q", i, pages[i], b.Text)
			continue
		}
		if b.Text != want[i].text || pages[i] != want[i].page {
			t.Errorf("block %d: page %d %q, want page %d %q", i, pages[i], b.Text, want[i].page, want[i].text)
		}
		if heading := i == 0; (b.Kind == Heading) != heading || heading && b.Level != 1 {
			t.Errorf("block %d: kind %s level %d", i, b.Kind, b.Level)
		}
	}
	if len(doc.Blocks) < len(want) {
		t.Errorf("%d blocks, want %d", len(doc.Blocks), len(want))
	}
}

func TestPDFProgressPerPage(t *testing.T) {
	var calls []string
	doc, err := BytesWithProgress("quality.pdf", qualityPDF(), func(done, total int) {
		calls = append(calls, fmt.Sprintf("%d/%d", done, total))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(calls, " "); got != "1/5 2/5 3/5 4/5 5/5" {
		t.Errorf("progress %q, want one call per page", got)
	}
	// No /Title in the file: the first level-1 heading is the title.
	if doc.Format != "pdf" || doc.Title != "Contents" {
		t.Errorf("format %q title %q", doc.Format, doc.Title)
	}
}

func TestPDFImageOnlySaysNoTextLayer(t *testing.T) {
	img := "<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 4 >>\nstream\n\x00\xff\xff\x00\nendstream"
	data := pdfObjects([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>",
		img,
		pdfStream("q 612 0 0 792 0 0 cm /Im1 Do Q"),
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>",
	}, "")
	_, err := Bytes("scan.pdf", data)
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "no text layer in 2 PDF page(s): scanned pages? OCR is not supported") {
		t.Fatalf("err = %v, want ErrEmpty saying there is no text layer", err)
	}
}

func TestPDFUnknownSecurityHandlerIsEncrypted(t *testing.T) {
	data := onePagePDF("BT /F1 12 Tf 72 700 Td (secret) Tj ET",
		"/Encrypt << /Filter /Acme.Secure /V 9 /R 9 >> /ID [<00112233445566778899AABBCCDDEEFF> <00112233445566778899AABBCCDDEEFF>]")
	_, err := Bytes("locked.pdf", data)
	if !errors.Is(err, ErrEncrypted) || !strings.Contains(err.Error(), "encrypted PDF: its encryption is not supported") {
		t.Fatalf("err = %v, want ErrEncrypted", err)
	}
}

// cidPDF is a one-page PDF with F1, a composite font with no ToUnicode
// map, and F2, Helvetica.
func cidPDF(content string) []byte {
	return pdfObjects([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R /F2 6 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [] >>",
		pdfStream(content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}, "")
}

func TestPDFFontWithoutUnicodeGivesNoGarbage(t *testing.T) {
	// Glyph ids of a composite font without a ToUnicode map say nothing of
	// the characters: no text comes out of them, and the user is told.
	doc := mustParse(t, "cid.pdf", cidPDF("BT /F1 12 Tf 72 700 Td <00410042> Tj /F2 12 Tf 72 680 Td (Readable) Tj ET"))
	assertBlocks(t, doc, []string{"paragraph:Readable"})
	if !slices.Contains(doc.Warnings, "page 1: some text is in fonts without a Unicode map and was left out") {
		t.Errorf("warnings %q: want the text left out said", doc.Warnings)
	}
	_, err := Bytes("cid.pdf", cidPDF("BT /F1 12 Tf 72 700 Td <00410042> Tj ET"))
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "fonts without a Unicode map (page 1)") {
		t.Errorf("err = %v, want ErrEmpty naming the fonts without a Unicode map", err)
	}
}

func TestDropLeaders(t *testing.T) {
	for in, want := range map[string]string{
		"Introduction ........ 3":         "Introduction 3",
		"2.1 Syntax :::::::::::: 12":      "2.1 Syntax 12",
		"Index . . . . . . . . . . . xiv": "Index xiv",
		"Wait... what?":                   "Wait... what?",
		"a::b::c and end.":                "a::b::c and end.",
		"Trailing leaders ......":         "Trailing leaders",
	} {
		if got := dropLineLeaders(in); got != want {
			t.Errorf("dropLineLeaders(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsFolio(t *testing.T) {
	for s, want := range map[string]bool{
		"12": true, "- 7 -": true, "xiv": true, "i": true, "xxxix": true,
		"mix": false, "did": false, "12a": false, "Chapter 3": false, "": false, "1234567": false,
	} {
		if got := isFolio(s); got != want {
			t.Errorf("isFolio(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestPDFHugeXrefSizeRefused(t *testing.T) {
	// The library would allocate the table the file claims before reading
	// it: terabytes, and a crash no recover catches.
	for name, data := range map[string][]byte{
		"size.pdf":       pdfObjects([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>"}, "/Size 9999999999"),
		"subsection.pdf": bytes.Replace(helloPDF(), []byte("xref\n0 7\n"), []byte("xref\n0 7\n99999999999 2\n"), 1),
		"index.pdf":      bytes.Replace(helloPDF(), []byte("/Title"), []byte("/Index [0 5 888888888 3] /Title"), 1),
	} {
		_, err := Bytes(name, data)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "more than a file of") {
			t.Errorf("%s: err = %v, want ErrCorrupt about the claimed objects", name, err)
		}
	}
}
