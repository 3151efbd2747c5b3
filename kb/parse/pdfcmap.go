package parse

import (
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// pdfCMap is what text extraction needs of a CMap: how to cut a string
// into character codes (codespace ranges) and, for a ToUnicode CMap, the
// text of each code (bfchar and bfrange).
type pdfCMap struct {
	spaces []codeSpace
	chars  map[uint32]string
	ranges []bfRange
}

// codeSpace is a range of codes of n bytes.
type codeSpace struct {
	n      int
	lo, hi uint32
}

// bfRange maps lo..hi to dst with its last UTF-16 unit incremented, or
// to list[code-lo] when the range gives an array.
type bfRange struct {
	lo, hi uint32
	dst    []uint16
	list   []string
}

// Bounds on a hostile CMap: a range's array and the entries kept.
const (
	maxCMapEntries = 1 << 17
	maxRangeList   = 1 << 16
	maxCodeSpaces  = 64 // real CMaps have a handful; each code is tried against all
)

// parseCMap reads the codespace ranges and the bfchar / bfrange sections
// of a CMap; anything else (cidrange, usecmap, PostScript around) is
// skipped. It never fails: a broken section gives what it could read.
func parseCMap(data []byte) *pdfCMap {
	m := &pdfCMap{chars: map[uint32]string{}}
	l := &pdfLexer{data: data}
	var stack []pdfToken // strings and numbers since the last keyword
	entries := 0
	for {
		t := l.next()
		switch t.kind {
		case tokEOF:
			slices.SortFunc(m.ranges, func(a, b bfRange) int { return int(int64(a.lo) - int64(b.lo)) })
			return m
		case tokStr:
			stack = append(stack, pdfToken{kind: tokStr, str: slices.Clone(t.str)})
		case tokOp:
			switch string(t.str) {
			case "begincodespacerange":
				m.codespaces(l)
			case "beginbfchar":
				entries += m.bfchars(l, maxCMapEntries-entries)
			case "beginbfrange":
				entries += m.bfranges(l, maxCMapEntries-entries)
			}
			stack = stack[:0]
		default:
			stack = stack[:0]
		}
	}
}

// codespaces reads pairs of strings up to the keyword ending the section.
func (m *pdfCMap) codespaces(l *pdfLexer) {
	var lo []byte
	for {
		t := l.next()
		if t.kind != tokStr {
			return
		}
		if lo == nil {
			lo = slices.Clone(t.str)
			continue
		}
		if n := len(lo); n >= 1 && n <= 4 && len(t.str) == n && len(m.spaces) < maxCodeSpaces {
			m.spaces = append(m.spaces, codeSpace{n: n, lo: codeNumber(lo), hi: codeNumber(t.str)})
		}
		lo = nil
	}
}

func (m *pdfCMap) bfchars(l *pdfLexer, room int) int {
	n := 0
	for {
		src := l.next()
		if src.kind != tokStr || n >= room {
			return n
		}
		code := codeNumber(src.str[:min(len(src.str), 4)])
		dst := l.next()
		switch dst.kind {
		case tokStr:
			m.chars[code] = utf16Text(dst.str)
		case tokName:
			m.chars[code] = glyphText(string(dst.str))
		default:
			return n
		}
		n++
	}
}

func (m *pdfCMap) bfranges(l *pdfLexer, room int) int {
	n := 0
	for {
		lo := l.next()
		if lo.kind != tokStr || n >= room {
			return n
		}
		r := bfRange{lo: codeNumber(lo.str[:min(len(lo.str), 4)])}
		hi := l.next()
		if hi.kind != tokStr {
			return n
		}
		r.hi = codeNumber(hi.str[:min(len(hi.str), 4)])
		if r.hi < r.lo {
			r.lo, r.hi = r.hi, r.lo
		}
		dst := l.next()
		switch dst.kind {
		case tokStr:
			r.dst = utf16Units(dst.str)
			if len(r.dst) == 0 {
				continue
			}
		case tokArrOpen:
			for t := l.next(); t.kind == tokStr && len(r.list) < maxRangeList; t = l.next() {
				r.list = append(r.list, utf16Text(t.str))
			}
			if len(r.list) == 0 {
				continue // "[]": the range maps nothing
			}
		default:
			return n
		}
		m.ranges = append(m.ranges, r)
		n++
	}
}

// text is the text of code, ok false when the CMap does not map it.
func (m *pdfCMap) text(code uint32) (string, bool) {
	if s, ok := m.chars[code]; ok {
		return s, true
	}
	i, _ := slices.BinarySearchFunc(m.ranges, code, func(r bfRange, c uint32) int {
		if r.lo > c {
			return 1
		}
		return -1
	})
	// The ranges starting at or below code are before i; the nearest
	// start usually holds it, but ranges may overlap: look back a little.
	for j := i - 1; j >= 0 && j >= i-8; j-- {
		r := m.ranges[j]
		if code < r.lo || code > r.hi {
			continue
		}
		off := code - r.lo
		if r.list != nil {
			if int(off) < len(r.list) {
				return r.list[off], true
			}
			return "", false
		}
		if len(r.dst) == 0 {
			return "", false
		}
		u := slices.Clone(r.dst)
		u[len(u)-1] += uint16(off)
		return unitsText(u), true
	}
	return "", false
}

// split cuts s into codes by the codespace ranges; fallback is the code
// length when the CMap has none (1 for simple fonts, 2 for composite
// ones). A byte sequence in no range takes the shortest length in use.
func (m *pdfCMap) split(s []byte, fallback int, emit func(code uint32, n int)) {
	if m == nil || len(m.spaces) == 0 {
		for i := 0; i+fallback <= len(s); i += fallback {
			emit(codeNumber(s[i:i+fallback]), fallback)
		}
		return
	}
	shortest := 4
	for _, cs := range m.spaces {
		shortest = min(shortest, cs.n)
	}
	for i := 0; i < len(s); {
		n := m.codeLen(s[i:], shortest)
		if i+n > len(s) {
			return
		}
		emit(codeNumber(s[i:i+n]), n)
		i += n
	}
}

func (m *pdfCMap) codeLen(s []byte, shortest int) int {
	for n := 1; n <= 4 && n <= len(s); n++ {
		c := codeNumber(s[:n])
		for _, cs := range m.spaces {
			if cs.n == n && c >= cs.lo && c <= cs.hi {
				return n
			}
		}
	}
	return shortest
}

// utf16Units reads big-endian UTF-16 units; a lone last byte counts as a
// unit of its own (some writers give one-byte destinations).
func utf16Units(b []byte) []uint16 {
	if len(b) == 1 {
		return []uint16{uint16(b[0])}
	}
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
	}
	return u
}

// utf16Text decodes a ToUnicode destination, dropping NULs and invalid
// code points (never U+FFFD: a wrong character is worse than none).
func utf16Text(b []byte) string { return unitsText(utf16Units(b)) }

func unitsText(u []uint16) string {
	s := string(utf16.Decode(u))
	if !strings.ContainsAny(s, "\x00\uFFFD") && utf8.ValidString(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == 0 || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
}
