package textfold

import "unicode/utf8"

// A Reading works out Plain and Inert for a text in a pass over it that
// its caller makes anyway: package classify, looking for markings in the
// text as it is, shows it what Look asks for as it reads, so that a text
// is read once, not once for the markings and once more to tell whether
// folding could matter. Plain and Inert are such a pass alone, shown
// every Loud byte.
//
// The two questions share one walk: while a text is plain, a look at a
// byte moves on exactly as Inert's would, so only from the first place
// folding changes something does the walk weigh what it changes.
type Reading struct {
	s     string
	next  int  // the bytes before next are read
	plain bool // false once what was read shows s is not plain
	inert bool // false once what was read shows s is not inert
}

// NewReading starts a Reading of s.
func NewReading(s string) Reading {
	r := Reading{s: s, plain: !lineNumberAhead(s, 0), inert: inertLine(s, 0)}
	if s != "" && isContinuation(s[0]) {
		// Invalid UTF-8, and the one continuation byte no pair of Look
		// shows.
		r.plain, r.inert = false, false
	}
	return r
}

// Loud reports whether a caller that reads a text a byte at a time must
// show a Reading byte c. The others are ASCII that folding leaves as they
// are whatever stands beside them (most lower-case letters, digits,
// punctuation, spaces and tabs: see quiet).
func Loud(c byte) bool { return !quiet[c] }

// Look is Loud for a caller that reads a text a pair of bytes at a time,
// c at i and n at i+1, and so can leave out the commonest Loud bytes: it
// reports whether the Reading must be shown c (this) and n (next).
//
// Left out are the bytes whose look n settles: a capital followed by
// ASCII other than a blank (no spaced letter starts there), a lower-case
// Latin letter of U+00DF–U+00FF written whole, an "&" or "\" that starts
// no escape, and a continuation byte after a leading one (the look at its
// letter takes it in). Line breaks are left out too: instead, a digit
// after a blank or a line break is shown, whose look tells whether it
// starts the line numbers of its line. A continuation byte after any other
// byte is shown as next: inside a letter an earlier look took in, it costs
// nothing; stray, it is invalid UTF-8.
//
// A caller that shows a Reading what Look asks for, pair by pair, and then
// the last byte of the text when it is Loud and starts a letter
// (utf8.RuneStart), gets Plain and Inert.
func Look(c, n byte) (this, next bool) {
	next = isContinuation(n) && c < 0xC0 ||
		n >= '0' && n <= '9' && (c == ' ' || c == '\t' || isLineBreakByte(c) || isContinuation(c))
	switch {
	case quiet[c] || isContinuation(c) || isLineBreakByte(c):
		return false, next
	case c-'A' < 26 && n < utf8.RuneSelf && n != ' ' && n != '\t',
		c == 0xC3 && n-0x9F <= 0xBF-0x9F:
		return false, next // as plainSkip
	case c == '&':
		// As parseEntity.
		return n == '#' || n|0x20 >= 'a' && n|0x20 <= 'z', next
	case c == '\\':
		return isEscapeLetter(n), next
	}
	return true, next
}

func isLineBreakByte(c byte) bool { return c == '\n' || c == '\r' || c == '\v' || c == '\f' }

func isContinuation(c byte) bool { return c&0xC0 == 0x80 }

// quiet marks the bytes a Reading passes over without a look: most ASCII
// (lower-case letters, digits, punctuation, spaces and tabs).
var quiet = func() (q [256]bool) {
	for c := 0x20; c < 0x7F; c++ {
		q[c] = !(c == '&' || c == '\\' || isEmphasis(byte(c)) || c >= 'A' && c <= 'Z')
	}
	q['\t'] = true
	return q
}()

// Show shows r the byte at i of its text: a Loud one, or one Look asks
// for. Calls come in the order of the text, a byte maybe twice. A byte
// inside what an earlier look took in (the rest of an escape, of an
// emphasis run, of a letter outside ASCII), or shown once the answers are
// known, costs a comparison: Show is small enough to be inlined in its
// caller's loop.
func (r *Reading) Show(i int) {
	if i >= r.next && r.inert {
		r.look(i)
	}
}

func (r *Reading) look(i int) {
	if n := plainSkip(r.s, i); n > 0 {
		r.next = i + n
		return
	}
	if r.plain {
		next, ok := plainStep(r.s, i)
		if ok {
			r.next = next
			return
		}
		r.plain = false
	}
	r.next, r.inert = inertStep(r.s, i)
}

// Plain is Plain(s) once r has been shown what Loud, or Look, marks in
// the whole of s.
func (r *Reading) Plain() bool { return r.plain }

// Inert is Inert(s) once r has been shown what Loud, or Look, marks in
// the whole of s.
func (r *Reading) Inert() bool { return r.inert }

// read shows r every Loud byte of s, stopping once Plain, or both answers
// when plainOnly is false, are known to be false.
func read(s string, plainOnly bool) Reading {
	r := NewReading(s)
	if !r.plain && (plainOnly || !r.inert) {
		return r
	}
	for i := 0; i < len(s); i++ {
		if quiet[s[i]] {
			continue
		}
		r.Show(i)
		if !r.plain && (plainOnly || !r.inert) {
			break
		}
	}
	return r
}
