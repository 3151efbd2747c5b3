package textfold

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func appendRune(b []byte, r rune) []byte { return utf8.AppendRune(b, r) }

// escapeWindow is the longest escape decode reads: "&" and a 32-letter
// name and ";", or "\uD83D\uDE00".
const escapeWindow = 40

// decode decodes HTML character references and backslash escapes. A
// decoded "&" or "\" is pending: it is read again with what follows it.
func decode(in string, track bool) (string, spans) {
	if strings.IndexByte(in, '&') < 0 && strings.IndexByte(in, '\\') < 0 {
		return in, nil
	}
	o := newOut(len(in), track)
	changed := false
	var pend byte // a decoded '&' or '\\' to read again, or 0
	pendFrom := 0 // where the text it decodes starts
	for i := 0; i < len(in) || pend != 0; {
		if pend == 0 {
			// Copy up to the next '&' or '\\' at once.
			j := i
			for j < len(in) && in[j] != '&' && in[j] != '\\' {
				j++
			}
			if j > i {
				o.copyOf(in, i, j)
				i = j
				continue
			}
		}
		var c byte
		start := i
		if pend != 0 {
			c, start = pend, pendFrom
		} else {
			c = in[i]
		}
		if c == '&' || c == '\\' {
			w := in[i:min(len(in), i+escapeWindow)]
			if pend != 0 {
				w = string(pend) + w
			}
			if dec, n, ok := parseEscape(w); ok {
				changed = true
				used := n
				if pend != 0 {
					used--
				}
				i += used
				if dec == "&" || dec == "\\" {
					pend, pendFrom = dec[0], start
					continue
				}
				pend = 0
				o.add(dec, start, i)
				continue
			}
		}
		if pend != 0 {
			o.add(string(pend), start, i)
			pend = 0
			continue
		}
		o.copyOf(in, i, i+1)
		i++
	}
	if !changed {
		return in, nil
	}
	return o.result()
}

// parseEscape decodes the escape at the start of w: the text it stands
// for and its length.
func parseEscape(w string) (string, int, bool) {
	if len(w) < 2 {
		return "", 0, false
	}
	if w[0] == '&' {
		return parseEntity(w)
	}
	r, n, ok := parseBackslash(w)
	if !ok {
		return "", 0, false
	}
	return string(r), n, true
}

