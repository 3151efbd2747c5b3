package i18n

import (
	"strings"
	"testing"
)

func TestTrFallsBackToEnglishAndTranslates(t *testing.T) {
	const en = "Available Commands:"
	fr, ok := French(en)
	if !ok || fr == en {
		t.Fatalf("no French for %q", en)
	}
	if got := Tr(FR, en); got != fr {
		t.Errorf("Tr(FR) = %q, want %q", got, fr)
	}
	if got := Tr("", en); got != fr {
		t.Errorf("Tr of the zero language = %q, want French %q", got, fr)
	}
	if got := Tr(EN, en); got != en {
		t.Errorf("Tr(EN) = %q, want the English", got)
	}
	if got := Tr(FR, "no such text"); got != "no such text" {
		t.Errorf("an untranslated text = %q, want the English", got)
	}
	if got := Trf(EN, "%d files", 1234); got != "1234 files" {
		t.Errorf("Trf = %q: numbers must print as Go prints them", got)
	}
}

func TestCataloguesAgree(t *testing.T) {
	if c := Conflicts(); len(c) > 0 {
		t.Errorf("texts translated differently by two catalogues: %q", c)
	}
}

// A translation keeps the verbs of its English format, in order: a %d
// that became %s, or a lost %q, would print garbage.
func TestTranslationsKeepTheirVerbs(t *testing.T) {
	for en, fr := range french() {
		if a, b := verbs(en), verbs(fr); a != b {
			t.Errorf("%q → %q: verbs %q, want %q", en, fr, b, a)
		}
	}
}

// verbs lists the formatting verbs of s, e.g. "%s %d".
func verbs(s string) string {
	var out []string
	for i := 0; i < len(s)-1; i++ {
		if s[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(s) && strings.IndexByte("+-# 0123456789.*[]", s[j]) >= 0 {
			j++
		}
		if j < len(s) {
			out = append(out, s[i:j+1])
		}
		i = j
	}
	return strings.Join(out, " ")
}
