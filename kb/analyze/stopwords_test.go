package analyze

import (
	"strings"
	"testing"
)

// TestStopWordLists checks that the lists are folded, unique, indexed, and
// of the size the package comment gives.
func TestStopWordLists(t *testing.T) {
	for name, list := range map[string]string{"English": englishStopWords, "French": frenchStopWords} {
		words := strings.Fields(list)
		seen := map[string]bool{}
		for _, w := range words {
			if seen[w] {
				t.Errorf("%s: %q listed twice", name, w)
			}
			seen[w] = true
			if got := Terms(w, Options{Raw: true}); len(got) != 1 || got[0] != w || len(w) > maxStopLen {
				t.Errorf("%s: %q is not a folded single word of at most %d bytes", name, w, maxStopLen)
			}
			if !isStopWord([]byte(w)) {
				t.Errorf("%s: %q not found", name, w)
			}
		}
		t.Logf("%s: %d stop words", name, len(words))
	}
	for _, w := range []string{"reseau", "comment", "car", "ab", "", "zzzzzzzzzzzzzz", "é"} {
		want := w == "comment"
		if got := isStopWord([]byte(w)); got != want {
			t.Errorf("isStopWord(%q) = %v", w, got)
		}
	}
}
