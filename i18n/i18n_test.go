package i18n

import "testing"

func TestEveryKeyInEveryLanguage(t *testing.T) {
	for k := EmptyFallback; k <= RewindNotUndone; k++ {
		for _, l := range []Lang{FR, EN} {
			if T(l, k) == "" {
				t.Errorf("key %d has no %s text", k, l)
			}
		}
		if T(FR, k) == T(EN, k) && k != UnknownTool {
			t.Errorf("key %d is not translated", k)
		}
	}
	if SystemPrompt("") != SystemPrompt(FR) || SystemPrompt(EN) == SystemPrompt(FR) {
		t.Error("the default system prompt must be French")
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]Lang{"en": EN, " EN ": EN, "english": EN, "fr": FR, "": FR, "de": FR} {
		if got := Parse(in); got != want {
			t.Errorf("Parse(%q) = %q, want %q", in, got, want)
		}
	}
}
