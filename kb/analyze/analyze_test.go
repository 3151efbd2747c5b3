package analyze

import (
	"fmt"
	"reflect"
	"testing"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", nil},
		{"only punctuation", " ,;:!?()[]{}«»—–…\"'/\\*#@%&+=<>|~^`$ ", nil},
		{"emoji separate", "café☕👍🏽ok🙂", []string{"cafe", "ok"}},
		{"case", "RÉSEAU Réseau réseau", []string{"reseau", "reseau", "reseau"}},
		{"accents", "é è ê ë à â î ï ô û ù ü ÿ ç", nil},
		{"accents in words", "Élève façade naïve coût", []string{"elev", "facad", "naiv", "cout"}},
		{"decomposed accents", "re\u0301seau", []string{"reseau"}},
		{"ligatures", "œuvre Cœur Æsir ﬁchier", []string{"oeuvr", "coeur", "aesir", "fichi"}},
		{"eszett", "Straße STRASSE", []string{"strass", "strass"}},
		{"full width", "ＡＰＩ ５００", []string{"api", "500"}},
		{"symbol not glued", "Moteur™ 20℃", []string{"moteur", "20"}},
		{"superscript digit", "m² x³", []string{"m2", "x3"}},
		{"elision", "l'équipe d'accès j'ai qu'il n'est s'il c'est t'as m'a", []string{"equip", "acce"}},
		{"elision typographic apostrophe", "l’équipe jusqu’au lorsqu’on puisqu’elle", []string{"equip"}},
		{"elision capitals", "L'Équipe QU'IL", []string{"equip"}},
		{"apostrophe that is not an elision", "aujourd'hui don't users' O'Brien", []string{"user", "brien"}},
		{"stop words FR", "le la les de des du un une et ou est sont dans pour par sur avec", nil},
		{"stop words EN", "the a an and or is are was of to in for on with by it this that", nil},
		{"plural FR", "réseaux bureaux journaux tickets clés", []string{"reseau", "bureau", "journal", "ticket", "cle"}},
		{"plural EN", "policies classes processes keys boxes", []string{"polici", "class", "process", "key", "boxe"}},
		{"verb forms EN", "running runs run configured configuring", []string{"run", "run", "run", "configur", "configur"}},
		{"verb forms FR", "configurer configuré configurées configuration", []string{"configur", "configur", "configur", "configur"}},
		{"short words not stemmed", "bus gas yes", []string{"bus", "gas", "yes"}},
		{"digits kept", "2024 7 0042 ٣", []string{"2024", "7", "0042", "٣"}},
		{"lone letters dropped", "x y z B", nil},
		{"words with digits not stemmed", "ipv6 h264s mp3s", []string{"ipv6", "h264s", "mp3s"}},
		{"identifier snake", "ERR_4012", []string{"err_4012", "err", "4012"}},
		{"identifier kebab", "X-Request-ID", []string{"x-request-id", "request", "id"}},
		{"identifier version", "v1.2.3", []string{"v1.2.3", "v1", "2", "3"}},
		{"identifier address", "10.0.0.1", []string{"10.0.0.1", "10", "0", "0", "1"}},
		{"identifier parts stemmed, compound not", "max_retries", []string{"max_retries", "max", "retri"}},
		{"identifier in sentence", "Erreur ERR_4012 (délai dépassé).", []string{"erreur", "err_4012", "err", "4012", "delai", "depass"}},
		{"identifier after elision", "l'ERR_4012", []string{"err_4012", "err", "4012"}},
		{"trailing joiner", "fin. fin- _fin_", []string{"fin", "fin", "fin"}},
		{"doubled joiner separates", "a--b foo..bar x__y", []string{"foo", "bar"}},
		{"sentence without space", "fin.Début", []string{"fin.debut", "fin", "debut"}},
		{"compound of stop words dropped", "est-ce peut-être e.g.", nil},
		{"compound with one content part kept", "c'est-à-dire", []string{"est-a-dire", "dire"}},
		{"compound kept for its one content part", "mise-à-jour", []string{"mise-a-jour", "mise", "jour"}},
		{"unicode hyphen joins", "x‐request", []string{"x-request", "request"}},
		{"CJK run as is", "東京都の天気", []string{"東京都の天気"}},
		{"CJK single character kept", "日 本", []string{"日", "本"}},
		{"kana not folded", "ガイド", []string{"ガイド"}},
		{"Greek folded", "Ἀθῆναι ΣΟΦΙΑ", []string{"αθηναι", "σοφια"}},
		{"Cyrillic", "Привет", []string{"привет"}},
		{"stem that is a stop word dropped", "others", nil},
		{"invalid UTF-8 separates", "ab\xffcd", []string{"ab", "cd"}},
		{"stop words are matched folded", "Très À Où Été", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Terms(tt.text, Options{})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Terms(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestTermsRaw(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"L'Équipe gère ERR_4012 et x-request-id v1.2.3", []string{"l", "équipe", "gère", "err", "4012", "et", "x", "request", "id", "v1", "2", "3"}},
		{"the a to be", []string{"the", "a", "to", "be"}},
		{"Straße ſ µ İ", []string{"straße", "s", "μ", "İ"}},
		{"re\u0301seau", []string{"re\u0301seau"}},
		{"café☕ ok", []string{"café", "ok"}},
		{"m² ＡＢ", []string{"m²", "ａｂ"}},
	}
	for _, tt := range tests {
		if got := Terms(tt.text, Options{Raw: true}); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Terms(%q, Raw) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestQueryTerms(t *testing.T) {
	tests := []struct {
		name, text string
		raw        bool
		want       []string
	}{
		{"duplicates removed in order", "réseau Réseaux le réseau sécurité", false, []string{"reseau", "securit"}},
		{"stop-word heavy question", "Quelle est la procédure pour réinitialiser mon mot de passe ?", false, []string{"procedur", "reinitiali", "mot", "pass"}},
		{"only stop words falls back to folded words", "To be or not to be", false, []string{"to", "be", "or", "not"}},
		{"fallback keeps lone letters and compounds, unstemmed", "Qu'est-ce que c'est ? À", false, []string{"est-ce", "est", "ce", "que", "a"}},
		{"fallback folds", "Où êtes-vous", false, []string{"ou", "etes-vous", "etes", "vous"}},
		{"no words, no terms", "?! 🙂", false, nil},
		{"empty", "", false, nil},
		{"raw keeps stop words", "the THE a", true, []string{"the", "a"}},
		{"identifiers", "ERR_4012 err 4012", false, []string{"err_4012", "err", "4012"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := QueryTerms(tt.text, Options{Raw: tt.raw})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("QueryTerms(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestJoin(t *testing.T) {
	if got := Join([]string{"err_4012", "err", "4012"}); got != "err_4012 err 4012" {
		t.Errorf("Join = %q", got)
	}
	if got := Join(nil); got != "" {
		t.Errorf("Join(nil) = %q", got)
	}
}

// TestInflectionsMeet checks the point of the analysis: the forms a user
// types meet the forms a document uses.
func TestInflectionsMeet(t *testing.T) {
	groups := [][]string{
		{"réseaux", "reseau", "Réseau"},
		{"Politiques", "politique"},
		{"configurations", "configuration", "configurer", "configuré", "configurée", "configure", "configured", "configuring"},
		{"running", "runs", "run"},
		{"policies", "policy"},
		{"sécurité", "securite", "SÉCURITÉ"},
		{"congés", "conge", "Congé"},
		{"données", "donnee"},
		{"activée", "activé", "active", "activation"},
		{"sauvegardes", "sauvegarder", "sauvegardé"},
		{"retries", "retry", "retried", "retrying"},
		{"délais", "délai", "delay", "delays"},
		{"APIs", "API"},
		{"installation", "installer", "installed", "install"},
		{"chiffrement", "chiffrer", "chiffré"},
		{"expiration", "expiré", "expired", "expire"},
		{"mots", "mot"},
		{"incidents", "incident"},
	}
	for _, g := range groups {
		want := Terms(g[0], Options{})
		for _, w := range g[1:] {
			if got := Terms(w, Options{}); !reflect.DeepEqual(got, want) || len(got) != 1 {
				t.Errorf("%q → %q, %q → %q: want one shared term", g[0], want, w, got)
			}
		}
	}
}

// TestUnrelatedWordsStayApart guards against over-stemming.
func TestUnrelatedWordsStayApart(t *testing.T) {
	pairs := [][2]string{
		{"formation", "form"}, {"server", "serve"}, {"order", "ordre"}, {"string", "str"},
		{"taux", "tal"}, {"faux", "fal"}, {"paiement", "pai"}, {"element", "el"},
		{"statement", "state"}, {"need", "ne"}, {"access", "acces"},
	}
	for _, p := range pairs {
		a, b := Terms(p[0], Options{}), Terms(p[1], Options{})
		if reflect.DeepEqual(a, b) {
			t.Errorf("%q and %q both give %q", p[0], p[1], a)
		}
	}
}

// TestConcurrentUse runs analyses in parallel: the analyzer pool and the
// folding table built on first use must be safe for that (go test -race).
func TestConcurrentUse(t *testing.T) {
	want := make([][]string, len(sampleCorpus))
	for i, s := range sampleCorpus {
		want[i] = Terms(s, Options{})
	}
	done := make(chan error)
	for g := range 4 {
		go func() {
			var err error
			for i := range 50 {
				j := (g + i) % len(sampleCorpus)
				if got := Terms(sampleCorpus[j], Options{}); !reflect.DeepEqual(got, want[j]) && err == nil {
					err = fmt.Errorf("text %d: got %q, want %q", j, got, want[j])
				}
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
