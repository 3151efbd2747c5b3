package textfold

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Plain reports whether folding s would change nothing but runs of white
// space (each becoming one space, one "\n" or two spaces): a matcher that
// treats any run of white space as one separator can then read s as it is.
// It errs on the side of false: a false only costs the fold.
func Plain(s string) bool { return read(s, true).plain }

// plainSkip is the length of the byte or letter at s[i] when it is one of
// the common cases that need no closer look (a capital not followed by a
// blank, an accented lower-case Latin letter, U+00DF–U+00FF), 0 otherwise.
// It is small enough to be inlined.
func plainSkip(s string, i int) int {
	if i+1 >= len(s) {
		return 0
	}
	c, n := s[i], s[i+1]
	if c-'A' < 26 && n < utf8.RuneSelf && n != ' ' && n != '\t' {
		return 1
	}
	if c == 0xC3 && n-0x9F <= 0xBF-0x9F {
		return 2
	}
	return 0
}

// plainStep is Plain's closer look at s[i], a Loud byte: ok is false when
// s is not plain, and the look goes on at next otherwise.
func plainStep(s string, i int) (next int, ok bool) {
	c := s[i]
	if c < utf8.RuneSelf {
		switch {
		case c == ' ' || c == '\t':
		case c >= '0' && c <= '9':
			// Shown by a caller that leaves line breaks out (see Look).
			if start, ok := lineOf(s, i); ok && lineNumberAhead(s, start) {
				return 0, false
			}
		case c == '\n' || c == '\r' || c == '\v' || c == '\f':
			if lineNumberAhead(s, i+1) {
				return 0, false
			}
		case c < 0x20 || c == 0x7F:
			return 0, false
		case c == '&':
			if i+1 < len(s) && (s[i+1] == '#' || s[i+1]|0x20 >= 'a' && s[i+1]|0x20 <= 'z') {
				return 0, false
			}
		case c == '\\':
			if i+1 < len(s) && strings.IndexByte(`nrtfv"'\/uUx`, s[i+1]) >= 0 {
				return 0, false
			}
		case isEmphasis(c):
			end, drop := emphasisRun(s, i)
			return end, !drop
		case c >= 'A' && c <= 'Z':
			if i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t' || s[i+1] >= utf8.RuneSelf) && spacedPair(s, i, 1) {
				return 0, false
			}
		}
		return i + 1, true
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && n == 1:
		return 0, false
	case unicode.IsSpace(r):
		if IsLineBreak(r) && lineNumberAhead(s, i+n) {
			return 0, false
		}
	case !plainRune(r), unicode.IsUpper(r) && spacedPair(s, i, n):
		return 0, false
	}
	return i + n, true
}

// lineNumberAhead reports whether the line starting at s[i:] begins with
// line numbers folding removes, counting the blanks folding makes plain
// spaces of.
func lineNumberAhead(s string, i int) bool {
	j, wide := i, false
	for j < len(s) {
		if s[j] == ' ' || s[j] == '\t' {
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		if !isBlank(r) {
			break
		}
		wide = true
		j += n
	}
	if j >= len(s) || s[j] < '0' || s[j] > '9' {
		return false
	}
	return wide || lineNumberEnd(s, i) > i
}

// lineOf returns the start of the line of the digit at s[i], and whether
// only blanks stand before the digit on its line.
func lineOf(s string, i int) (start int, ok bool) {
	j := i
	for j > 0 {
		c := s[j-1]
		if c == ' ' || c == '\t' {
			j--
			continue
		}
		if c < utf8.RuneSelf {
			break
		}
		r, n := utf8.DecodeLastRuneInString(s[:j])
		if !isBlank(r) {
			break
		}
		j -= n
	}
	return j, j == 0 || isLineBreakAt(s, j-1)
}

// spacedPair reports whether the upper-case letter at s[i:i+n] is a
// single letter followed by one blank and another single capital: two
// letters folding joins.
func spacedPair(s string, i, n int) bool {
	if isWord(runeBefore(s, i)) {
		return false
	}
	j := i + n
	b, bn := utf8.DecodeRuneInString(s[j:])
	if j >= len(s) || !isBlank(b) {
		return false
	}
	k := j + bn
	q, qn := utf8.DecodeRuneInString(s[k:])
	if k >= len(s) || !unicode.IsUpper(q) {
		return false
	}
	return !isWord(runeAt(s, k+qn))
}

var (
	plainOnce sync.Once
	plainBMP  []uint64 // bit r: rune r of the BMP folds to itself, alone and beside others
)

// plainRune reports whether folding leaves r as it is whatever surrounds
// it (white space aside, which the caller handles): no escape, not
// invisible, not a look-alike, stable under NFKC and unable to combine
// with a neighbour.
func plainRune(r rune) bool {
	if r < 0x10000 {
		plainOnce.Do(initPlain)
		return plainBMP[r>>6]&(1<<(r&63)) != 0
	}
	return computePlain(r)
}

func initPlain() {
	plainBMP = make([]uint64, 0x10000/64)
	for r := rune(0x80); r < 0x10000; r++ {
		if computePlain(r) {
			plainBMP[r>>6] |= 1 << (r & 63)
		}
	}
}

func computePlain(r rune) bool {
	if r < 0x80 || !utf8.ValidRune(r) || invisible(r) || r == 0x034F || unicode.IsSpace(r) {
		return false
	}
	if _, ok := confusables[r]; ok {
		return false
	}
	// Stable under NFKC alone, and unable to combine with what precedes
	// it: plain text holds nothing but such runes, so none can combine
	// with its neighbour either (é is plain; a combining accent is not).
	p := norm.NFKC.PropertiesString(string(r))
	return norm.NFKC.IsNormalString(string(r)) && p.CCC() == 0 && p.BoundaryBefore() && !unicode.Is(unicode.M, r)
}
