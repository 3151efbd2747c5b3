package redact

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The decoded view.
//
// A secret can be written so that the rules do not see it in the text and
// a reader (or a program decoding the text) still gets it whole: with
// escapes ("sk-proj-\u0041BC…" in JSON, a key entirely in \u escapes, \x41
// in Python or C), with invisible characters inside it (a zero-width space,
// a soft hyphen), or in fullwidth letters. Every rule therefore also runs on
// a view of the text in which
//
//   - \uXXXX (a surrogate pair too), \u{X…}, \UXXXXXXXX and \xHH are
//     decoded when what they decode to is printable ASCII (fullwidth
//     included) other than white space, a quote or a backslash, which
//     secrets are made of (and so that a string's bounds and its line
//     breaks stay where the rules expect them), and removed when they
//     decode to a format character; an escaped backslash ("\\u0041") is
//     text, not an escape;
//   - format characters (Unicode Cf: zero-width space and joiners, soft
//     hyphen, word joiner, BOM…) are removed;
//   - fullwidth ASCII (U+FF01–U+FF5E) is read as ASCII;
//
// and what a rule finds there is masked in the text itself, escapes and
// all: the marker replaces the escaped secret, which is never kept.

// view is the decoded view of a text: text, and for each of its bytes the
// span of the original it comes from.
type view struct {
	text     string
	from, to []int32
}

// origin maps view[i:j] (i < j) to the original.
func (v *view) origin(i, j int) (int, int) {
	return int(v.from[i]), int(v.to[j-1])
}

// newView returns the decoded view of s; ok is false when it would be s
// itself, which is what most text costs: a byte search for "\" and, for
// text that is not ASCII, one pass over its runes.
func newView(s string) (*view, bool) {
	if !needsView(s) {
		return nil, false
	}
	v := &view{from: make([]int32, 0, len(s)), to: make([]int32, 0, len(s))}
	b := make([]byte, 0, len(s))
	// mark maps the bytes appended to b since n to s[from:to].
	mark := func(n, from, to int) {
		for range len(b) - n {
			v.from = append(v.from, int32(from))
			v.to = append(v.to, int32(to))
		}
	}
	add := func(text string, from, to int) {
		n := len(b)
		b = append(b, text...)
		mark(n, from, to)
	}
	addRune := func(r rune, from, to int) {
		n := len(b)
		b = utf8.AppendRune(b, r)
		mark(n, from, to)
	}
	changed := false
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			if s[i+1] == '\\' {
				add(s[i:i+2], i, i+2)
				i += 2
				continue
			}
			if r, n, ok := escapeAt(s[i:]); ok {
				if !unicode.Is(unicode.Cf, r) {
					addRune(r, i, i+n)
				}
				i += n
				changed = true
				continue
			}
		}
		if c < utf8.RuneSelf {
			add(s[i:i+1], i, i+1)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			add(s[i:i+1], i, i+1)
		case unicode.Is(unicode.Cf, r):
			changed = true
		case widthFold(r) != r:
			addRune(widthFold(r), i, i+n)
			changed = true
		default:
			add(s[i:i+n], i, i+n)
		}
		i += n
	}
	if !changed {
		return nil, false
	}
	v.text = string(b)
	return v, true
}

// needsView reports whether s may hold an escape the view decodes, a
// format character or a fullwidth letter: a vectorised search for "\",
// then one tight pass over the bytes (eight at a time up to the first
// outside ASCII), closer looks only at the lead bytes those characters
// start with.
func needsView(s string) bool {
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\\')
		if j < 0 {
			break
		}
		i += j
		if i+1 < len(s) && s[i+1] == '\\' {
			i += 2 // an escaped backslash: "\\u" is no escape
			continue
		}
		if _, _, ok := escapeAt(s[i:]); ok {
			return true
		}
		i++
	}
	for i := skipASCII(s); i < len(s); i++ {
		i = skipQuiet(s, i)
		if i < len(s) && viewAt(s, i) {
			return true
		}
	}
	return false
}

// skipASCII returns how much of the ASCII that starts s it reads eight
// bytes at a time (much text is ASCII throughout): a multiple of eight,
// the rest being read byte by byte.
func skipASCII(s string) int {
	i := 0
	for i+8 <= len(s) && ascii8(s[i:i+8]) {
		i += 8
	}
	return i
}

// skipQuiet returns the index of the first byte of s[i:] that viewLead
// marks, len(s) if none.
func skipQuiet(s string, i int) int {
	for i < len(s) && !viewLead[s[i]] {
		i++
	}
	return i
}

