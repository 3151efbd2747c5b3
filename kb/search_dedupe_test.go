package kb

import (
	"strings"
	"testing"
)

// Passages that differ only by their spacing (ASCII or Unicode white
// space) are copies: same key and sameFields; any other difference is not.
func TestFieldsKeyAndSameFields(t *testing.T) {
	base := "Le serveur  répond\tsur le port 8080.\n\nÉtape suivante : redémarrer."
	copies := []string{
		"Le serveur répond sur le port 8080. Étape suivante : redémarrer.",
		"  Le\u00a0serveur répond sur\u3000le port 8080.\r\nÉtape suivante : redémarrer.\n",
	}
	for _, c := range copies {
		if fieldsKey(c) != fieldsKey(base) || !sameFields(c, base) || !sameFields(base, c) {
			t.Errorf("%q and %q: key equal %v, same %v; want a copy", base, c, fieldsKey(c) == fieldsKey(base), sameFields(c, base))
		}
		if strings.Join(strings.Fields(c), " ") != strings.Join(strings.Fields(base), " ") {
			t.Fatalf("bad fixture %q", c)
		}
	}
	for _, d := range []string{
		"Le serveur répond sur le port 8081. Étape suivante : redémarrer.",
		"Le serveur répond sur le port 8080. Étape suivante : redémarrer",
		"Le serveur répond sur le port 8080. Étape suivante : redémarrer. Puis",
		"Leserveur répond sur le port 8080. Étape suivante : redémarrer.",
	} {
		if sameFields(d, base) || sameFields(base, d) {
			t.Errorf("%q taken for a copy of %q", d, base)
		}
	}
}
