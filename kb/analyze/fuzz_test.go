package analyze

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzTerms checks the invariants of both analyses on any input: no panic;
// every term non-empty, valid UTF-8 and without white space; and the
// idempotence documented in the package comment.
func FuzzTerms(f *testing.F) {
	for _, s := range sampleCorpus {
		f.Add(s)
	}
	f.Add("l'ERR_4012 qu'est-ce x--y ..a.b.. e\u0301 ß İ ΐ ǅ ﬃ ½ \xff\xfe")
	f.Fuzz(func(t *testing.T, text string) {
		for _, opt := range []Options{{}, {Raw: true}} {
			terms := Terms(text, opt)
			checkTerms(t, text, terms)
			checkIdempotent(t, text, terms, opt)
			q := QueryTerms(text, opt)
			checkTerms(t, text, q)
			if again := QueryTerms(Join(q), opt); !reflect.DeepEqual(again, q) {
				t.Fatalf("QueryTerms(%q, %+v) = %q, but QueryTerms of that = %q", text, opt, q, again)
			}
		}
	})
}

func checkTerms(t *testing.T, text string, terms []string) {
	t.Helper()
	for _, term := range terms {
		if term == "" || !utf8.ValidString(term) || strings.IndexFunc(term, unicode.IsSpace) >= 0 {
			t.Fatalf("text %q: bad term %q", text, term)
		}
	}
}

// checkIdempotent: raw analysis is idempotent; in the default one every term
// is a fixed point (a compound brings its parts back), so re-analysis keeps
// the set of terms, and the sequence when there is no compound.
func checkIdempotent(t *testing.T, text string, terms []string, opt Options) {
	t.Helper()
	again := Terms(Join(terms), opt)
	if opt.Raw || !slices.ContainsFunc(terms, isCompound) {
		if !reflect.DeepEqual(again, terms) {
			t.Fatalf("Terms(%q, %+v) = %q, but Terms of that = %q", text, opt, terms, again)
		}
		return
	}
	if !reflect.DeepEqual(termSet(again), termSet(terms)) {
		t.Fatalf("Terms(%q) = %q, but Terms of that = %q", text, terms, again)
	}
	for _, term := range terms {
		if got := Terms(term, opt); len(got) == 0 || got[0] != term {
			t.Fatalf("text %q: Terms(%q) = %q, not a fixed point", text, term, got)
		}
	}
}

func isCompound(term string) bool { return strings.ContainsAny(term, "_-.") }

func termSet(terms []string) map[string]bool {
	m := map[string]bool{}
	for _, t := range terms {
		m[t] = true
	}
	return m
}
