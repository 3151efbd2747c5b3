package textfold

import (
	"unicode"
	"unicode/utf8"
)

// Inert reports whether folding s could change nothing a matcher of words
// in capitals (case-sensitive), and of TLP labels (the letters of TLP, RED
// and AMBER in any case, ":" and "-"), can see: what folding would do is
// all beside lower-case words and punctuation, as in code and JSON ("\""
// and "\n" in strings, "*p" and "&x" beside lower-case names, an
// underscore in __init__), or in white space. Such a matcher, treating any
// run of white space as one separator, reads s as it is and skips the
// cost of folding; what it finds there is what it would find folded, or
// more (a word that folding would glue to its neighbour).
//
// It is Plain with each finding weighed: an escape, an emphasis run or line
// numbers count only when a capital, a digit, a TLP letter, a TLP
// separator or a character outside ASCII stands next to where they would
// be removed; look-alikes, invisible and compatibility characters always
// count. Like Plain, it errs on the side of false.
func Inert(s string) bool { return read(s, false).inert }

// inertStep is Inert's look at s[i], a Loud byte: ok is false when s is
// not inert, and the look goes on at next otherwise.
func inertStep(s string, i int) (next int, ok bool) {
	c := s[i]
	if c >= utf8.RuneSelf {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return 0, false
		case unicode.IsSpace(r):
			return i + n, !IsLineBreak(r) || inertLine(s, i+n)
		case r == '…':
			return i + n, true // folds to "...": punctuation for punctuation
		case !plainRune(r), unicode.IsUpper(r) && spacedPair(s, i, n):
			return 0, false
		}
		return i + n, true
	}
	switch {
	case c == ' ' || c == '\t':
	case c >= '0' && c <= '9':
		// Shown by a caller that leaves line breaks out (see Look).
		if start, ok := lineOf(s, i); ok {
			return i + 1, inertLine(s, start)
		}
	case c == '\n' || c == '\r' || c == '\v' || c == '\f':
		return i + 1, inertLine(s, i+1)
	case c < 0x20 || c == 0x7F:
		return 0, false
	case c == '&':
		if _, _, ok := parseEscape(s[i:min(len(s), i+escapeWindow)]); ok {
			return 0, false
		}
	case c == '\\':
		if i+1 >= len(s) {
			break
		}
		dec, n, ok := parseBackslash(s[i:min(len(s), i+escapeWindow)])
		if !ok {
			break
		}
		if !inertEscape(s, i, i+n, dec) {
			return 0, false
		}
		return i + n, true
	case isEmphasis(c):
		end, drop := emphasisRun(s, i)
		if drop && !inertJoin(s, i, end) {
			return 0, false
		}
		return end, true
	case c >= 'A' && c <= 'Z':
		if i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t' || s[i+1] >= utf8.RuneSelf) && spacedPair(s, i, 1) {
			return 0, false
		}
	}
	return i + 1, true
}

// quietBefore and quietAfter mark what may stand before and after a
// removed escape without the removal mattering to a matcher of capitals:
// lower-case letters (but the "p" that ends TLP before, the "r" and "a"
// that start RED and AMBER after), and the punctuation a marking never
// starts, ends or is separated with. Blanks, decorations, brackets,
// digits (line numbers), capitals and anything outside ASCII matter.
var quietBefore, quietAfter = quietSet("p"), quietSet("ra")

func quietSet(tlp string) (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for _, c := range tlp {
		t[c] = false
	}
	for _, c := range `"',;.)]}%$=+?!<` {
		t[c] = true
	}
	return t
}

