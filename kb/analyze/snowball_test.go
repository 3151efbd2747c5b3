package analyze

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func snowballTerms(text string, lang Language) []string {
	return Terms(text, Options{Snowball: true, Language: lang})
}

func TestSnowballStemsByLanguage(t *testing.T) {
	tests := []struct {
		lang Language
		text string
		want []string
	}{
		// English Snowball meets what the light stemmer left apart.
		{English, "connections connected connecting", []string{"connect", "connect", "connect"}},
		{English, "generously generous", []string{"generous", "generous"}},
		// French after folding: with and without accents, one stem.
		{French, "sécurité securite sécurités", []string{"secur", "secur", "secur"}},
		{French, "les réseaux du réseau", []string{"reseau", "reseau"}},
		{Spanish, "canciones canción", []string{"cancion", "cancion"}},
		// A language without a Snowball stemmer gets the light stemmer.
		{"de", "Häuser Haus Laptops", []string{"hauser", "hau", "laptop"}},
		{"", "connections", []string{"connection"}},
	}
	for _, tt := range tests {
		if got := snowballTerms(tt.text, tt.lang); !slices.Equal(got, tt.want) {
			t.Errorf("%s %q: got %q, want %q", tt.lang, tt.text, got, tt.want)
		}
	}
}

// Identifiers stay whole under Snowball as under the default analysis; only
// their parts are stemmed.
func TestSnowballKeepsIdentifiers(t *testing.T) {
	got := snowballTerms("ERR_4012 max_retries http.client.timeout", English)
	want := []string{"err_4012", "err", "4012", "max_retries", "max", "retri", "http.client.timeout", "http", "client", "timeout"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The default analysis, which indexes of "moteur" bases hold, is untouched:
// the same text gives the light stemmer's terms without Snowball and other
// terms with it.
func TestSnowballLeavesDefaultAlone(t *testing.T) {
	const text = "configurations generously"
	def := Terms(text, Options{})
	if want := []string{"configur", "generousli"}; !slices.Equal(def, want) {
		t.Fatalf("default analysis: got %q, want %q", def, want)
	}
	if sb := snowballTerms(text, English); slices.Equal(sb, def) {
		t.Fatalf("Snowball gave the default terms %q: the option had no effect", sb)
	}
}

// Every Snowball term is a fixed point of the analysis, in every language
// with a stemmer, so that stored terms analysed again give themselves.
func TestSnowballIdempotent(t *testing.T) {
	for lang := range snowballStemmers {
		terms := snowballTerms(benchText+" "+multilingualText, lang)
		if len(terms) == 0 {
			t.Fatalf("%s: no terms", lang)
		}
		for _, term := range terms {
			if strings.ContainsAny(term, "_-.") {
				continue // compounds re-split into their parts
			}
			if again := snowballTerms(term, lang); !slices.Equal(again, []string{term}) {
				t.Errorf("%s: %q analysed again gives %q", lang, term, again)
			}
		}
	}
}

const multilingualText = `Возможности настройки сетевых подключений. Las configuraciones de red se guardan en el servidor.
Inställningar för nätverksanslutningar sparas. Nettverksinnstillingene lagres på serveren. A hálózati beállítások mentése.`

func TestDetect(t *testing.T) {
	tests := []struct {
		text string
		want Language
	}{
		{"La politique de sécurité réseau impose l'authentification à deux facteurs pour tout accès au VPN.", French},
		{"The deployment pipeline retries failed jobs before paging the on-call engineer.", English},
		{"Die Konfiguration des Netzwerks wird beim Start des Dienstes aus der Datei gelesen.", "de"},
		{"Возможности настройки сетевых подключений сохраняются на сервере.", Russian},
		{"ERR_4012", ""}, // too short to tell
		{"", ""},
	}
	for _, tt := range tests {
		if got := Detect(tt.text); got != tt.want {
			t.Errorf("Detect(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// A long text is detected from its beginning, cut on a rune boundary.
func TestDetectLongText(t *testing.T) {
	text := strings.Repeat("é", DetectPrefix) + strings.Repeat("Les réseaux de l'entreprise sont protégés. ", 200)
	if got := Detect(text); got != "" {
		t.Errorf("Detect of accents then French = %q, want \"\" (only the first KiB is read)", got)
	}
	if got := Detect(strings.Repeat("Les réseaux de l'entreprise sont protégés. ", 200)); got != French {
		t.Errorf("Detect of long French = %q", got)
	}
}

func TestQueryTermsIn(t *testing.T) {
	// An English query on a base of French and English documents: its
	// English stems and its French stems, once each.
	both := map[Language]int{French: 60, English: 40}
	got := QueryTermsIn("network configurations", both)
	for _, want := range []string{"network", "configur"} {
		if !slices.Contains(got, want) {
			t.Errorf("got %q, want it to hold %q", got, want)
		}
	}
	if len(got) != len(dedupe(slices.Clone(got))) {
		t.Errorf("duplicates in %q", got)
	}
	// Languages without a stemmer add the light stems, once for all.
	got = QueryTermsIn("connections", map[Language]int{"de": 5, "it": 5, "": 5})
	if !slices.Equal(got, []string{"connection"}) {
		t.Errorf("no stemmer: got %q, want [connection]", got)
	}
	got = QueryTermsIn("connections of the servers", map[Language]int{English: 50, "de": 50})
	if !slices.Contains(got, "connect") || !slices.Contains(got, "connection") {
		t.Errorf("English and German: got %q, want connect and connection", got)
	}
	// A language of few documents analyses only the queries written in it:
	// an English query on a base with one Spanish document in a hundred
	// gets no Spanish stems, a Spanish one does.
	few := map[Language]int{English: 99, Spanish: 1}
	if got, want := QueryTermsIn("canciones populares", few), QueryTerms("canciones populares", Options{Snowball: true, Language: Spanish}); !slices.Equal(got[:len(want)], want) {
		t.Errorf("Spanish query: got %q, want it to start with the Spanish analysis %q", got, want)
	}
	en := QueryTerms("the generously configured servers", Options{Snowball: true, Language: English})
	if got := QueryTermsIn("the generously configured servers", few); !slices.Equal(got, en) {
		t.Errorf("English query: got %q, want the English analysis alone %q", got, en)
	}
	// Only stop words: the fallback of QueryTerms, not an empty query.
	if got := QueryTermsIn("to be or not to be", map[Language]int{English: 1}); len(got) == 0 {
		t.Error("a query of stop words became empty")
	}
	// No documents: the light-stemmed analysis.
	if got := QueryTermsIn("connections", nil); !slices.Equal(got, []string{"connection"}) {
		t.Errorf("no documents: got %q", got)
	}
}

func TestDetectAmong(t *testing.T) {
	tests := []struct {
		text  string
		langs []Language
		want  Language
	}{
		{"mot de passe oublié", []Language{French, English}, French},
		{"the quick brown fox jumps over the lazy dog", []Language{French, English}, English},
		{"forgot password", []Language{English}, English},
		{"пароль", []Language{English, French}, ""}, // no candidate writes Cyrillic
		{"abc", []Language{English}, ""},            // too short
		{"anything", nil, ""},
	}
	for _, tt := range tests {
		if got := DetectAmong(tt.text, tt.langs); got != tt.want {
			t.Errorf("DetectAmong(%q, %v) = %q, want %q", tt.text, tt.langs, got, tt.want)
		}
	}
}

// Analyses in several languages at once share the stem caches: each gets
// the terms it gets alone (run with -race to check the locking).
func TestSnowballConcurrentUse(t *testing.T) {
	text := benchText + " " + multilingualText
	want := map[Language][]string{}
	for lang := range snowballStemmers {
		want[lang] = snowballTerms(text, lang)
	}
	clear(stemCaches[French].m) // so that the goroutines fill it
	done := make(chan error)
	for i := range 8 {
		lang := []Language{French, English, Russian, Spanish}[i%4]
		go func() {
			if got := snowballTerms(text, lang); !slices.Equal(got, want[lang]) {
				done <- fmt.Errorf("%s: terms differ under concurrency", lang)
				return
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
