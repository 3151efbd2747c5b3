package textfold

import (
	"testing"
	"unicode/utf8"
)

// readPairs shows a Reading of s what Look asks for, pair by pair, and
// then its last byte, as package classify's scan does.
func readPairs(s string) Reading {
	r := NewReading(s)
	for i := 0; i+1 < len(s); i++ {
		this, next := Look(s[i], s[i+1])
		if this {
			r.Show(i)
		}
		if next {
			r.Show(i + 1)
		}
	}
	if last := len(s) - 1; last >= 0 && Loud(s[last]) && utf8.RuneStart(s[last]) {
		r.Show(last)
	}
	return r
}

func readingSeeds() []string {
	return append(foldSeeds(),
		"ý", "’\xa9", "\xa9a", "a\xa9", "\xc3\xa9\xa9", "A\xa9", "\xc3", "\xc3a", "É R", "A\u00a0B C",
		"x\n \u00a012\tX", "x\u2028 12:X", "x\r\n1\t2\tA", "x\u0085 3-A", "\u00a09:A", "a\n\u00a0\u00a07\tB",
		"a\n\t12\tb", "TLP:\n  12:RED", "tlp:\n12:red", "&x", `\\n`, `a\\nb`, "**tlp**:red", "*p*", "1*\tDR",
		`\/ SECRET`, `tlp:r\u0065d`, "x\n12:y", "…A", "A …", "Le Directeur régional", "func (s *Server) {\n\tx := &s.cfg\n}",
	)
}

// FuzzReading: a Reading shown what Look asks for, pair by pair, answers
// as Plain and Inert do, which are shown every Loud byte.
func FuzzReading(f *testing.F) {
	for _, s := range readingSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if r := readPairs(s); r.Plain() != Plain(s) || r.Inert() != Inert(s) {
			t.Fatalf("%q: pair by pair plain %v inert %v; byte by byte plain %v inert %v", s, r.Plain(), r.Inert(), Plain(s), Inert(s))
		}
	})
}
