package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The built-in markings and the "marking position" of bare level words are
// defined in the package documentation (doc.go); this file implements them.

type pattern struct {
	words []string // upper-case ASCII; see matchWord for E
	rule  string
}

// multi lists multi-word markings. For a shared first word, longer ones come
// first, so that the longest marking at a position is the one reported.
var multi = []pattern{
	{[]string{"TRES", "SECRET", "DEFENSE"}, "builtin:fr-tres-secret-defense"},
	{[]string{"TRES", "SECRET", "UE"}, "builtin:eu-top-secret"},
	{[]string{"TRES", "SECRET"}, "builtin:fr-tres-secret"},
	{[]string{"SECRET", "DEFENSE"}, "builtin:fr-secret-defense"},
	{[]string{"SECRET", "UE"}, "builtin:eu-secret"},
	{[]string{"SPECIAL", "FRANCE"}, "builtin:fr-special-france"},
	{[]string{"CONFIDENTIEL", "DEFENSE"}, "builtin:fr-confidentiel-defense"},
	{[]string{"CONFIDENTIEL", "UE"}, "builtin:eu-confidential"},
	{[]string{"COSMIC", "TOP", "SECRET"}, "builtin:nato-cosmic-top-secret"},
	{[]string{"DIFFUSION", "RESTREINTE"}, "builtin:fr-dr"},
	{[]string{"RESTREINT", "UE"}, "builtin:eu-restricted"},
	{[]string{"EU", "TOP", "SECRET"}, "builtin:eu-top-secret"},
	{[]string{"EU", "SECRET"}, "builtin:eu-secret"},
	{[]string{"EU", "CONFIDENTIAL"}, "builtin:eu-confidential"},
	{[]string{"EU", "RESTRICTED"}, "builtin:eu-restricted"},
	{[]string{"NATO", "SECRET"}, "builtin:nato-secret"},
	{[]string{"NATO", "CONFIDENTIAL"}, "builtin:nato-confidential"},
	{[]string{"NATO", "RESTRICTED"}, "builtin:nato-restricted"},
}

// bare lists the level words that count only in a marking position.
var bare = []pattern{
	{[]string{"SECRET"}, "builtin:fr-secret"},
	{[]string{"CONFIDENTIEL"}, "builtin:fr-confidentiel"},
	{[]string{"DR"}, "builtin:fr-dr"},
}

var labels = []string{"classification", "niveau", "marking", "marquage", "mention", "protection"}

// multiByFirst and bareByFirst index patterns by their first byte; start
// marks the bytes that may begin a marking (including TLP's "t").
var (
	multiByFirst [256][]int
	bareByFirst  [256][]int
	start        [256]bool
)

func init() {
	for i, p := range multi {
		c := p.words[0][0]
		multiByFirst[c] = append(multiByFirst[c], i)
		start[c] = true
	}
	for i, p := range bare {
		c := p.words[0][0]
		bareByFirst[c] = append(bareByFirst[c], i)
		start[c] = true
	}
	start['T'], start['t'] = true, true
}

// maxSep bounds the run between two words of a marking, so that trying a
// marking at a position costs a bounded amount of work.
const maxSep = 64

// maxBracket bounds how far a bracketed tail is read looking for its ")".
const maxBracket = 256

// scanBuiltin returns the leftmost built-in marking in s.
func scanBuiltin(s string) (from, to int, rule string, ok bool) {
	for i := 0; i+1 < len(s); i++ {
		c := s[i]
		if !start[c] {
			continue
		}
		n := s[i+1]
		tlp := c|0x20 == 't' && n|0x20 == 'l'
		// 0xC3 leads É, È, … (an E of SECRET or RESTREINT may be accented).
		word := c >= 'A' && c <= 'Z' && (n >= 'A' && n <= 'Z' || n == 0xC3)
		if !tlp && !word {
			continue
		}
		if i > 0 && wordBefore(s, i) {
			continue
		}
		if tlp {
			if end, r, ok := matchTLP(s, i); ok {
				return i, end, r, true
			}
		}
		if !word {
			continue
		}
		if end, r, ok := matchMulti(s, i); ok {
			return i, end, r, true
		}
		for _, k := range bareByFirst[c] {
			end, ok := matchWord(s, i, bare[k].words[0])
			if ok && !wordAt(s, end) && markingPosition(s, i, end) {
				return i, end, bare[k].rule, true
			}
		}
	}
	return 0, 0, "", false
}

