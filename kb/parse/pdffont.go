package parse

import (
	"io"
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfFont is what text extraction needs of a font: how to cut a string
// into codes, the text of each code and its advance width (in text space
// units per unit of font size).
type pdfFont struct {
	composite bool
	codes     *pdfCMap     // composite fonts: the encoding CMap's codespace; nil is 2 bytes
	toUnicode *pdfCMap     // nil when the font has none
	enc       *pdfEncoding // simple fonts: the encoding with its Differences
	ucs2      bool         // composite font whose codes are Unicode (UniXXX-UCS2 CMaps)

	widths   map[uint32]float64
	defWidth float64
	scale    float64 // glyph space to text space: 1/1000, or a Type 3 FontMatrix

	text map[uint32]string // decoded code → text, filled as codes are met

	// A simple font's codes are bytes: their text and widths, resolved
	// once when the font is loaded.
	byteText  [256]string
	byteWidth [256]float64
}

// Bounds on what a font may make the reader decode.
const (
	maxFontStream = 8 << 20
	maxWidths     = 1 << 16
)

// loadFont reads a font dictionary. It never fails: what cannot be read
// (a broken ToUnicode stream, widths missing) falls back to the defaults,
// and a font whose codes give no text yields no characters.
func loadFont(v pdf.Value) (f *pdfFont) {
	f = &pdfFont{defWidth: 0.5, scale: 0.001, text: map[uint32]string{}}
	defer func() {
		// A broken part (an array where a number belongs) panics in the
		// library: what was read before it is kept.
		recover()
		if !f.composite {
			for c := range 256 {
				f.byteText[c] = f.codeText(uint32(c))
				f.byteWidth[c] = f.width(uint32(c))
			}
		}
	}()
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		if data, ok := streamBytes(tu, maxFontStream); ok {
			f.toUnicode = parseCMap(data)
		}
	}
	if v.Key("Subtype").Name() == "Type0" {
		f.loadComposite(v)
		return f
	}
	f.loadSimple(v)
	return f
}

func (f *pdfFont) loadComposite(v pdf.Value) {
	f.composite = true
	switch enc := v.Key("Encoding"); enc.Kind() {
	case pdf.Stream:
		if data, ok := streamBytes(enc, maxFontStream); ok {
			if m := parseCMap(data); len(m.spaces) > 0 {
				f.codes = m
			}
		}
	case pdf.Name:
		name := enc.Name()
		f.ucs2 = strings.Contains(name, "UCS2") || strings.Contains(name, "UTF16")
	}
	if f.codes == nil && f.toUnicode != nil && len(f.toUnicode.spaces) > 0 {
		f.codes = f.toUnicode
	}
	d := v.Key("DescendantFonts").Index(0)
	f.defWidth = 1
	if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
		f.defWidth = dw.Float64() / 1000
	}
	f.widths = cidWidths(d.Key("W"))
}

// cidWidths reads a W array: "c [w1 w2 …]" and "cfirst clast w" entries.
func cidWidths(w pdf.Value) map[uint32]float64 {
	out := map[uint32]float64{}
	n := w.Len()
	for i := 0; i < n && len(out) < maxWidths; {
		first := w.Index(i)
		if i+1 >= n {
			break
		}
		next := w.Index(i + 1)
		c := uint32(max(first.Int64(), 0))
		if next.Kind() == pdf.Array {
			for j := range min(next.Len(), maxWidths) {
				out[c+uint32(j)] = next.Index(j).Float64() / 1000
			}
			i += 2
			continue
		}
		if i+2 >= n {
			break
		}
		last, wv := uint32(max(next.Int64(), 0)), w.Index(i+2).Float64()/1000
		for k := c; k <= last && k-c < maxWidths; k++ {
			out[k] = wv
		}
		i += 3
	}
	return out
}

