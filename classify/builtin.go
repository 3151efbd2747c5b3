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
// first, so that the longest marking at a position is the one reported. A
// word may be "/" (NATO/OTAN): separators may be empty, so "NATO/OTAN" and
// "NATO / OTAN" both match.
var multi = append([]pattern{
	{[]string{"TRES", "SECRET", "DEFENSE"}, "builtin:fr-tres-secret-defense"},
	{[]string{"TRES", "SECRET", "UE"}, "builtin:eu-top-secret"},
	{[]string{"TRES", "SECRET"}, "builtin:fr-tres-secret"},
	{[]string{"SECRET", "DEFENSE"}, "builtin:fr-secret-defense"},
	{[]string{"SECRET", "UE"}, "builtin:eu-secret"},
	{[]string{"SECRET", "OTAN"}, "builtin:nato-secret"},
	{[]string{"SPECIAL", "FRANCE"}, "builtin:fr-special-france"},
	{[]string{"CONFIDENTIEL", "DEFENSE"}, "builtin:fr-confidentiel-defense"},
	{[]string{"CONFIDENTIEL", "UE"}, "builtin:eu-confidential"},
	{[]string{"CONFIDENTIEL", "OTAN"}, "builtin:nato-confidential"},
	{[]string{"COSMIC", "TOP", "SECRET"}, "builtin:nato-cosmic-top-secret"},
	{[]string{"COSMIC", "TRES", "SECRET"}, "builtin:nato-cosmic-top-secret"},
	{[]string{"DIFFUSION", "RESTREINTE"}, "builtin:fr-dr"},
	{[]string{"RESTREINT", "UE"}, "builtin:eu-restricted"},
	{[]string{"EU", "TOP", "SECRET"}, "builtin:eu-top-secret"},
	{[]string{"EU", "SECRET"}, "builtin:eu-secret"},
	{[]string{"EU", "CONFIDENTIAL"}, "builtin:eu-confidential"},
	{[]string{"EU", "RESTRICTED"}, "builtin:eu-restricted"},
}, natoMarkings()...)

// natoLevels are the levels that follow NATO, OTAN, NATO/OTAN or OTAN/NATO
// (NATO UNCLASSIFIED is not a classification).
var natoLevels = []pattern{
	{[]string{"SECRET"}, "builtin:nato-secret"},
	{[]string{"CONFIDENTIAL"}, "builtin:nato-confidential"},
	{[]string{"CONFIDENTIEL"}, "builtin:nato-confidential"},
	{[]string{"RESTRICTED"}, "builtin:nato-restricted"},
}

// natoMarkings are every prefix followed by every level, the longer
// prefixes first.
func natoMarkings() []pattern {
	var ps []pattern
	for _, prefix := range [][]string{{"NATO", "/", "OTAN"}, {"OTAN", "/", "NATO"}, {"NATO"}, {"OTAN"}} {
		for _, l := range natoLevels {
			ps = append(ps, pattern{append(append([]string(nil), prefix...), l.words...), l.rule})
		}
	}
	return ps
}

// bare lists the level words that count only in a marking position.
var bare = []pattern{
	{[]string{"SECRET"}, "builtin:fr-secret"},
	{[]string{"CONFIDENTIEL"}, "builtin:fr-confidentiel"},
	{[]string{"DR"}, "builtin:fr-dr"},
}

var labels = []string{"classification", "niveau", "marking", "marquage", "mention", "protection"}

// multiByFirst indexes the multi-word patterns by their first byte (upper
// case), grouped by first word, which is then matched once for all of
// them; bareByFirst indexes bare words the same way. start marks the bytes
// that may begin a marking (including TLP's "t"), startCI the same in any
// case.
var (
	multiByFirst [256][]firstWord
	bareByFirst  [256][]int
	start        [256]bool
	startCI      [256]bool
)

// firstWord is a first word and the multi-word patterns starting with it,
// in the order of multi.
type firstWord struct {
	word     string
	patterns []int
}

func init() {
	for i, p := range multi {
		c := p.words[0][0]
		groups := multiByFirst[c]
		k := 0
		for k < len(groups) && groups[k].word != p.words[0] {
			k++
		}
		if k == len(groups) {
			groups = append(groups, firstWord{word: p.words[0]})
		}
		groups[k].patterns = append(groups[k].patterns, i)
		multiByFirst[c] = groups
		start[c] = true
	}
	for i, p := range bare {
		c := p.words[0][0]
		bareByFirst[c] = append(bareByFirst[c], i)
		start[c] = true
	}
	start['T'], start['t'] = true, true
	for c := range 256 {
		startCI[c] = start[c] || c >= 'a' && c <= 'z' && start[c-0x20]
	}
}

