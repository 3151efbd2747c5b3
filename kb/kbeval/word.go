package kbeval

import "unicode"

// isWordRune splits the baseline's queries as FTS5's unicode61 tokenizer
// splits text: letters, digits and marks are word characters.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Co, r)
}
