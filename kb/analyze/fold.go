package analyze

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Classes of ASCII bytes, for the fast path of both analyses.
const (
	classLetter = 1 << iota
	classDigit
	classJoiner     // '_', '-', '.': may join the parts of a compound
	classApostrophe // '\'': may end a French elision
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = classLetter, classLetter
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classDigit
	}
	t['_'], t['-'], t['.'] = classJoiner, classJoiner, classJoiner
	t['\''] = classApostrophe
	return t
}()

// specialFold maps the runes that NFKD leaves alone but a French or English
// reader takes for plain letters (or for an apostrophe or a hyphen).
var specialFold = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'œ': "oe", 'Œ': "oe", 'æ': "ae", 'Æ': "ae",
	'ø': "o", 'Ø': "o", 'đ': "d", 'Đ': "d", 'ł': "l", 'Ł': "l", 'ı': "i",
	'ς': "σ", '’': "'", 'ʼ': "'", '‐': "-", '‑': "-",
}

// decomposes reports whether the default analysis folds r through NFKD: the
// blocks where that turns accented and compatibility forms into the letters
// a French or English query would type. Other scripts are only lower-cased,
// because there dropping marks changes the word (kana voicing, Indic vowel
// signs).
func decomposes(r rune) bool {
	switch {
	case r < 0x80:
		return false
	case r < 0x600: // Latin-1 to Latin Extended-B, IPA, combining marks, Greek, Cyrillic, Armenian, Hebrew
		return true
	case 0x1D00 <= r && r < 0x2500: // phonetic extensions, Latin Extended Additional, Greek Extended, punctuation, letterlike, number forms, enclosed alphanumerics
		return true
	case 0xFB00 <= r && r < 0xFB50: // Latin, Armenian and Hebrew presentation forms (ﬁ, ﬂ, ﬅ)
		return true
	case 0xFF01 <= r && r < 0xFF5F: // full-width ASCII
		return true
	}
	return false
}

// Folding of the runes below foldTabEnd comes from a table built on first
// use; the rarer decomposed ranges above it go through a map built at the
// same time, so that the hot path never normalises.
const foldTabEnd = 0x2500

var (
	foldOnce sync.Once
	foldTab  []string        // foldTab[r-0x80] for 0x80 <= r < foldTabEnd
	foldHigh map[rune]string // decomposed runes from foldTabEnd up
)

func buildFold() {
	foldTab = make([]string, foldTabEnd-0x80)
	for r := rune(0x80); r < foldTabEnd; r++ {
		foldTab[r-0x80] = foldFixed(r)
	}
	foldHigh = map[rune]string{}
	for r := rune(foldTabEnd); r <= 0xFFFF; r++ {
		if decomposes(r) {
			foldHigh[r] = foldFixed(r)
		}
	}
}

// foldString returns the default folding of r >= 0x80 as a string of zero or
// more runes, and false when the folding is just unicode.ToLower(r) (the
// caller then avoids a string).
func foldString(r rune) (string, bool) {
	if !decomposes(r) {
		return "", false
	}
	foldOnce.Do(buildFold)
	if r < foldTabEnd {
		return foldTab[r-0x80], true
	}
	return foldHigh[r], true
}

// foldFixed folds r until the result no longer changes, so that folding is
// idempotent by construction (a lower-case letter can have a decomposition
// its capital lacked).
func foldFixed(r rune) string {
	s := foldOnceRune(r)
	for range 4 {
		var next []byte
		for _, d := range s {
			if d < utf8.RuneSelf || !decomposes(d) {
				next = utf8.AppendRune(next, unicode.ToLower(d))
				continue
			}
			next = append(next, foldOnceRune(d)...)
		}
		if string(next) == s {
			break
		}
		s = string(next)
	}
	return s
}

// foldOnceRune is one folding step of a rune in a decomposed block: the
// special mappings, else NFKD, marks dropped, lower case. Separators are
// left as they are, even when NFKD would turn them into letters: "™" must
// not glue "tm" onto the word before it.
func foldOnceRune(r rune) string {
	if s, ok := specialFold[r]; ok {
		return s
	}
	if !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r) {
		return string(r)
	}
	var b []byte
	for _, d := range norm.NFKD.String(string(r)) {
		if unicode.IsMark(d) {
			continue
		}
		d = unicode.ToLower(d)
		if s, ok := specialFold[d]; ok {
			b = append(b, s...)
			continue
		}
		b = utf8.AppendRune(b, d)
	}
	return string(b)
}