// viewLead marks the bytes that start a format character or a fullwidth
// letter: U+00AD, the Arabic, Syriac, Mongolian and other format
// characters, U+200B–U+206F, U+FEFF, U+FFF9–U+FFFB, U+FF01–U+FF5E and the
// supplementary ones.
var viewLead = func() (t [256]bool) {
	for _, c := range []byte{0xC2, 0xD8, 0xD9, 0xDB, 0xDC, 0xE0, 0xE1, 0xE2, 0xEF, 0xF0, 0xF3} {
		t[c] = true
	}
	return t
}()

// viewAt reports whether a format character or a fullwidth letter starts
// at s[i], a viewLead byte: the commonest by their bytes, the others
// decoded.
func viewAt(s string, i int) bool {
	var b1, b2 byte
	if i+1 < len(s) {
		b1 = s[i+1]
	}
	if i+2 < len(s) {
		b2 = s[i+2]
	}
	switch s[i] {
	case 0xC2:
		return b1 == 0xAD // U+00AD soft hyphen
	case 0xE2:
		// U+200B–U+200F, U+202A–U+202E, U+2060–U+2064, U+2066–U+206F.
		return b1 == 0x80 && (b2 >= 0x8B && b2 <= 0x8F || b2 >= 0xAA && b2 <= 0xAE) ||
			b1 == 0x81 && b2 >= 0xA0 && b2 <= 0xAF && b2 != 0xA5
	case 0xEF:
		// U+FEFF, U+FFF9–U+FFFB, fullwidth U+FF01–U+FF5E.
		return b1 == 0xBB && b2 == 0xBF || b1 == 0xBF && b2 >= 0xB9 && b2 <= 0xBB ||
			b1 == 0xBC && b2 >= 0x81 || b1 == 0xBD && b2 >= 0x80 && b2 <= 0x9E
	}
	// The other format characters: Arabic, Syriac, Mongolian and
	// supplementary ones.
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.Is(unicode.Cf, r)
}

// ascii8 reports whether the eight bytes of w are ASCII, in one test.
func ascii8(w string) bool {
	_ = w[7]
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	return x&0x8080808080808080 == 0
}

// widthFold reads fullwidth ASCII as ASCII.
func widthFold(r rune) rune {
	if r >= 0xFF01 && r <= 0xFF5E {
		return r - 0xFF01 + '!'
	}
	return r
}

// escapeAt decodes the escape at the start of s ("\u0041", "\x41", …) when
// it stands for a character the view shows decoded.
func escapeAt(s string) (rune, int, bool) {
	if len(s) < 2 {
		return 0, 0, false // a "\" that ends the text
	}
	var r rune
	var n int
	switch s[1] {
	case 'x':
		r, n = hexAt(s, 2, 2), 4
	case 'U':
		r, n = hexAt(s, 2, 8), 10
	case 'u':
		if len(s) > 2 && s[2] == '{' {
			end := strings.IndexByte(s[3:min(len(s), 10)], '}')
			if end <= 0 {
				return 0, 0, false
			}
			r, n = hexAt(s, 3, end), 3+end+1
			break
		}
		r, n = hexAt(s, 2, 4), 6
		if r >= 0xD800 && r < 0xDC00 && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if lo := hexAt(s, 8, 4); lo >= 0xDC00 && lo < 0xE000 {
				r, n = (r-0xD800)<<10+(lo-0xDC00)+0x10000, 12
			}
		}
	default:
		return 0, 0, false
	}
	if r <= 0 || r > unicode.MaxRune || r >= 0xD800 && r < 0xE000 {
		return 0, 0, false
	}
	if unicode.Is(unicode.Cf, r) {
		return r, n, true // removed from the view, as written raw
	}
	// Secrets are made of printable ASCII: other escapes ("\u00e9") stay
	// as they are, and so do quotes, backslashes and white space, which
	// bound strings and values where the rules expect them.
	r = widthFold(r)
	if r <= ' ' || r >= 0x7F || r == '"' || r == '\'' || r == '\\' {
		return 0, 0, false
	}
	return r, n, true
}

// hexAt reads exactly n hex digits at s[i:]; -1 when they are not there.
func hexAt(s string, i, n int) rune {
	if i+n > len(s) {
		return -1
	}
	var r rune
	for _, c := range []byte(s[i : i+n]) {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return -1
		}
	}
	return r
}