func (f *pdfFont) loadSimple(v pdf.Value) {
	base := v.Key("BaseFont").Name()
	desc := v.Key("FontDescriptor")
	if v.Key("Subtype").Name() == "Type3" {
		if m := v.Key("FontMatrix"); m.Len() >= 1 && m.Index(0).Float64() != 0 {
			f.scale = m.Index(0).Float64()
		}
	}
	f.enc = simpleEncoding(v, base, desc)
	f.widths = map[uint32]float64{}
	first := v.Key("FirstChar").Int64()
	ws := v.Key("Widths")
	for i := range min(ws.Len(), 256) {
		f.widths[uint32(first)+uint32(i)] = ws.Index(i).Float64() * f.scale
	}
	if mw := desc.Key("MissingWidth").Float64(); mw > 0 {
		f.defWidth = mw * f.scale
	}
}

// simpleEncoding is the code → text table of a simple font: the base
// encoding named by /Encoding (or its /BaseEncoding), else the font's
// built-in one, then the /Differences.
func simpleEncoding(v pdf.Value, base string, desc pdf.Value) *pdfEncoding {
	encv := v.Key("Encoding")
	var enc *pdfEncoding
	switch encv.Kind() {
	case pdf.Name:
		enc = namedEncoding(encv.Name())
	case pdf.Dict:
		enc = namedEncoding(encv.Key("BaseEncoding").Name())
	}
	if enc == nil {
		enc = builtinEncoding(base, desc)
	}
	if encv.Kind() != pdf.Dict {
		return enc
	}
	diffs := encv.Key("Differences")
	var list []pdfDiff
	code := 0
	for i := range min(diffs.Len(), 4096) {
		switch d := diffs.Index(i); d.Kind() {
		case pdf.Integer:
			code = int(d.Int64())
		case pdf.Name:
			list = append(list, pdfDiff{code, d.Name()})
			code++
		}
	}
	return differences(enc, list)
}

// builtinEncoding is the encoding of a font that names none: Symbol's
// own, the one an embedded Type 1 program declares, else Standard.
func builtinEncoding(base string, desc pdf.Value) *pdfEncoding {
	switch {
	case strings.Contains(base, "Symbol"):
		return symbolEncoding
	case strings.Contains(base, "Dingbats"):
		return &pdfEncoding{} // pictures, not text
	}
	if ff := desc.Key("FontFile"); ff.Kind() == pdf.Stream {
		clear := ff.Key("Length1").Int64()
		if clear <= 0 || clear > maxFontStream {
			clear = 64 << 10
		}
		if data, ok := streamBytes(ff, clear); ok {
			if e := type1Encoding(data); e != nil {
				return e
			}
		}
	}
	return standardEncoding
}

// streamBytes reads at most limit bytes of a stream, decoded; ok is
// false when the stream cannot be read at all.
func streamBytes(v pdf.Value, limit int64) (data []byte, ok bool) {
	defer func() {
		if recover() != nil {
			data, ok = nil, false
		}
	}()
	rc := v.Reader()
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit))
	return data, err == nil || len(data) > 0
}

// decode cuts s into codes and calls emit with the text of each (maybe
// "") and its advance in text space units per unit of font size; single
// tells a one-byte code 32, to which word spacing applies.
func (f *pdfFont) decode(s []byte, emit func(text string, w float64, single bool)) {
	if !f.composite {
		for _, c := range s {
			emit(f.byteText[c], f.byteWidth[c], c == ' ')
		}
		return
	}
	f.codes.split(s, 2, func(code uint32, n int) {
		emit(f.codeText(code), f.width(code), n == 1 && code == ' ')
	})
}

func (f *pdfFont) width(code uint32) float64 {
	if w, ok := f.widths[code]; ok && w > 0 {
		return w
	}
	return f.defWidth
}

// codeText is the text a code shows: the ToUnicode map first, then the
// encoding; ligatures are spelt out.
func (f *pdfFont) codeText(code uint32) string {
	if s, ok := f.text[code]; ok {
		return s
	}
	s, ok := "", false
	if f.toUnicode != nil {
		s, ok = f.toUnicode.text(code)
	}
	switch {
	case ok:
	case f.enc != nil && code < 256:
		s = f.enc[code]
	case f.ucs2 && code >= 0x20:
		s = string(rune(code))
	}
	s = expandLigatures(s)
	if len(f.text) < maxWidths {
		f.text[code] = s
	}
	return s
}
