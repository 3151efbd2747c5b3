package classify

import (
	"math/bits"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/moteur/moteur/textfold"
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
// them; bareByFirst indexes bare words the same way.
var (
	multiByFirst [256][]firstWord
	bareByFirst  [256][]int
)

// pairs tells the scan, for every two bytes c, n at i, i+1 (at pairOf(c,
// n)), what to do at i: look for a marking, when c, n may be the first two
// bytes of one (pairStart; in any case, pairStartCI), and show the
// textfold.Reading c (pairThis) or n (pairNext), as textfold.Look asks.
// Most pairs ask for nothing: reading a pair at a time, the scan stops
// where something may happen, not at every capital or accented letter.
var pairs = sync.OnceValue(func() *[1 << 16]uint8 {
	var t [1 << 16]uint8
	// The first two letters of every first word, in upper case (the
	// second, when an E, may be É, È, Ê or Ë: the first byte of those is
	// 0xC3), and in any case; "tl" in any case (TLP).
	opens := func(w string) {
		seconds := []byte{w[1], w[1] | 0x20}
		if w[1] == 'E' {
			seconds = append(seconds, 0xC3)
		}
		for _, n := range seconds {
			if n == w[1] || n == 0xC3 {
				t[pairOf(w[0], n)] |= pairStart
			}
			t[pairOf(w[0], n)] |= pairStartCI
			t[pairOf(w[0]|0x20, n)] |= pairStartCI
		}
	}
	for _, p := range multi {
		opens(p.words[0])
	}
	for _, p := range bare {
		opens(p.words[0])
	}
	for _, c := range []byte("tT") {
		for _, n := range []byte("lL") {
			t[pairOf(c, n)] |= pairStart | pairStartCI
		}
	}
	for c := range 256 {
		for n := range 256 {
			this, next := textfold.Look(byte(c), byte(n))
			if this {
				t[pairOf(byte(c), byte(n))] |= pairThis
			}
			if next {
				t[pairOf(byte(c), byte(n))] |= pairNext
			}
		}
	}
	return &t
})

// pairOf is the index in pairs of c followed by n: the two bytes read as
// a little-endian number, as the scan reads them.
func pairOf(c, n byte) uint16 { return uint16(c) | uint16(n)<<8 }

const (
	pairStart uint8 = 1 << iota
	pairStartCI
	pairThis
	pairNext
)

// firstWord is a first word and the multi-word patterns starting with it,
// in the order of multi. second marks the bytes their second words may
// start with (an E as É, È, …: 0xC3), and secondCI the same in any case.
type firstWord struct {
	word             string
	patterns         []int
	second, secondCI [256]bool
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
		g := &groups[k]
		g.patterns = append(g.patterns, i)
		b := p.words[1][0]
		g.second[b], g.secondCI[b], g.secondCI[lowerASCII(b)] = true, true, true
		if b == 'E' {
			g.second[0xC3], g.secondCI[0xC3] = true, true
		}
		multiByFirst[c] = groups
	}
	for i, p := range bare {
		c := p.words[0][0]
		bareByFirst[c] = append(bareByFirst[c], i)
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
	return scanReading(s, ci, nil)
}

// scanReading is scanBuiltin showing r, when not nil, what it must be
// shown of s (see textfold.Look), up to the marking found or the end: one
// pass over the text both looks for markings in it and tells whether
// folding it could matter.
func scanReading(s string, ci bool, r *textfold.Reading) (from, to int, rule string, ok bool) {
	sc := scanner{s, ci}
	start := pairStart
	if ci {
		start = pairStartCI
	}
	stop := start
	if r != nil {
		stop |= pairThis | pairNext
	}
	t := pairs()
	stops := uint64(stop) * 0x0101010101010101
	for i := 0; i+1 < len(s); {
		// Eight pairs at a time: most ask for nothing. The entries of
		// those that ask for something go in the bytes of m, found by
		// their bits.
		var m uint64
		k := 0
		if i+8 < len(s) {
			// Eight of the nine bytes as one number (one load): each
			// pair's index is two of its bytes.
			w := s[i : i+9]
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			f0, f1, f2, f3 := t[uint16(x)], t[uint16(x>>8)], t[uint16(x>>16)], t[uint16(x>>24)]
			f4, f5, f6, f7 := t[uint16(x>>32)], t[uint16(x>>40)], t[uint16(x>>48)], t[uint16(x>>56)|uint16(w[8])<<8]
			if (f0|f1|f2|f3|f4|f5|f6|f7)&stop == 0 {
				i += 8
				continue
			}
			m = uint64(f0) | uint64(f1)<<8 | uint64(f2)<<16 | uint64(f3)<<24 |
				uint64(f4)<<32 | uint64(f5)<<40 | uint64(f6)<<48 | uint64(f7)<<56
			k = 8
		} else {
			for ; i+k+1 < len(s); k++ {
				m |= uint64(t[pairOf(s[i+k], s[i+k+1])]) << (8 * k)
			}
		}
		for m &= stops; m != 0; {
			b := bits.TrailingZeros64(m) &^ 7
			f := uint8(m >> b)
			m &^= 0xFF << b
			j := i + b/8
			if f&pairThis != 0 {
				r.Show(j)
			}
			if f&pairNext != 0 {
				r.Show(j + 1)
			}
			if f&start != 0 {
				if end, rl, ok := sc.at(j); ok {
					return j, end, rl, true
				}
			}
		}
		i += k
	}
	if last := len(s) - 1; r != nil && last >= 0 && textfold.Loud(s[last]) && utf8.RuneStart(s[last]) {
		r.Show(last)
	}
	return 0, 0, "", false
}

// at tries every built-in marking at s[i], whose two bytes may start one
// (see pairs).
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
	for k := range multiByFirst[s[i]&^0x20] {
		g := &multiByFirst[s[i]&^0x20][k]
		first, ok := sc.matchWord(i, g.word)
		if !ok {
			continue
		}
		// What separates the first word from the second is the same for
		// every pattern of the group, and so is the byte the second starts
		// with: most groups end there.
		sep := matchSep(s, first)
		if sep >= len(s) || !sc.ci && !g.second[s[sep]] || sc.ci && !g.secondCI[s[sep]] {
			continue
		}
	next:
		for _, p := range g.patterns {
			words := multi[p].words
			j, ok := sc.matchWord(sep, words[1])
			if !ok {
				continue
			}
			for _, word := range words[2:] {
				j = matchSep(s, j)
				if j, ok = sc.matchWord(j, word); !ok {
					continue next
				}
			}
			if !wordAt(s, j) {
				return j, multi[p].rule, true
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
		case isSpace(r) || textfold.IsLineBreak(r):
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
		case isSpace(r) || textfold.IsLineBreak(r):
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
		if textfold.IsLineBreak(r) {
			break
		}
		if !isDecoration(r) {
			break
		}
		j -= n
	}
	if r, _ := lastRune(s, j); j == 0 || textfold.IsLineBreak(r) {
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
		case textfold.IsLineBreak(r):
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

// lineBreakAt reports whether a line break starts at s[j].
func lineBreakAt(s string, j int) bool {
	if c := s[j]; c < utf8.RuneSelf {
		return textfold.IsLineBreak(rune(c))
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	return textfold.IsLineBreak(r)
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