// matchMulti matches a multi-word marking starting at i (a word start).
func matchMulti(s string, i int) (end int, rule string, ok bool) {
	if i >= len(s) {
		return 0, "", false
	}
next:
	for _, k := range multiByFirst[s[i]] {
		j := i
		for w, word := range multi[k].words {
			if w > 0 {
				if j, ok = matchSep(s, j); !ok {
					continue next
				}
			}
			if j, ok = matchWord(s, j, word); !ok {
				continue next
			}
		}
		if !wordAt(s, j) {
			return j, multi[k].rule, true
		}
	}
	return 0, "", false
}

// matchWord matches word (upper-case ASCII) at s[j:]. An E in word also
// matches É, È, Ê or Ë, and may be followed by up to two combining marks.
func matchWord(s string, j int, word string) (int, bool) {
	for k := 0; k < len(word); k++ {
		if j >= len(s) {
			return 0, false
		}
		pc := word[k]
		if s[j] == pc {
			j++
		} else if pc == 'E' && s[j] == 0xC3 && j+1 < len(s) && s[j+1] >= 0x88 && s[j+1] <= 0x8B {
			j += 2
		} else {
			return 0, false
		}
		if pc == 'E' {
			for m := 0; m < 2 && j+1 < len(s) && isCombining(s[j], s[j+1]); m++ {
				j += 2
			}
		}
	}
	return j, true
}

// isCombining reports whether b0 b1 encode a rune in U+0300–U+036F.
func isCombining(b0, b1 byte) bool {
	return b0 == 0xCC && b1 >= 0x80 && b1 <= 0xBF || b0 == 0xCD && b1 >= 0x80 && b1 <= 0xAF
}

// matchSep matches the run between two words of a marking: spaces, at most
// one hyphen, at most one line break, at least one character, at most
// maxSep bytes.
func matchSep(s string, j int) (int, bool) {
	from := j
	lines, hyphens := 0, 0
	for j < len(s) && j-from < maxSep {
		r, n := rune(s[j]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[j:])
		}
		switch {
		case r == '\r':
			lines++
			if j+1 < len(s) && s[j+1] == '\n' {
				n++
			}
		case isLineBreak(r):
			lines++
		case r == '-' || r == '\u2010' || r == '\u2011':
			hyphens++
		case isSpace(r):
		default:
			return j, j > from
		}
		if lines > 1 || hyphens > 1 {
			return 0, false
		}
		j += n
	}
	return j, j > from && j < len(s) && j-from < maxSep
}