// inertEscape reports whether decoding the backslash escape s[i:end] to r
// changes nothing a matcher of capitals sees.
func inertEscape(s string, i, end int, r rune) bool {
	before := i == 0 || quietBefore[s[i-1]]
	after := end >= len(s) || quietAfter[s[end]]
	switch {
	case r == '"' || r == '\'':
		return true // a backslash less before a quote
	case r == '/':
		// "https:\/\/host": a slash in a path, not one decorating a
		// banner at the start of a line.
		return i > 0 && (s[i-1] >= 'a' && s[i-1] <= 'z' || s[i-1] >= '0' && s[i-1] <= '9' || s[i-1] == '/' || s[i-1] == ':' || s[i-1] == '.')
	case r == '\\':
		// Read again with what follows: "\\n" decodes all the way.
		return end >= len(s) || quietAfter[s[end]] && !isEscapeLetter(s[end])
	case r == '\n' || r == '\r' || r == '\t' || r == '\f' || r == '\v':
		// A line break or a blank where "\n" was: it matters beside a
		// word that could be a marking's ("DIFFUSION\nRESTREINTE",
		// "\nSECRET\n", "TLP:\nRED"), not inside "%q\n" or "a\nb".
		return before && after
	}
	// A decoded letter or sign is part of the word it stands in, which may
	// be TLP's: it, and what stands on either side, must be of no marking.
	l, n := rune(-1), rune(-1)
	if i > 0 {
		l = rune(s[i-1])
	}
	if end < len(s) {
		n = rune(s[end])
	}
	if !inertNeighbour(l) || !inertNeighbour(n) || tlpRune(l) || tlpRune(n) {
		return false
	}
	if r < utf8.RuneSelf {
		return inertNeighbour(r) && r != ' ' && r != '\t' && !tlpRune(r)
	}
	// Outside ASCII: only a lower-case letter that is plain ("\u00e9").
	return unicode.IsLower(r) && plainRune(r)
}

// isEscapeLetter reports whether a backslash before c makes an escape.
func isEscapeLetter(c byte) bool {
	switch c {
	case 'n', 'r', 't', 'f', 'v', 'u', 'U', 'x', '"', '\'', '\\', '/':
		return true
	}
	return false
}

// inertJoin reports whether removing the emphasis run s[i:end] changes
// nothing a matcher of capitals sees: what it stood between is lower case,
// punctuation or blank ("**Directeur**", "_équipes_"), or a capitalised
// word ("*Server"), never a capital, a digit, a TLP separator or a
// character that is not a plain lower-case letter, nor where a TLP label's
// words meet ("tlp*:", "*red") or inside one ("t*lp").
func inertJoin(s string, i, end int) bool {
	l, r := runeBefore(s, i), runeAt(s, end)
	if r >= 'A' && r <= 'Z' && !wordish(l) {
		// "*Server": a capital starting a lower-case word is no marking
		// word, with or without the star.
		if n := runeAt(s, end+1); n >= 'a' && n <= 'z' {
			r = 'x'
		}
	}
	if !inertNeighbour(l) || !inertNeighbour(r) {
		return false
	}
	// TLP's letters: the "p" that ends TLP, the "r" or "a" that starts
	// the colour, any of them inside a word.
	if l|0x20 == 'p' || r|0x20 == 'r' || r|0x20 == 'a' {
		return false
	}
	return !(wordish(l) && wordish(r) && (tlpRune(l) || tlpRune(r)))
}

// inertNeighbour reports whether r may stand beside removed emphasis:
// the text's edge, a blank, a bracket, quiet punctuation (an ellipsis
// too) or a lower-case letter (plain, outside ASCII).
func inertNeighbour(r rune) bool {
	switch {
	case r < 0:
		return true // the start or the end of the text
	case r >= 'a' && r <= 'z':
		return true
	case r < utf8.RuneSelf:
		return quietBefore[byte(r)] && quietAfter[byte(r)] || r == ' ' || r == '\t' || r == '(' || r == '[' || r == '{'
	}
	return r == '…' || unicode.IsLower(r) && plainRune(r)
}

func tlpRune(r rune) bool { return r < utf8.RuneSelf && isTLPLetter(byte(r)) }

func isTLPLetter(c byte) bool {
	switch c | 0x20 {
	case 't', 'l', 'p', 'r', 'e', 'd', 'a', 'm', 'b':
		return true
	}
	return false
}

// inertLine reports whether the line starting at s[i:] either has no line
// numbers at its start, or has some whose removal changes nothing a
// matcher of capitals sees: the line goes on with a lower-case word
// ("     3\tfunc main() {"), not with a capital, a decoration or a
// bracket that would then start the line, nor with "red" or "amber" after
// a line that ends with a TLP separator.
func inertLine(s string, i int) bool {
	if !lineNumberAhead(s, i) {
		return true
	}
	j := lineNumberEnd(s, i)
	if j == i {
		return false // blanks outside ASCII before the digits
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j >= len(s) {
		return true
	}
	c := s[j]
	if c < 'a' || c > 'z' {
		return false
	}
	if c != 'r' && c != 'a' {
		return true
	}
	// The line before: does it end with "tlp", ":" or "-"?
	k := i - 1 // the line break before the line
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t' || s[k-1] == '\r' || s[k-1] == '\n') {
		k--
	}
	if k <= 0 {
		return true
	}
	p := s[k-1] | 0x20
	return p != ':' && p != '-' && p != 'p'
}
