package analyze

import "testing"

func TestStem(t *testing.T) {
	tests := []struct{ word, want string }{
		// plurals
		{"policies", "polici"}, {"sorties", "sorti"}, {"copied", "copi"},
		{"reseaux", "reseau"}, {"eaux", "eaux"}, {"jeux", "jeu"},
		{"journaux", "journal"}, {"taux", "taux"}, {"faux", "faux"},
		{"tickets", "ticket"}, {"apis", "api"}, {"status", "statu"},
		{"process", "process"}, {"access", "access"}, {"classes", "class"},
		// English verb forms
		{"agreed", "agre"}, {"need", "need"}, {"running", "run"},
		{"stopped", "stop"}, {"installing", "install"}, {"missing", "miss"},
		{"adding", "add"}, {"string", "string"}, {"thing", "thing"},
		{"configured", "configur"}, {"used", "used"},
		// French derivation, kept to long stems
		{"chiffrement", "chiffr"}, {"paiement", "paiement"}, {"element", "element"},
		{"configuration", "configur"}, {"formation", "formation"}, {"relation", "relation"},
		{"configurer", "configur"}, {"server", "server"}, {"order", "order"},
		// final e and y
		{"configure", "configur"}, {"page", "page"}, {"securisee", "securi"},
		{"policy", "polici"}, {"deploy", "deploi"}, {"key", "key"},
		// already stems: a fixed point
		{"configur", "configur"}, {"polici", "polici"}, {"run", "run"},
	}
	for _, tt := range tests {
		w := []byte(tt.word)
		if !stemmable(w) {
			if tt.word != tt.want {
				t.Errorf("%q is not stemmable, want %q", tt.word, tt.want)
			}
			continue
		}
		if got := string(stem(w)); got != tt.want {
			t.Errorf("stem(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestStemmable(t *testing.T) {
	for w, want := range map[string]bool{"abcd": true, "abc": false, "ab1d": false, "abcé": false, "ABCD": false} {
		if got := stemmable([]byte(w)); got != want {
			t.Errorf("stemmable(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestStemIdempotent checks that stems are fixed points on every ASCII
// word of up to four letters over a small alphabet of the letters the rules
// look at, and on the suffixes glued to a few stems.
func TestStemIdempotent(t *testing.T) {
	const alphabet = "abdeginrstuxy"
	var words []string
	var grow func(prefix string)
	grow = func(prefix string) {
		if len(prefix) >= 4 {
			words = append(words, prefix)
		}
		if len(prefix) == 6 {
			return
		}
		for i := range len(alphabet) {
			grow(prefix + alphabet[i:i+1])
		}
	}
	grow("")
	for _, w := range words {
		once := string(stem([]byte(w)))
		if twice := string(stem([]byte(once))); twice != once {
			t.Fatalf("stem(%q) = %q but stem(%q) = %q", w, once, once, twice)
		}
	}
}
