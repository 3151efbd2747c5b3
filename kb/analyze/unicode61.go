package analyze

import "sort"

// This file reproduces the character classes and case folding of SQLite's
// unicode61 tokenizer with its defaults (categories "L* N* Co", no
// tokenchars or separators) and remove_diacritics 0. SQLite's tables follow
// an older Unicode than Go's (code points unassigned there are token
// characters, for one), so the tables come from SQLite itself:
// unicode61_tables.go is written by `go test -run TestUnicode61Tables
// -update`, and that test checks every code point against SQLite.

// runeRange is the closed range lo..hi.
type runeRange struct{ lo, hi rune }

// foldRun maps lo, lo+stride, ... up to hi to the rune delta away.
type foldRun struct {
	lo, hi rune
	stride rune // 1, or 2 where capitals and small letters alternate
	delta  rune
}

// isTokenRune reports whether unicode61 starts a token with r (a letter, a
// number, a private-use rune, or a rune unassigned in SQLite's Unicode
// version). It continues a token with those and with isDiacritic runes.
func isTokenRune(r rune) bool {
	if r < 0x80 {
		return asciiClass[r]&(classLetter|classDigit) != 0
	}
	i := sort.Search(len(unicode61Separators), func(i int) bool { return unicode61Separators[i].hi >= r })
	return i == len(unicode61Separators) || r < unicode61Separators[i].lo
}

// isDiacritic reports whether unicode61 keeps r inside a token that has
// already started: the combining marks of U+0300..U+0331 it knows as
// diacritics (sqlite3Fts5UnicodeIsdiacritic, the same masks).
func isDiacritic(r rune) bool {
	const mask0, mask1 = 0x08029FDF, 0x000361F8
	switch {
	case r < 0x300 || r > 0x331:
		return false
	case r < 0x320:
		return mask0&(1<<(r-0x300)) != 0
	default:
		return mask1&(1<<(r-0x320)) != 0
	}
}

// rawLower folds r as unicode61 does: simple case folding, in SQLite's
// Unicode version (so "ſ" → "s" but "İ" stays).
func rawLower(r rune) rune {
	if r < 0x80 {
		return rune(asciiLower(byte(r)))
	}
	i := sort.Search(len(unicode61Folds), func(i int) bool { return unicode61Folds[i].hi >= r })
	if i == len(unicode61Folds) {
		return r
	}
	f := unicode61Folds[i]
	if r < f.lo || (r-f.lo)%f.stride != 0 {
		return r
	}
	return r + f.delta
}
