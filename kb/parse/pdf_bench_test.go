package parse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/moteur/moteur/internal/testenv"
)

// libtasn1PDF is the manual Debian's libtasn1-doc package installs: a
// TeX document with Type 1 fonts, ToUnicode maps, a symbol font for its
// bullets and a table of contents with leaders.
const libtasn1PDF = "/usr/share/doc/libtasn1-doc/libtasn1.pdf"

func readLibtasn1(tb testing.TB) []byte {
	tb.Helper()
	return testenv.File(tb, libtasn1PDF, "apt-get install libtasn1-doc (.ci/run installs it)")
}

func TestPDFLibtasn1Manual(t *testing.T) {
	doc := mustParse(t, "libtasn1.pdf", readLibtasn1(t))
	pages := doc.BlockPages()
	var sb strings.Builder
	first := map[string]int{} // paragraph start → page
	for i, b := range doc.Blocks {
		sb.WriteString(b.Text + "\n\n")
		line, _, _ := strings.Cut(b.Text, "\n")
		if _, ok := first[line]; !ok {
			first[line] = pages[i]
		}
	}
	text := sb.String()
	for _, bad := range []string{"Ω", "\uFFFD", ":::", "\uFB01", "\uFB02"} {
		if n := strings.Count(text, bad); n > 0 {
			t.Errorf("%d × %q in the text", n, bad)
		}
	}
	for _, want := range []string{
		"1 Introduction 1\n", // the table of contents, leaders dropped
		"• On-line ASN.1 structure management that doesn’t require any C code file generation.",
		"Abstract Syntax Notation One (ASN.1) and Distinguished Encoding Rules (DER) manip-",
		"Copyright c© 2001–2022 Free Software Foundation",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if p := first["1 Introduction"]; p != 4 {
		t.Errorf("chapter 1 on page %d, want 4 (title, copyright, contents, then chapter 1)", p)
	}
	// Headings are told by their size, and give passages their section.
	found := false
	for i, b := range doc.Blocks {
		if b.Kind == Heading && b.Text == "4.2 ASN.1 field functions" {
			found = true
			if pages[i] != 11 || b.Level != 3 || strings.Join(b.Headings, " > ") != "Libtasn1 > 4 Function reference" {
				t.Errorf("heading %q: page %d level %d in %q", b.Text, pages[i], b.Level, b.Headings)
			}
		}
	}
	if !found || doc.Title != "Libtasn1" {
		t.Errorf("title %q, heading 4.2 found: %v", doc.Title, found)
	}
	if len(text) < 60000 {
		t.Errorf("only %d bytes of text", len(text))
	}
}

// benchPDF is a generated document of n pages of prose set word by word
// with kerning (TJ arrays), in a WinAnsi font and a Type 0 font with a
// ToUnicode map, as word processors write them.
func benchPDF(n int) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"", // the page tree, once the pages are known
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type0 /BaseFont /Greek /Encoding /Identity-H /DescendantFonts [5 0 R] /ToUnicode 6 0 R >>",
		"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Greek /DW 600 >>",
		pdfStream(qualityCMap),
	}
	words := strings.Fields("the quick brown fox jumps over the lazy dog while caf\\351 owners na\\357vely count \\374ber numbers")
	var kids []string
	for p := range n {
		var c strings.Builder
		for line := range 45 {
			fmt.Fprintf(&c, "BT /F1 10 Tf 72 %d Td [", 760-line*15)
			for w := range 12 {
				fmt.Fprintf(&c, "(%s)-%d", words[(p+line+w)%len(words)], 250+w%3)
			}
			c.WriteString("] TJ ET\n")
			if line%9 == 0 {
				fmt.Fprintf(&c, "BT /F3 10 Tf 400 %d Td <0010001100120003002000210022> Tj ET\n", 760-line*15)
			}
		}
		objs = append(objs, pdfStream(c.String()))
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F3 4 0 R >> >> /Contents %d 0 R >>", len(objs)))
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	return pdfObjects(objs, "")
}

func BenchmarkPDF(b *testing.B) {
	for _, c := range []struct {
		name string
		data func(testing.TB) []byte
	}{
		{"generated-50-pages", func(testing.TB) []byte { return benchPDF(50) }},
		{"libtasn1", func(tb testing.TB) []byte { return readLibtasn1(tb) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			data := c.data(b)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Bytes("bench.pdf", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
