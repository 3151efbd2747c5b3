package kb

import (
	"context"
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/analyze"
)

// badInputDocs are a few real-looking passages: English, French, and
// German and Polish, two languages the Snowball analysis has no stemmer for.
var badInputDocs = []Text{
	{Key: "hamlet", Title: "Hamlet, act III", Body: "To be, or not to be, that is the question: whether it is nobler in the mind to suffer " +
		"the slings and arrows of outrageous fortune, or to take arms against a sea of troubles."},
	{Key: "backup", Title: "Backups", Body: "The backup job copies every database to the archive server each night; " +
		"a failed copy is retried twice before the operator is paged."},
	{Key: "imprimante", Title: "Imprimantes", Body: "Les imprimantes du deuxième étage se configurent depuis le portail; " +
		"en cas de bourrage, ouvrez le capot arrière et retirez la feuille."},
	{Key: "drucker", Title: "Druckerwartung", Body: "Die Drucker im zweiten Stock werden jeden Montag gewartet. Bei einem " +
		"Papierstau öffnen Sie die hintere Klappe und entfernen das Blatt vorsichtig, danach starten Sie den Drucker neu."},
	{Key: "drukarka", Title: "Konserwacja drukarek", Body: "Drukarki na drugim piętrze są serwisowane w każdy poniedziałek. " +
		"W przypadku zacięcia papieru otwórz tylną klapę i ostrożnie wyjmij kartkę, a następnie uruchom ponownie drukarkę."},
}

func badInputStore(t *testing.T) *Store {
	t.Helper()
	s := openTest(t, Config{})
	mustCreate(t, s, "docs", CreateOptions{}) // the default analyzer: snowball
	addTexts(t, s, "docs", badInputDocs)
	return s
}

// A query of 10,000 terms answers (the passage holding its one real
// word comes first) and says that it was scored without pruning; a short
// query, searched the same way, says nothing.
func TestSearchOfTenThousandTermsWarns(t *testing.T) {
	s := badInputStore(t)
	// 10,000 distinct words, 300 of them in the index, so that top-k
	// pruning is out of reach, and the one word of the backup passage.
	var words []string
	vocab := strings.Fields(strings.ToLower(strings.Join([]string{badInputDocs[0].Body, badInputDocs[2].Body,
		badInputDocs[3].Body, badInputDocs[4].Body}, " ")))
	for i := range 10_000 {
		if i%33 == 0 && len(vocab) > 0 {
			words = append(words, strings.Trim(vocab[0], ",.:;"))
			vocab = vocab[1:]
			continue
		}
		words = append(words, "zq"+strings.Repeat("x", i%7)+itoa(i))
	}
	words = append(words, "archive", "archive", "archive")
	res := search(t, s, Query{Text: strings.Join(words, " "), Mode: ModeKeyword})
	if len(res.Hits) == 0 {
		t.Fatal("a query of 10,000 terms found nothing")
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "pruning") || !strings.HasPrefix(res.Warnings[0], "docs: ") {
		t.Fatalf("warnings %q, want one saying the query was scored without pruning", res.Warnings)
	}
	short := search(t, s, Query{Text: "archive server backup", Mode: ModeKeyword})
	if len(short.Hits) == 0 || short.Hits[0].Title != "Backups" || len(short.Warnings) != 0 {
		t.Fatalf("short query: hits %s, warnings %q; want Backups first and no warning", titles(short.Hits), short.Warnings)
	}
}

func itoa(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('a' + i%10)}, b...) // letters: digits would be one token with the prefix anyway
		if i /= 10; i == 0 {
			return string(b)
		}
	}
}

// A query made only of stop words has no term the index holds (the
// analysis of kb/analyze leaves them out): the search scans the passages
// for those holding all its words, a phrase first, finds the one that
// holds them, and says so in a warning; the same words with one content word go through the
// index, without a warning.
func TestSearchOfStopWordsOnly(t *testing.T) {
	s := badInputStore(t)
	for q, want := range map[string]string{
		"to be or not to be": "Hamlet, act III",
		"le du en":           "Imprimantes",
	} {
		if terms := analyze.QueryTerms(q, analyze.Options{Snowball: true}); len(terms) == 0 {
			t.Fatalf("%q: no terms", q)
		}
		res := search(t, s, Query{Text: q, Mode: ModeKeyword})
		if len(res.Hits) == 0 || res.Hits[0].Title != want || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "scanned for those holding all its words") {
			t.Errorf("%q: hits %s, warnings %q; want %s first and a warning about the scan", q, titles(res.Hits), res.Warnings, want)
		}
		content := map[string]string{"Hamlet, act III": " question", "Imprimantes": " imprimantes"}[want]
		res = search(t, s, Query{Text: q + content, Mode: ModeKeyword})
		if len(res.Hits) == 0 || res.Hits[0].Title != want || len(res.Warnings) != 0 {
			t.Errorf("%q: hits %s, warnings %q; want %s first and no warning", q+content, titles(res.Hits), res.Warnings, want)
		}
	}
}

// Documents in languages without a Snowball stemmer (German, Polish) are
// recorded in their language, analysed by the light stemmer, and found by
// queries in their language, the exact words and a plural.
func TestSearchLanguageWithoutStemmer(t *testing.T) {
	s := badInputStore(t)
	ctx := context.Background()
	b, err := s.Base(ctx, "docs")
	if err != nil {
		t.Fatal(err)
	}
	ix, err := s.keywordIndex(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []analyze.Language{"de", "pl"} {
		if analyze.HasStemmer(lang) {
			t.Fatalf("%s has a stemmer now: choose another language for this test", lang)
		}
		if ix.langs[lang] != 1 {
			t.Fatalf("languages %v: want one document in %s", ix.langs, lang)
		}
	}
	for q, want := range map[string]string{
		"Papierstau hintere Klappe": "Druckerwartung",
		"Drucker Montag":            "Druckerwartung",
		"zacięcia papieru drukarki": "Konserwacja drukarek",
		"tylną klapę poniedziałek":  "Konserwacja drukarek",
	} {
		res := search(t, s, Query{Text: q, Mode: ModeKeyword})
		if len(res.Hits) == 0 || res.Hits[0].Title != want {
			t.Errorf("%q: hits %s, want %s first", q, titles(res.Hits), want)
		}
	}
}