// matchTLP matches "TLP:RED", "TLP:AMBER" or "TLP:AMBER+STRICT" (any case,
// optional spaces around the colon) at i.
func matchTLP(s string, i int) (int, string, bool) {
	if i+3 > len(s) || !strings.EqualFold(s[i:i+3], "tlp") {
		return 0, "", false
	}
	j := skipSpaces(s, i+3)
	if j >= len(s) || s[j] != ':' {
		return 0, "", false
	}
	j = skipSpaces(s, j+1)
	rest := s[j:]
	var end int
	var rule string
	switch {
	case hasPrefixFold(rest, "red"):
		end, rule = j+3, "builtin:tlp-red"
	case hasPrefixFold(rest, "amber"):
		end, rule = j+5, "builtin:tlp-amber"
		if hasPrefixFold(s[end:], "+strict") {
			end += len("+strict")
		}
	default:
		return 0, "", false
	}
	if wordAt(s, end) {
		return 0, "", false // "TLP:REDACTED"
	}
	return end, rule, true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// skipSpaces skips spaces (not line breaks) from j, at most maxSep bytes.
func skipSpaces(s string, j int) int {
	for from := j; j < len(s) && j-from < maxSep; {
		r, n := utf8.DecodeRuneInString(s[j:])
		if !isSpace(r) {
			break
		}
		j += n
	}
	return j
}

// markingPosition reports whether the bare level word at s[i:end] is in a
// marking position (see "Marking position" in the package documentation).
func markingPosition(s string, i, end int) bool {
	// 1. Banner: only decorations before it on its line.
	j := i
	for j > 0 {
		r, n := lastRune(s, j)
		if isLineBreak(r) {
			break
		}
		if !isDecoration(r) {
			break
		}
		j -= n
	}
	if r, _ := lastRune(s, j); j == 0 || isLineBreak(r) {
		if tailOK(s, end, 0) {
			return true
		}
	}

	// 2. Bracketed.
	j = i
	for j > 0 {
		r, n := lastRune(s, j)
		if !isSpace(r) {
			break
		}
		j -= n
	}
	if j > 0 {
		var closer byte
		switch s[j-1] {
		case '[':
			closer = ']'
		case '(':
			closer = ')'
		}
		// The bracket must start a token: "env[SECRET]" is code.
		if closer != 0 && (j == 1 || !wordBefore(s, j-1)) && tailOK(s, end, closer) {
			return true
		}
	}

	// 3. Labelled.
	return labelled(s, i)
}

// labelled reports whether a label and a separator precede s[i:].
func labelled(s string, i int) bool {
	j, solid := i, false
	for j > 0 {
		r, n := lastRune(s, j)
		if r == ':' || r == '=' || r == '\uFF1A' {
			solid = true
		} else if isDecoration(r) {
			if !isSpace(r) {
				solid = true
			}
		} else {
			break
		}
		j -= n
	}
	if !solid {
		return false
	}
	for _, l := range labels {
		k := j - len(l)
		if k >= 0 && strings.EqualFold(s[k:j], l) && (k == 0 || !wordBefore(s, k)) {
			return true
		}
	}
	return false
}

// tailOK reports whether what follows a bare level word (from end) is a
// valid tail: up to the end of the line when closer is 0, up to closer
// otherwise.
func tailOK(s string, end int, closer byte) bool {
	j, sep := end, false
	for j < len(s) {
		r, n := rune(s[j]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[j:])
		}
		if !isDecoration(r) {
			break
		}
		if !isSpace(r) && r != '*' && r != '#' && r != '>' && r != '~' && r != '•' {
			sep = true // "-", "–", "—", "|", "/"
		}
		j += n
	}
	if j == len(s) || lineBreakAt(s, j) {
		return closer == 0
	}
	if closer != 0 && s[j] == closer {
		return true
	}
	if _, _, ok := matchMulti(s, j); ok && j > end {
		return true
	}
	if !sep {
		return false
	}
	// Upper-case caveat up to the end of the line (banner) or the closer.
	// A banner is the first word of its line, so each line is read here at
	// most once; a bracket's tail is bounded by maxBracket.
	limit := len(s)
	if closer != 0 {
		limit = min(len(s), j+maxBracket)
	}
	for k := j; k < limit; {
		c := s[k]
		switch {
		case closer != 0 && c == closer:
			return true
		case c >= 'a' && c <= 'z':
			return false
		case c < utf8.RuneSelf:
			if isLineBreak(rune(c)) {
				return closer == 0
			}
			k++
		default:
			r, n := utf8.DecodeRuneInString(s[k:])
			if isLineBreak(r) {
				return closer == 0
			}
			if unicode.IsLower(r) {
				return false
			}
			k += n
		}
	}
	return closer == 0 && limit == len(s)
}

// isDecoration reports whether r may surround a marking on a banner line.
func isDecoration(r rune) bool {
	switch r {
	case '-', '*', '|', '#', '>', '/', '~', '\u2013', '\u2014', '\u2022':
		return true
	}
	return isSpace(r)
}

// isSpace reports whether r is a space within a line: space, tab, and the
// Unicode space separators (including the non-breaking ones French
// typography puts before ":" and inside markings).
func isSpace(r rune) bool {
	switch {
	case r == ' ' || r == '\t':
		return true
	case r < 0x80:
		return false
	}
	// U+200B (zero-width space) and U+FEFF (BOM) are invisible: as spaces
	// they neither hide a marking nor glue it to a word.
	return r == 0xA0 || r == 0x1680 || r >= 0x2000 && r <= 0x200B || r == 0x202F || r == 0x205F || r == 0x3000 || r == 0xFEFF
}

// isLineBreak reports whether r ends a line. Form feed counts: pdftotext
// separates pages with it, so a page's banner follows one.
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\f', '\v', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// lineBreakAt reports whether a line break starts at s[j].
func lineBreakAt(s string, j int) bool {
	if c := s[j]; c < utf8.RuneSelf {
		return isLineBreak(rune(c))
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	return isLineBreak(r)
}

// lastRune decodes the rune ending at s[j]; at j == 0 it returns (0, 0).
func lastRune(s string, j int) (rune, int) {
	if j == 0 {
		return 0, 0
	}
	if c := s[j-1]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeLastRuneInString(s[:j])
}

// isWordRune reports whether r continues a word: letters, digits, combining
// marks and "_" (so identifiers such as SECRET_KEY are one word).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		c := byte(r)
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r)
}

// wordBefore reports whether the rune before s[i] continues a word.
func wordBefore(s string, i int) bool {
	r, _ := lastRune(s, i)
	return isWordRune(r)
}

// wordAt reports whether the rune at s[j] continues a word.
func wordAt(s string, j int) bool {
	if j >= len(s) {
		return false
	}
	if c := s[j]; c < utf8.RuneSelf {
		return isWordRune(rune(c))
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	return isWordRune(r)
}
