package tools

import (
	"strconv"
	"unicode/utf8"
)

// DefaultMaxOutput is the number of runes a result keeps when Config.MaxOutput
// is zero: large enough for a page of search hits, small enough that one
// runaway tool cannot fill the context window.
const DefaultMaxOutput = 24000

// headShare is the part of the budget given to the beginning of the text, in
// tenths. The head usually carries the structure (titles, first hits) and the
// tail the conclusion or the error, so both survive.
const headShare = 7

// Truncate shortens s to max runes, keeping the first floor(0.7*max) runes and
// the last max-head runes with a marker in between that says how many runes
// were dropped. It reports whether s was cut. A string of at most max runes,
// or a max of zero or less (no limit), returns s unchanged.
//
// Counting is in runes so that multi-byte text is never split inside a
// character; an invalid byte counts as one rune, as utf8 does.
func Truncate(s string, max int) (string, bool) {
	// Fewer bytes than max means fewer runes than max: skip the count.
	if max <= 0 || len(s) <= max {
		return s, false
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s, false
	}
	// floor(0.7*max) without the overflow of max*7 for a huge max.
	head := max/10*headShare + max%10*headShare/10
	tail := max - head

	headEnd := 0
	for i := 0; i < head; i++ {
		_, w := utf8.DecodeRuneInString(s[headEnd:])
		headEnd += w
	}
	tailStart := len(s)
	for i := 0; i < tail; i++ {
		_, w := utf8.DecodeLastRuneInString(s[:tailStart])
		tailStart -= w
	}

	omitted := strconv.Itoa(n - max)
	const open, closing = "\n\n[… ", " characters omitted …]\n\n"
	buf := make([]byte, 0, headEnd+len(open)+len(omitted)+len(closing)+len(s)-tailStart)
	buf = append(buf, s[:headEnd]...)
	buf = append(buf, open...)
	buf = append(buf, omitted...)
	buf = append(buf, closing...)
	buf = append(buf, s[tailStart:]...)
	return string(buf), true
}