// maxBracket bounds how far a bracketed tail is read looking for its ")",
// counting a run of blanks as one (folded text holds one where the
// original may hold several).
const maxBracket = 256

// scanner reads one text; ci matches the marking words in any case.
type scanner struct {
	s  string
	ci bool
}

// scanBuiltin returns the leftmost built-in marking in s.
func scanBuiltin(s string, ci bool) (from, to int, rule string, ok bool) {
	sc := scanner{s, ci}
	if ci {
		for i := 0; i+1 < len(s); i++ {
			if startCI[s[i]] && mayStart(s[i], s[i+1], true) {
				if end, r, ok := sc.at(i); ok {
					return i, end, r, true
				}
			}
		}
		return 0, 0, "", false
	}
	for i := 0; i+1 < len(s); i++ {
		c := s[i]
		if !start[c] {
			continue
		}
		if mayStart(c, s[i+1], false) {
			if end, r, ok := sc.at(i); ok {
				return i, end, r, true
			}
		}
	}
	return 0, 0, "", false
}

// mayStart reports whether the two bytes c, n may begin a marking: "tl"
// in any case, or two capitals (the second may be the first byte of É,
// È, …: an E of SECRET or RESTREINT may be accented), or two letters when
// ci. Small enough to be inlined in the scanning loops.
func mayStart(c, n byte, ci bool) bool {
	if c|0x20 == 't' && n|0x20 == 'l' {
		return true
	}
	if ci {
		return isLetterASCII(c) && (isLetterASCII(n) || n == 0xC3)
	}
	return isUpperASCII(c) && (isUpperASCII(n) || n == 0xC3)
}

// at tries every built-in marking at s[i], whose two bytes mayStart one.
func (sc scanner) at(i int) (end int, rule string, ok bool) {
	s := sc.s
	c, n := s[i], s[i+1]
	tlp := c|0x20 == 't' && n|0x20 == 'l'
	word := isUpperASCII(c) && (isUpperASCII(n) || n == 0xC3)
	if sc.ci {
		word = isLetterASCII(c) && (isLetterASCII(n) || n == 0xC3)
	}
	if !tlp && !word || i > 0 && wordBefore(s, i) {
		return 0, "", false
	}
	if tlp {
		if end, r, ok := sc.matchTLP(i); ok {
			return end, r, true
		}
	}
	if !word {
		return 0, "", false
	}
	if end, r, ok := sc.matchMulti(i); ok {
		return end, r, true
	}
	for _, k := range bareByFirst[c&^0x20] {
		end, ok := sc.matchWord(i, bare[k].words[0])
		if ok && !wordAt(s, end) && sc.markingPosition(i, end) {
			return end, bare[k].rule, true
		}
	}
	return 0, "", false
}

