package analyze

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// fold returns the default folding of r.
func fold(r rune) string {
	if r < utf8.RuneSelf {
		return string(unicode.ToLower(r))
	}
	if s, ok := foldString(r); ok {
		return s
	}
	return string(unicode.ToLower(r))
}

// TestFoldIdempotent checks, on every code point, that folding a folded
// rune changes nothing: the ground for the analysis being idempotent.
func TestFoldIdempotent(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		once := fold(r)
		var twice []rune
		for _, d := range once {
			twice = append(twice, []rune(fold(d))...)
		}
		if string(twice) != once {
			t.Errorf("U+%04X folds to %q, which folds to %q", r, once, string(twice))
		}
	}
}

func TestFold(t *testing.T) {
	for r, want := range map[rune]string{
		'É': "e", 'ç': "c", 'œ': "oe", 'Æ': "ae", 'ß': "ss", 'ẞ': "ss", 'ø': "o",
		'ł': "l", 'ı': "i", 'İ': "i", 'ς': "σ", 'ſ': "s", '’': "'", 'ʼ': "'",
		'‑': "-", 'ﬁ': "fi", 'Ａ': "a", '²': "2", '™': "™", '\u0301': "",
		'ガ': "ガ", '한': "한", '日': "日",
	} {
		if got := fold(r); got != want {
			t.Errorf("fold(%q) = %q, want %q", r, got, want)
		}
	}
}
