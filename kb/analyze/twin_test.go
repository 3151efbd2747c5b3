package analyze

import (
	"slices"
	"testing"
)

// TestTermsAndQueryTermsIsBothAnalyses checks the one-pass analysis against
// the two it stands for, on the evaluation sets' texts (several languages,
// compounds, elisions, identifiers) in every analysis, and on texts whose
// words are all stop words (QueryTerms' fallback).
func TestTermsAndQueryTermsIsBothAnalyses(t *testing.T) {
	texts := append(evaluationTexts(t), "to be or not to be", "Le la les", "e.g. est-ce", "a b c", "")
	opts := []Options{{}, {Raw: true}, {Snowball: true}}
	for lang := range snowballStemmers {
		opts = append(opts, Options{Snowball: true, Language: lang})
	}
	stride := 1
	if raceEnabled || testing.Short() {
		stride = 8
	}
	fallback := 0
	for _, opt := range opts {
		for i := 0; i < len(texts); i += stride {
			text := texts[i]
			terms, query := TermsAndQueryTerms(text, opt)
			if want := Terms(text, opt); !slices.Equal(terms, want) {
				t.Fatalf("%+v, %q: terms %q, Terms %q", opt, text, terms, want)
			}
			if want := QueryTerms(text, Options{}); !slices.Equal(query, want) {
				t.Fatalf("%+v, %q: query terms %q, QueryTerms %q", opt, text, query, want)
			}
			if len(terms) == 0 && len(query) > 0 && !opt.Raw {
				fallback++
			}
		}
	}
	if fallback == 0 {
		t.Fatal("no text went through QueryTerms' fallback")
	}
}
