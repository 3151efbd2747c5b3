package textfold

import (
	"unicode"
	"unicode/utf8"
)

// isEmphasis reports whether c is a Markdown emphasis or code character.
func isEmphasis(c byte) bool { return c == '*' || c == '_' || c == '~' || c == '`' }

// wordish reports whether r is a letter, a digit or a mark: what emphasis
// sticks to.
func wordish(r rune) bool {
	if r < utf8.RuneSelf {
		c := byte(r)
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r))
}

// isWord reports whether r continues a word for single letters: wordish
// or "_".
func isWord(r rune) bool { return r == '_' || wordish(r) }

func runeBefore(s string, i int) rune {
	if i <= 0 {
		return -1
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

func runeAt(s string, i int) rune {
	if i >= len(s) {
		return -1
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

// emphasisRun returns the end of the run of emphasis characters at i and
// whether it is removed: it touches a letter or digit, and is not "_"
// alone between two of them.
func emphasisRun(s string, i int) (end int, drop bool) {
	end, under := i, true
	for end < len(s) && isEmphasis(s[end]) {
		under = under && s[end] == '_'
		end++
	}
	l, n := wordish(runeBefore(s, i)), wordish(runeAt(s, end))
	return end, (l || n) && !(under && l && n)
}

// dropEmphasis removes emphasis around and inside words.
func dropEmphasis(in string, track bool) (string, spans) {
	first := -1
	for i := 0; i < len(in); {
		if !isEmphasis(in[i]) {
			i++
			continue
		}
		end, drop := emphasisRun(in, i)
		if drop {
			first = i
			break
		}
		i = end
	}
	if first < 0 {
		return in, nil
	}
	o := newOut(len(in), track)
	o.copyOf(in, 0, first)
	for i := first; i < len(in); {
		if !isEmphasis(in[i]) {
			j := i + 1
			for j < len(in) && !isEmphasis(in[j]) {
				j++
			}
			o.copyOf(in, i, j)
			i = j
			continue
		}
		end, drop := emphasisRun(in, i)
		if !drop {
			o.copyOf(in, i, end)
		}
		i = end
	}
	return o.result()
}

// isBlank reports whether r is white space within a line.
func isBlank(r rune) bool { return unicode.IsSpace(r) && !IsLineBreak(r) }

// IsLineBreak reports whether r ends a line: folding makes a "\n" of every
// run of white space holding one, and a matcher of banners reads lines
// the same way. Form feed counts: pdftotext separates pages with it, so a
// page's banner follows one.
func IsLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// lineNumberEnd returns the end of the line numbers at the start of a line
// at i: any number of "blanks, digits, then a tab, ':' or '-'".
func lineNumberEnd(s string, i int) int {
	for {
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		k := j
		for k < len(s) && k-j < 9 && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == j || k >= len(s) || (s[k] != '\t' && s[k] != ':' && s[k] != '-') {
			return i
		}
		i = k + 1
	}
}

// dropLineNumbers removes the line numbers tools put before lines.
func dropLineNumbers(in string, track bool) (string, spans) {
	var o *out
	last := 0 // in[last:] is not copied yet
	for i := 0; i <= len(in); i++ {
		// A line starts at 0 and after every line break.
		if i > 0 && (i == len(in) || !isLineBreakAt(in, i-1)) {
			continue
		}
		if e := lineNumberEnd(in, i); e > i {
			if o == nil {
				o = newOut(len(in), track)
			}
			o.copyOf(in, last, i)
			last = e
			i = e - 1
		}
	}
	if o == nil {
		return in, nil
	}
	o.copyOf(in, last, len(in))
	return o.result()
}

// isLineBreakAt reports whether a line break ends at in[j] (its last
// byte): U+0085, U+2028 and U+2029 end with a continuation byte.
func isLineBreakAt(in string, j int) bool {
	c := in[j]
	if c < utf8.RuneSelf {
		return IsLineBreak(rune(c))
	}
	if utf8.RuneStart(c) {
		return false
	}
	r, n := utf8.DecodeLastRuneInString(in[:j+1])
	return n > 1 && IsLineBreak(r)
}

// joinAndSpace joins spaced-out capitals and folds runs of white space.
func joinAndSpace(in string, track bool) (string, spans) {
	if quietSpacing(in) {
		return in, nil
	}
	o := newOut(len(in), track)
	for i := 0; i < len(in); {
		// Copy up to the next white space.
		j := i
		for j < len(in) {
			c := in[j]
			if c < utf8.RuneSelf {
				if c == ' ' || c >= '\t' && c <= '\r' {
					break
				}
				j++
				continue
			}
			r, n := utf8.DecodeRuneInString(in[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += n
		}
		o.copyOf(in, i, j)
		if j == len(in) {
			break
		}
		// The run of white space at j.
		e, brk, runes := j, false, 0
		for e < len(in) {
			r, n := utf8.DecodeRuneInString(in[e:])
			if !unicode.IsSpace(r) {
				break
			}
			brk = brk || IsLineBreak(r)
			e += n
			runes++
		}
		l, r := singleBefore(in, j), singleAt(in, e)
		switch {
		case brk:
			o.add("\n", j, e)
		case runes == 1 && l && r:
			// joined: nothing
		case runes >= 2 && l && r && !joinedBefore(in, j) && !joinedAfter(in, e):
			o.add("  ", j, e)
		default:
			o.add(" ", j, e)
		}
		i = e
	}
	s, m := o.result()
	if s == in {
		return in, nil
	}
	return s, m
}

// singleAt reports whether a single capital starts at in[i]: an
// upper-case letter with neither a letter, a digit, a mark nor "_" on
// either side.
func singleAt(in string, i int) bool {
	if i >= len(in) {
		return false
	}
	r, n := utf8.DecodeRuneInString(in[i:])
	return unicode.IsUpper(r) && !isWord(runeBefore(in, i)) && !isWord(runeAt(in, i+n))
}

// singleBefore reports whether a single capital ends at in[i].
func singleBefore(in string, i int) bool {
	if i <= 0 {
		return false
	}
	_, n := utf8.DecodeLastRuneInString(in[:i])
	return singleAt(in, i-n)
}

// joinedBefore reports whether the single capital ending at in[i] is
// joined to one before it: one blank, then another single capital.
func joinedBefore(in string, i int) bool {
	_, n := utf8.DecodeLastRuneInString(in[:i])
	k := i - n // the capital's start
	b, bn := utf8.DecodeLastRuneInString(in[:k])
	return k > 0 && isBlank(b) && singleBefore(in, k-bn)
}

// joinedAfter reports whether the single capital starting at in[i] is
// joined to one after it.
func joinedAfter(in string, i int) bool {
	_, n := utf8.DecodeRuneInString(in[i:])
	k := i + n
	b, bn := utf8.DecodeRuneInString(in[k:])
	return k < len(in) && isBlank(b) && singleAt(in, k+bn)
}

// quietSpacing reports whether joinAndSpace has nothing to do: every run
// of white space is one plain space not between two single capitals.
func quietSpacing(in string) bool {
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(in[i:])
			if unicode.IsSpace(r) {
				return false
			}
			i += n - 1
			continue
		}
		if c == ' ' {
			// A run of blanks, or a blank between two capitals (maybe
			// spaced letters), is for the full pass to decide.
			next, prev := runeAt(in, i+1), runeBefore(in, i)
			if unicode.IsSpace(next) || unicode.IsUpper(prev) && unicode.IsUpper(next) {
				return false
			}
			continue
		}
		if c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
			if c == '\n' && (i+1 == len(in) || !isSpaceByte(in[i+1])) && (i == 0 || !isSpaceByte(in[i-1])) {
				continue // a lone "\n" stays as it is
			}
			return false
		}
	}
	return true
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