// parseBackslash decodes the backslash escape at the start of w (at least
// two bytes): the rune it stands for and its length. It allocates nothing,
// for Inert, which looks at every escape of a text.
func parseBackslash(w string) (rune, int, bool) {
	switch w[1] {
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'f':
		return '\f', 2, true
	case 'v':
		return '\v', 2, true
	case '"', '\'', '\\', '/':
		return rune(w[1]), 2, true
	case 'x':
		if r, ok := hexRune(w[2:], 2, 2); ok {
			return r, 4, true
		}
	case 'U':
		if r, ok := hexRune(w[2:], 8, 8); ok {
			return r, 10, true
		}
	case 'u':
		if len(w) > 2 && w[2] == '{' {
			end := strings.IndexByte(w[3:], '}')
			if end > 0 && end <= 6 {
				if r, ok := hexRune(w[3:3+end], end, end); ok {
					return r, 3 + end + 1, true
				}
			}
			return 0, 0, false
		}
		r, ok := hexRune(w[2:], 4, 4)
		if !ok {
			return 0, 0, false
		}
		if utf16High(r) {
			if len(w) >= 12 && w[6] == '\\' && w[7] == 'u' {
				if lo, ok := hexRune(w[8:], 4, 4); ok && utf16Low(lo) {
					return (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000, 12, true
				}
			}
			return 0, 0, false
		}
		if utf16Low(r) {
			return 0, 0, false
		}
		return r, 6, true
	}
	return 0, 0, false
}

func utf16High(r rune) bool { return r >= 0xD800 && r < 0xDC00 }
func utf16Low(r rune) bool  { return r >= 0xDC00 && r < 0xE000 }

// hexRune reads between lo and hi hex digits (exactly hi when lo == hi) at
// the start of s as a code point; NUL, surrogates (except for \u, checked
// by its caller) and values beyond Unicode are refused.
func hexRune(s string, lo, hi int) (rune, bool) {
	var r rune
	n := 0
	for n < hi && n < len(s) {
		d, ok := hexDigit(s[n])
		if !ok {
			break
		}
		r = r<<4 | d
		n++
	}
	if n < lo || r == 0 || r > unicode.MaxRune {
		return 0, false
	}
	return r, true
}

func hexDigit(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

// parseEntity decodes an HTML character reference at the start of w.
func parseEntity(w string) (string, int, bool) {
	if w[1] == '#' {
		j := 2
		hex := j < len(w) && (w[j] == 'x' || w[j] == 'X')
		if hex {
			j++
		}
		k := j
		var r rune
		for k < len(w) && k-j < 8 {
			var d rune
			var ok bool
			if hex {
				d, ok = hexDigit(w[k])
			} else if w[k] >= '0' && w[k] <= '9' {
				d, ok = rune(w[k]-'0'), true
			}
			if !ok {
				break
			}
			if hex {
				r = r<<4 | d
			} else {
				r = r*10 + d
			}
			k++
		}
		if k == j || r == 0 || r > unicode.MaxRune || r >= 0xD800 && r < 0xE000 {
			return "", 0, false
		}
		if k < len(w) && w[k] == ';' {
			k++
		}
		return string(r), k, true
	}
	k := 1
	for k < len(w) && k <= 32 && (w[k] >= 'a' && w[k] <= 'z' || w[k] >= 'A' && w[k] <= 'Z' || k > 1 && w[k] >= '0' && w[k] <= '9') {
		k++
	}
	if k == 1 {
		return "", 0, false
	}
	if k < len(w) && w[k] == ';' {
		ref := w[:k+1]
		if dec := html.UnescapeString(ref); dec != ref {
			return dec, k + 1, true
		}
		return "", 0, false
	}
	// Without ";", only the references browsers take anyway in running
	// text and that disguises use.
	switch {
	case strings.HasPrefix(w, "&nbsp"):
		return "\u00a0", 5, true
	case strings.HasPrefix(w, "&amp"):
		return "&", 4, true
	}
	return "", 0, false
}

// invisible reports whether r is removed as invisible (see the package
// documentation). The combining grapheme joiner is decided by its caller.
func invisible(r rune) bool {
	switch {
	case r < 0x80:
		return r < 0x20 && r != '\t' && r != '\n' && r != '\v' && r != '\f' && r != '\r' || r == 0x7F
	case r >= 0x80 && r < 0xA0:
		return r != 0x85 // C1 controls; NEL ends a line
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF: // variation selectors
		return true
	case r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0, r == 0x17B4, r == 0x17B5:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

func isMark(r rune) bool { return unicode.Is(unicode.M, r) }

// invisibleASCII marks the ASCII that invisible reports: the control
// characters but the white space.
var invisibleASCII = func() (t [utf8.RuneSelf]bool) {
	for c := range rune(utf8.RuneSelf) {
		t[c] = invisible(c)
	}
	return t
}()

// firstRune returns where the first rune of in that a stage changes
// starts, -1 when there is none: how a stage that changes nothing in most
// text finds out cheaply. ASCII is looked up in ascii (nil: no ASCII
// changes), every other rune asked of changes.
func firstRune(in string, ascii *[utf8.RuneSelf]bool, changes func(rune) bool) int {
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if ascii != nil && ascii[c] {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(in[i:])
		if changes(r) {
			return i
		}
		i += n
	}
	return -1
}

// dropInvisible removes invisible characters and ANSI escape sequences.
func dropInvisible(in string, track bool) (string, spans) {
	first := firstRune(in, &invisibleASCII, func(r rune) bool { return invisible(r) || r == 0x034F })
	if first < 0 {
		return in, nil
	}
	o := newOut(len(in), track)
	o.copyOf(in, 0, first)
	changed := false
	for i := first; i < len(in); {
		if c := in[i]; c >= 0x20 && c < 0x7F || c == '\t' || c == '\n' || c == '\r' {
			j := i + 1
			for j < len(in) && (in[j] >= 0x20 && in[j] < 0x7F || in[j] == '\t' || in[j] == '\n' || in[j] == '\r') {
				j++
			}
			o.copyOf(in, i, j)
			i = j
			continue
		}
		if in[i] == 0x1B {
			if n := ansiLen(in[i:]); n > 0 {
				i += n
				changed = true
				continue
			}
		}
		r, n := utf8.DecodeRuneInString(in[i:])
		if r == utf8.RuneError && n == 1 {
			o.add(in[i:i+1], i, i+1)
			i++
			continue
		}
		drop := invisible(r)
		if r == 0x034F {
			// Kept only where NFKC puts it, before a combining mark
			// (another joiner does not count, or each round would drop
			// one of a run).
			next, _ := utf8.DecodeRuneInString(in[i+n:])
			drop = i+n >= len(in) || next == 0x034F || !isMark(next)
		}
		if drop {
			changed = true
		} else {
			o.add(in[i:i+n], i, i+n)
		}
		i += n
	}
	if !changed {
		return in, nil
	}
	return o.result()
}

// ansiLen is the length of the ANSI escape sequence at the start of s
// (ESC [ parameters intermediates final, or ESC and one character), 0 if
// none starts there.
func ansiLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	if s[1] != '[' {
		if s[1] >= 0x40 && s[1] <= 0x5F {
			return 2
		}
		return 0
	}
	j := 2
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3F {
		j++
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2F {
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7E {
		return j + 1
	}
	return 0
}

// nfkc normalises to NFKC, segment by segment so that each output byte
// maps to the segment it comes from.
func nfkc(in string, track bool) (string, spans) {
	if norm.NFKC.IsNormalString(in) {
		return in, nil
	}
	if !track {
		return norm.NFKC.String(in), nil
	}
	o := newOut(len(in), track)
	var it norm.Iter
	it.InitString(norm.NFKC, in)
	for !it.Done() {
		from := it.Pos()
		seg := it.Next()
		to := it.Pos()
		if to <= from {
			to = min(len(in), from+1)
		}
		o.add(string(seg), from, to)
	}
	return o.result()
}

// mapConfusables maps look-alike letters to Latin ones.
func mapConfusables(in string, track bool) (string, spans) {
	first := firstRune(in, nil, func(r rune) bool { _, ok := confusables[r]; return ok })
	if first < 0 {
		return in, nil
	}
	o := newOut(len(in), track)
	o.copyOf(in, 0, first)
	for i := first; i < len(in); {
		if in[i] < utf8.RuneSelf {
			o.copyOf(in, i, i+1)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(in[i:])
		if l, ok := confusables[r]; ok {
			o.addRune(l, i, i+n)
		} else {
			o.add(in[i:i+n], i, i+n)
		}
		i += n
	}
	return o.result()
}
