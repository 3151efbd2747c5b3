package analyze

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/abadojack/whatlanggo"
)

// TestDetectMatchesWhatlanggo checks the inverted profiles against the
// detector itself on the evaluation sets' texts (English, French, German,
// Spanish, Russian… man pages and documentation), whole and cut at random
// places and lengths, with and without a whitelist: the same language and
// the same confidence. When the detector's two best languages tie, it
// picks one of them at random (it ranges over a map); the confidence is
// then 0 and Detect answers "" either way, so only the confidence is
// compared.
func TestDetectMatchesWhatlanggo(t *testing.T) {
	texts := evaluationTexts(t)
	rng := rand.New(rand.NewPCG(18, 1))
	opts := []whatlanggo.Options{{}, {Whitelist: map[whatlanggo.Lang]bool{whatlanggo.Eng: true, whatlanggo.Fra: true, whatlanggo.Deu: true}}}
	scripts, checked := map[string]int{}, 0
	stride, want := 1, 1000
	if raceEnabled || testing.Short() {
		stride, want = 8, 100 // the detector is slow under -race
	}
	for i := 0; i < len(texts); i += stride {
		text := texts[i]
		for range 2 {
			s := text
			if len(s) > 0 {
				from := rng.IntN(len(s))
				s = s[from:min(len(s), from+rng.IntN(2*DetectPrefix)+1)]
			}
			for _, opt := range opts {
				want := whatlanggo.DetectWithOptions(s, opt)
				got := detectInfo(s, opt)
				if got.Script != want.Script || got.Confidence != want.Confidence || (got.Lang != want.Lang && want.Confidence != 0) {
					t.Fatalf("text %q, whitelist %v: got %v %v, the detector %v %v", s, opt.Whitelist, got.Lang, got.Confidence, want.Lang, want.Confidence)
				}
				if invertedFor(want.Script) != nil {
					checked++
					scripts[want.Lang.Iso6391()]++
				}
			}
		}
	}
	// The comparison must have gone through the inverted profiles, in
	// several languages, not only through the detector's own fallback.
	if checked < want || len(scripts) < 5 {
		t.Fatalf("only %d texts through the inverted profiles, languages %v", checked, scripts)
	}
}

// evaluationTexts are the texts of the evaluation sets' corpora, and a few
// edge cases.
func evaluationTexts(t *testing.T) []string {
	texts := []string{"", " ", "a", "ab", "abc", "...", "1234 5678", "Ünïcödé", "Привет мир", "日本語のテキスト", "שלום עולם",
		"café Привет мир", "naïve résumé\u0301 — «déjà» 42 €", "\x00\x7f\u0301\u200b", "Ελληνικά and English words"}
	files, err := filepath.Glob("../beir/testdata/*/corpus.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no evaluation corpora: %v", err)
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<22)
		for sc.Scan() {
			var doc struct{ Title, Text string }
			if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			texts = append(texts, doc.Title+"\n"+doc.Text)
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return texts
}
