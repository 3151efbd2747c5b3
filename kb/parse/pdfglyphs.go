package parse

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// pdfGlyphList is the Adobe Glyph List: the names fonts give their
// glyphs and the characters they stand for.
//
//go:embed pdfglyphs.txt
var pdfGlyphList string

var glyphTable = sync.OnceValue(func() map[string]rune {
	m := make(map[string]rune, 4400)
	for line := range strings.Lines(pdfGlyphList) {
		name, hex, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		if v, err := strconv.ParseUint(hex, 16, 32); err == nil {
			m[name] = rune(v)
		}
	}
	// Names TeX's fonts use that the list lacks.
	for name, r := range map[string]rune{
		"dotlessj": 'ȷ', "circlecopyrt": '©', "visiblespace": '␣', "cwm": -1,
		"compwordmark": -1, "perthousandzero": -1, "ringfitted": '˚',
		"quotedblbase": '„', "quotesinglbase": '‚', "angbracketleft": '⟨', "angbracketright": '⟩',
	} {
		if _, ok := m[name]; !ok {
			m[name] = r
		}
	}
	return m
})

// glyphText is the text of a glyph name: a name of the list, uniXXXX
// (one or more code points), uXXXX[XX], a ligature of names joined by
// '_', each with an optional ".suffix" (a variant: "a.sc" is "a"). An
// unknown name (g123, a font's private names) is "".
func glyphText(name string) string {
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	if strings.Contains(name, "_") {
		var sb strings.Builder
		for part := range strings.SplitSeq(name, "_") {
			sb.WriteString(glyphText(part))
		}
		return sb.String()
	}
	if r, ok := glyphTable()[name]; ok {
		if r < 0 {
			return ""
		}
		return expandLigature(r)
	}
	switch {
	case strings.HasPrefix(name, "uni") && len(name) >= 7 && (len(name)-3)%4 == 0:
		var sb strings.Builder
		for i := 3; i < len(name); i += 4 {
			r, ok := hexRune(name[i : i+4])
			if !ok {
				return ""
			}
			sb.WriteRune(r)
		}
		return sb.String()
	case strings.HasPrefix(name, "u") && len(name) >= 5 && len(name) <= 7:
		if r, ok := hexRune(name[1:]); ok {
			return string(r)
		}
	}
	return ""
}

func hexRune(s string) (rune, bool) {
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil || v == 0 || (v >= 0xD800 && v <= 0xDFFF) || v > utf8.MaxRune {
		return 0, false
	}
	return rune(v), true
}

// ligatures are the presentation forms a page shows as one glyph and a
// reader (and a search) expects as letters.
var ligatures = map[rune]string{
	'\uFB00': "ff", '\uFB01': "fi", '\uFB02': "fl", '\uFB03': "ffi", '\uFB04': "ffl",
	'\uFB05': "st", '\uFB06': "st",
}

func expandLigature(r rune) string {
	if s, ok := ligatures[r]; ok {
		return s
	}
	return string(r)
}

// expandLigatures replaces the ligature characters of s by their letters.
func expandLigatures(s string) string {
	for _, r := range s {
		if r >= '\uFB00' && r <= '\uFB06' {
			var sb strings.Builder
			for _, r := range s {
				sb.WriteString(expandLigature(r))
			}
			return sb.String()
		}
	}
	return s
}