func isUpperASCII(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isLetterASCII(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// matchMulti matches a multi-word marking starting at i (a word start).
func (sc scanner) matchMulti(i int) (end int, rule string, ok bool) {
	s := sc.s
	if i >= len(s) {
		return 0, "", false
	}
	for _, g := range multiByFirst[s[i]&^0x20] {
		first, ok := sc.matchWord(i, g.word)
		if !ok {
			continue
		}
	next:
		for _, k := range g.patterns {
			j := first
			for _, word := range multi[k].words[1:] {
				j = matchSep(s, j)
				if j, ok = sc.matchWord(j, word); !ok {
					continue next
				}
			}
			if !wordAt(s, j) {
				return j, multi[k].rule, true
			}
		}
	}
	return 0, "", false
}

// matchWord matches word (upper-case ASCII, or "/") at s[j:], in any case
// when ci. An E in word also matches É, È, Ê or Ë (é, è, ê, ë when ci),
// and may be followed by up to two combining marks.
func (sc scanner) matchWord(j int, word string) (int, bool) {
	s := sc.s
	for k := 0; k < len(word); k++ {
		if j >= len(s) {
			return 0, false
		}
		pc := word[k]
		c := s[j]
		switch {
		case c == pc, sc.ci && isLetterASCII(pc) && c|0x20 == pc|0x20:
			j++
		case pc == 'E' && c == 0xC3 && j+1 < len(s) && (s[j+1] >= 0x88 && s[j+1] <= 0x8B || sc.ci && s[j+1] >= 0xA8 && s[j+1] <= 0xAB):
			j += 2
		default:
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

// matchSep returns the end of the run between two words of a marking:
// white space, line breaks included, and at most one hyphen. The run may
// be empty: words glued together ("DIFFUSIONRESTREINTE", or split by an
// invisible character that folding removed) still read as the marking.
// The run is read once per marking tried at the word before it, so the
// whole scan stays linear.
func matchSep(s string, j int) int {
	hyphens := 0
	for j < len(s) {
		r, n := rune(s[j]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[j:])
		}
		switch {
		case isSpace(r) || isLineBreak(r):
		case isHyphen(r):
			if hyphens++; hyphens > 1 {
				return j
			}
		default:
			return j
		}
		j += n
	}
	return j
}

func isHyphen(r rune) bool { return r == '-' || r == '\u2010' || r == '\u2011' }

// matchTLP matches a TLP label at i: "TLP", a separator, then RED, AMBER or
// AMBER+STRICT. With ":" or a hyphen in the separator ("TLP:RED",
// "TLP : RED", "tlp-amber", "TLP:\nRED") any case matches, as tags are
// written; with blanks only ("TLP RED") or nothing ("TLPRED"), upper case
// only unless ci, so that prose ("the tlp red team") is left alone.
func (sc scanner) matchTLP(i int) (int, string, bool) {
	s := sc.s
	if i+3 > len(s) || !strings.EqualFold(s[i:i+3], "tlp") {
		return 0, "", false
	}
	tag := false
	j := i + 3
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		switch {
		case isSpace(r) || isLineBreak(r):
		case r == ':' || r == '\uFF1A' || isHyphen(r) || r == '\u2013':
			if tag {
				return 0, "", false // "TLP::RED", "TLP:-RED"
			}
			tag = true
		default:
			goto colour
		}
		j += n
	}
colour:
	upper := sc.ci || tag || s[i:i+3] == "TLP"
	rest := s[j:]
	var end int
	var rule string
	switch {
	case hasPrefixCase(rest, "RED", upper && !tag && !sc.ci):
		end, rule = j+3, "builtin:tlp-red"
	case hasPrefixCase(rest, "AMBER", upper && !tag && !sc.ci):
		end, rule = j+5, "builtin:tlp-amber"
		if hasPrefixFold(s[end:], "+strict") {
			end += len("+strict")
		}
	default:
		return 0, "", false
	}
	if !upper || wordAt(s, end) {
		return 0, "", false // "tlp red" in prose, "TLP:REDACTED"
	}
	return end, rule, true
}

// hasPrefixCase is strings.HasPrefix when exact, else case-insensitive.
func hasPrefixCase(s, prefix string, exact bool) bool {
	if exact {
		return strings.HasPrefix(s, prefix)
	}
	return hasPrefixFold(s, prefix)
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// markingPosition reports whether the bare level word at s[i:end] is in a
// marking position (see "Marking position" in the package documentation).
func (sc scanner) markingPosition(i, end int) bool {
	s := sc.s
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
		if sc.tailOK(end, 0) {
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
		if closer != 0 && (j == 1 || !wordBefore(s, j-1)) && sc.tailOK(end, closer) {
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
func (sc scanner) tailOK(end int, closer byte) bool {
	s := sc.s
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
	if _, _, ok := sc.matchMulti(j); ok && j > end {
		return true
	}
	if !sep {
		return false
	}
	// Upper-case caveat up to the end of the line (banner) or the closer.
	// A banner is the first word of its line, so each line is read here at
	// most once; a bracket's tail is read for at most maxBracket
	// characters, a run of blanks counting as one and a backslash as none
	// (as folded text has them).
	units, blank := 0, false
	for k := j; k < len(s); {
		c := s[k]
		r, n := rune(c), 1
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[k:])
		}
		switch {
		case closer != 0 && c == closer:
			return true
		case isLineBreak(r):
			return closer == 0
		case c >= 'a' && c <= 'z', c >= utf8.RuneSelf && unicode.IsLower(r):
			return false
		}
		// A backslash is not counted: "\"" and its folded '"' are one.
		sp := isSpace(r)
		if (!sp || !blank) && r != '\\' {
			units++
		}
		blank = sp
		if closer != 0 && units > maxBracket {
			return false
		}
		k += n
	}
	return closer == 0
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
