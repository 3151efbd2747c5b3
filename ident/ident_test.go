package ident

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidMatchesTheRule checks the loop against the regular expression it
// replaces, on names chosen to sit on each edge of the rule.
func TestValidMatchesTheRule(t *testing.T) {
	rule := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,7}$`)
	names := []string{
		"", "a", "Z9", "0", ".", "..", ".hidden", "-flag", "_x", "a.b_c-d",
		"abcdefgh", "abcdefghi", "a/b", `a\b`, "a b", "é", "aé", "a\x00", "a\n",
		"s-20261203T042116-0123", "../x", "a..", "a~", "A-1.2_3",
	}
	for _, n := range names {
		if got, want := Valid(n, 8), rule.MatchString(n); got != want {
			t.Errorf("Valid(%q, 8) = %v, the rule says %v", n, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	rule := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,15}$`)
	for _, s := range []string{"a", "..", "a-b", strings.Repeat("x", 17), "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Valid(s, 16), rule.MatchString(s); got != want {
			t.Fatalf("Valid(%q, 16) = %v, the rule says %v", s, got, want)
		}
	})
}
