package parse

import (
	"bytes"

	"golang.org/x/text/encoding/charmap"
)

// pdfEncoding maps the 256 codes of a simple font to text ("" when the
// code shows nothing known).
type pdfEncoding [256]string

// standardEncoding is Adobe's StandardEncoding: ASCII with curly quotes
// at 0x27 and 0x60, and its own upper half.
var standardEncoding = func() *pdfEncoding {
	var e pdfEncoding
	for c := 0x20; c < 0x7F; c++ {
		e[c] = string(rune(c))
	}
	e[0x27], e[0x60] = "’", "‘"
	upper := map[byte]string{
		0xA1: "¡", 0xA2: "¢", 0xA3: "£", 0xA4: "⁄", 0xA5: "¥", 0xA6: "ƒ", 0xA7: "§", 0xA8: "¤",
		0xA9: "'", 0xAA: "“", 0xAB: "«", 0xAC: "‹", 0xAD: "›", 0xAE: "fi", 0xAF: "fl",
		0xB1: "–", 0xB2: "†", 0xB3: "‡", 0xB4: "·", 0xB6: "¶", 0xB7: "•", 0xB8: "‚", 0xB9: "„",
		0xBA: "”", 0xBB: "»", 0xBC: "…", 0xBD: "‰", 0xBF: "¿", 0xC1: "`", 0xC2: "´", 0xC3: "ˆ",
		0xC4: "˜", 0xC5: "¯", 0xC6: "˘", 0xC7: "˙", 0xC8: "¨", 0xCA: "˚", 0xCB: "¸", 0xCD: "˝",
		0xCE: "˛", 0xCF: "ˇ", 0xD0: "—", 0xE1: "Æ", 0xE3: "ª", 0xE8: "Ł", 0xE9: "Ø", 0xEA: "Œ",
		0xEB: "º", 0xF1: "æ", 0xF5: "ı", 0xF8: "ł", 0xF9: "ø", 0xFA: "œ", 0xFB: "ß",
	}
	for c, s := range upper {
		e[c] = s
	}
	return &e
}()

func charmapEncoding(cm *charmap.Charmap) *pdfEncoding {
	var e pdfEncoding
	for c := 0x20; c < 256; c++ {
		if r := cm.DecodeByte(byte(c)); r != '\uFFFD' && r >= 0x20 && (r < 0x7F || r > 0x9F) {
			e[c] = string(r)
		}
	}
	return &e
}

var (
	winAnsiEncoding  = charmapEncoding(charmap.Windows1252)
	macRomanEncoding = charmapEncoding(charmap.Macintosh)
)

// symbolEncoding is the built-in encoding of the Symbol font: Greek
// letters on the Latin keys and mathematical signs above.
var symbolEncoding = func() *pdfEncoding {
	var e pdfEncoding
	const ascii = " !∀#∃%&∋()∗+,−./0123456789:;<=>?≅ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ[∴]⊥_" +
		"\uF8E5αβχδεφγηιϕκλμνοπθρστυϖωξψζ{|}∼"
	i := 0x20
	for _, r := range ascii {
		e[i] = string(r)
		i++
	}
	e[0x60] = "" // radical extender: a piece of a glyph, no text
	const upper = "€ϒ′≤⁄∞ƒ♣♦♥♠↔←↑→↓°±″≥×∝∂•÷≠≡≈…" + "\x00\x00↵ℵℑℜ℘⊗⊕∅∩∪⊃⊇⊄⊂⊆∈∉∠∇®©™∏√⋅¬∧∨⇔⇐⇑⇒⇓◊〈®©™∑"
	i = 0xA0
	for _, r := range upper {
		if r != 0 {
			e[i] = string(r)
		}
		i++
	}
	e[0xF1], e[0xF2] = "〉", "∫"
	return &e
}()

// namedEncoding is the encoding an /Encoding or /BaseEncoding name
// stands for; nil for an unknown name.
func namedEncoding(name string) *pdfEncoding {
	switch name {
	case "WinAnsiEncoding":
		return winAnsiEncoding
	case "MacRomanEncoding", "MacExpertEncoding":
		return macRomanEncoding
	case "StandardEncoding":
		return standardEncoding
	}
	return nil
}

// type1Encoding reads the built-in encoding of an embedded Type 1 font
// program from its clear-text part: "dup 15 /bullet put" lines. It is nil
// when the program uses StandardEncoding or holds no encoding.
func type1Encoding(clear []byte) *pdfEncoding {
	at := bytes.Index(clear, []byte("/Encoding"))
	if at < 0 {
		return nil
	}
	clear = clear[at:]
	if bytes.HasPrefix(bytes.TrimLeft(clear[len("/Encoding"):], " \r\n\t"), []byte("StandardEncoding")) {
		return nil
	}
	if end := bytes.Index(clear, []byte("readonly def")); end >= 0 {
		clear = clear[:end]
	} else if end := bytes.Index(clear, []byte("currentfile eexec")); end >= 0 {
		clear = clear[:end]
	}
	var e pdfEncoding
	found := false
	l := &pdfLexer{data: clear}
	var prev [3]pdfToken // the three tokens before "put": dup code /name
	for {
		t := l.next()
		if t.kind == tokEOF {
			break
		}
		if t.kind == tokOp && string(t.str) == "put" && prev[0].kind == tokOp && string(prev[0].str) == "dup" &&
			prev[1].kind == tokNum && prev[2].kind == tokName {
			if c := int(prev[1].num); c >= 0 && c < 256 {
				e[c] = glyphText(string(prev[2].str))
				found = true
			}
		}
		if t.kind == tokName || t.kind == tokOp {
			t.str = bytes.Clone(t.str)
		}
		prev[0], prev[1], prev[2] = prev[1], prev[2], t
	}
	if !found {
		return nil
	}
	return &e
}

// differences applies an /Encoding's /Differences array (codes followed
// by the glyph names from that code on) to base.
func differences(base *pdfEncoding, diffs []pdfDiff) *pdfEncoding {
	e := *base
	for _, d := range diffs {
		if d.code >= 0 && d.code < 256 {
			e[d.code] = glyphText(d.name)
		}
	}
	return &e
}

// pdfDiff is one entry of a /Differences array.
type pdfDiff struct {
	code int
	name string
}
