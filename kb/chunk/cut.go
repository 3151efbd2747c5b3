package chunk

import "unicode"

// span is a half-open range of rune indexes into a text.
type span struct{ start, end int }

// deferred is returned as the first span by the cutters when the first
// piece cannot fit in the room left in the current chunk without cutting
// inside a word: the caller closes that chunk and the text starts a fresh
// one.
var deferred = span{}

// cutProse cuts r into pieces of at most size runes (the first at most
// first runes). Each piece ends at the last sentence end or line break
// that keeps it at least half full, else at the last white space, else
// (a single word longer than the room) exactly at the limit. From the
// second piece on, a piece starts up to overlap runes before the previous
// one's end, at the start of a word, so the overlap is an exact suffix of
// the previous piece. Pieces are trimmed of surrounding white space.
func cutProse(r []rune, first, size, overlap int) []span {
	var out []span
	budget := first
	start := skipSpace(r, 0)
	prev := span{-1, -1}
	for start < len(r) {
		from := start
		if prev.end >= 0 && overlap > 0 {
			from = overlapStart(r, prev, overlap, start)
		}
		end, ok := cutPoint(r, from, budget, prev.end)
		if !ok && from != start {
			// Overlap left no room to end at white space: drop it.
			from = start
			end, ok = cutPoint(r, from, budget, prev.end)
		}
		if !ok && budget < size && len(out) == 0 {
			out = append(out, deferred)
			budget = size
			continue
		}
		if !ok {
			end = min(from+budget, len(r))
		}
		piece := span{from, trimEnd(r, from, end)}
		out = append(out, piece)
		prev = piece
		start = skipSpace(r, end)
		budget = size
	}
	return out
}

// cutPoint finds where a piece starting at from may end within budget
// runes, past floor (the previous piece's end, so pieces always advance).
// ok is false when only a cut inside a word would do.
func cutPoint(r []rune, from, budget, floor int) (end int, ok bool) {
	if len(r)-from <= budget {
		return len(r), true
	}
	limit := from + budget
	lo := max(from, floor)
	soft := -1 // rightmost acceptable cut when no sentence end is found
	for e := limit; e > lo; e-- {
		// A cut at e ends the piece at the end of a word: e starts a run
		// of white space, or follows a CJK full stop.
		atSpace := unicode.IsSpace(r[e]) && !unicode.IsSpace(r[e-1])
		cjk := isCJKStop(r[e-1])
		if !atSpace && !cjk {
			continue
		}
		if soft < 0 {
			soft = e
		}
		if e-from < budget/2 {
			break // a sentence end this early would waste the piece
		}
		if cjk || r[e] == '\n' || endsSentence(r, from, e) {
			return e, true
		}
	}
	if soft < 0 {
		return 0, false
	}
	return soft, true
}

// endsSentence reports whether the text before index e (white space) ends
// a sentence: . ! ? or … possibly followed by closing quotes or brackets.
func endsSentence(r []rune, from, e int) bool {
	i := e - 1
	for i > from && isCloser(r[i]) {
		i--
	}
	switch r[i] {
	case '.', '!', '?', '…':
		return true
	}
	return false
}

func isCloser(c rune) bool {
	switch c {
	case '"', '\'', ')', ']', '»', '”', '’':
		return true
	}
	return false
}

// isCJKStop: CJK sentence ends are not followed by a space.
func isCJKStop(c rune) bool { return c == '。' || c == '！' || c == '？' }

// overlapStart returns where the piece after prev begins: the first word
// start within the last overlap runes of prev (but after its first rune),
// or start when prev ends with a word longer than overlap.
func overlapStart(r []rune, prev span, overlap, start int) int {
	for p := max(prev.end-overlap, prev.start+1); p < prev.end; p++ {
		if !unicode.IsSpace(r[p]) && unicode.IsSpace(r[p-1]) {
			return p
		}
	}
	return start
}

// cutLines cuts source code into pieces of whole lines (blank lines at a
// piece's ends dropped, indentation kept); a line longer than the room is
// cut as prose without overlap.
func cutLines(r []rune, first, size int) []span {
	var out []span
	budget := first
	cur := span{-1, -1}
	closeCur := func() {
		if cur.start >= 0 {
			if end := trimEnd(r, cur.start, cur.end); end > cur.start {
				out = append(out, span{cur.start, end})
				budget = size
			}
			cur = span{-1, -1}
		}
	}
	for _, ln := range lineSpans(r) {
		if cur.start >= 0 && ln.end-cur.start <= budget {
			cur.end = ln.end
			continue
		}
		closeCur()
		if blankLine(r[ln.start:ln.end]) {
			continue
		}
		if ln.end-ln.start <= budget {
			cur = ln
			continue
		}
		for _, p := range cutProse(r[ln.start:ln.end], budget, size, 0) {
			if p == deferred {
				out = append(out, deferred)
				continue
			}
			out = append(out, span{ln.start + p.start, ln.start + p.end})
		}
		budget = size
	}
	closeCur()
	return out
}

// lineSpans returns the lines of r without their "\n".
func lineSpans(r []rune) []span {
	var lines []span
	start := 0
	for i, c := range r {
		if c == '\n' {
			lines = append(lines, span{start, i})
			start = i + 1
		}
	}
	return append(lines, span{start, len(r)})
}

func blankLine(r []rune) bool {
	for _, c := range r {
		if !unicode.IsSpace(c) {
			return false
		}
	}
	return true
}

func skipSpace(r []rune, i int) int {
	for i < len(r) && unicode.IsSpace(r[i]) {
		i++
	}
	return i
}

func trimEnd(r []rune, start, end int) int {
	for end > start && unicode.IsSpace(r[end-1]) {
		end--
	}
	return end
}
