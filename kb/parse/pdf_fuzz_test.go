package parse

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// FuzzPDFCMap: any bytes read as a CMap give a map whose lookups and code
// splitting never panic and only give valid UTF-8 without U+FFFD.
func FuzzPDFCMap(f *testing.F) {
	f.Add([]byte(qualityCMap))
	f.Add([]byte("1 begincodespacerange <00> <80> <8140> <9FFC> endcodespacerange 1 beginbfrange <8140> <817F> [<0041> <D83DDE00>] endbfrange"))
	f.Add([]byte("2 beginbfchar <01> /f_i <02> <FB02> endbfchar 1 beginbfrange <FFFF> <0000> <FFFF> endbfrange"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := parseCMap(data)
		for _, code := range []uint32{0, 1, 0x20, 0x41, 0x8140, 0xFFFF, 0xFFFFFFFF} {
			if s, _ := m.text(code); !utf8.ValidString(s) || strings.ContainsRune(s, utf8.RuneError) {
				t.Fatalf("text(%#x) = %q", code, s)
			}
		}
		n := 0
		m.split(data, 2, func(code uint32, size int) {
			if size < 1 || size > 4 {
				t.Fatalf("code %#x of %d bytes", code, size)
			}
			n += size
		})
		if n > len(data) {
			t.Fatalf("split %d bytes out of %d", n, len(data))
		}
	})
}

// FuzzPDFContent: any bytes run as a page's content stream, with a
// simple and a composite font, lay out as valid UTF-8 text, never panic,
// and make a bounded number of glyphs.
func FuzzPDFContent(f *testing.F) {
	f.Add([]byte("BT /F1 12 Tf 72 700 Td (Hello \\(world\\)) Tj T* [(A)-250(B)] TJ ET"))
	f.Add([]byte("q 1 0 0 1 10 10 cm BT /F1 9 Tf 0 Tc 1 Tw 90 Tz 12 TL 2 Ts 1 0 0 1 5 5 Tm <0010 0011> Tj (x) ' 1 2 (y) \" ET Q"))
	f.Add([]byte("BI /W 1 /H 1 /BPC 8 /CS /G ID \x00\xffEI x EI BT /X 1 Tf <<>> BDC (in) Tj EMC [ ( ] TJ"))
	f.Add([]byte("((( \\777 \\\n <zz> >> ]]] -.5.5 --3 /F1 1e5 Tf (a) Tj"))
	cmap := parseCMap([]byte(qualityCMap))
	f.Fuzz(func(t *testing.T, data []byte) {
		x := newPDFExtractor(len(data))
		composite := &pdfFont{composite: true, codes: cmap, toUnicode: cmap, defWidth: 1, scale: 0.001, text: map[uint32]string{}}
		x.fonts[pdf.Value{}.String()] = composite
		x.run(data, pdf.Value{}, identity, 0)
		if len(x.glyphs) > 4*len(data)+4 {
			t.Fatalf("%d glyphs from %d bytes", len(x.glyphs), len(data))
		}
		paras := pageParagraphs(layoutLines(x.glyphs))
		for _, p := range paras {
			if len(p) == 0 {
				t.Fatal("empty paragraph")
			}
			for _, l := range p {
				if !utf8.ValidString(l.text) || strings.TrimSpace(l.text) == "" {
					t.Fatalf("line %q", l.text)
				}
			}
		}
		var b builder
		newOutline([][][]pdfLine{paras}).emit(&b, slices.Concat(paras...))
		if doc := b.document(); len(doc.Blocks) > 0 {
			checkBlocks(t, doc)
		}
	})
}

// FuzzPDFDocument: any bytes read as a PDF give a sentinel error or a
// document whose blocks each have a page within the page count.
func FuzzPDFDocument(f *testing.F) {
	// Small seeds: the fuzzer minimises each new input, byte by byte.
	f.Add(qualityPDF())
	f.Add(helloPDF())
	f.Add(cidPDF("BT /F1 12 Tf 72 700 Td <00410042> Tj /F2 12 Tf (x) Tj ET"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Bytes("fuzz.pdf", data)
		if err != nil {
			for _, s := range []error{ErrEmpty, ErrEncrypted, ErrCorrupt} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error wraps no sentinel: %v", err)
		}
		checkBlocks(t, doc)
		pages := doc.BlockPages()
		n, _ := strconv.Atoi(doc.Meta["pages"])
		for i, p := range pages {
			if p < 1 || p > n {
				t.Fatalf("block %d on page %d of %d", i, p, n)
			}
		}
	})
}
