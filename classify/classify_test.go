package classify

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp/syntax"
	"runtime"
	"strings"
	"testing"
)

func mustNew(t testing.TB, r Rules) *Classifier {
	t.Helper()
	c, err := New(r)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

type hit struct {
	text, marking, rule string
}

// checkHits checks that c finds in each hit's text its marking, by its rule.
func checkHits(t *testing.T, c *Classifier, hits []hit) {
	t.Helper()
	for _, tc := range hits {
		m, ok := c.Text(tc.text)
		if !ok || m.Marking != tc.marking || m.Rule != tc.rule {
			t.Errorf("Text(%q) = %q, %q, %v; want %q, %q", tc.text, m.Marking, m.Rule, ok, tc.marking, tc.rule)
		}
	}
}

// checkNone checks that c finds no marking in any of texts.
func checkNone(t *testing.T, c *Classifier, texts []string) {
	t.Helper()
	for _, s := range texts {
		if m, ok := c.Text(s); ok {
			t.Errorf("Text(%q) = %q, %q; want no marking", s, m.Marking, m.Rule)
		}
	}
}

func TestBuiltinMarkings(t *testing.T) {
	c := mustNew(t, Rules{})
	checkHits(t, c, []hit{
		// DIFFUSION RESTREINTE, anywhere in upper case, any spacing.
		{"DIFFUSION RESTREINTE", "DIFFUSION RESTREINTE", "builtin:fr-dr"},
		{"Note — DIFFUSION RESTREINTE — à ne pas transmettre", "DIFFUSION RESTREINTE", "builtin:fr-dr"},
		{"DIFFUSION\u00a0RESTREINTE", "DIFFUSION\u00a0RESTREINTE", "builtin:fr-dr"},
		{"DIFFUSION\u202fRESTREINTE", "DIFFUSION\u202fRESTREINTE", "builtin:fr-dr"},
		{"DIFFUSION  \t RESTREINTE.", "DIFFUSION  \t RESTREINTE", "builtin:fr-dr"},
		{"DIFFUSION\nRESTREINTE", "DIFFUSION\nRESTREINTE", "builtin:fr-dr"},
		{"DIFFUSION \r\n RESTREINTE", "DIFFUSION \r\n RESTREINTE", "builtin:fr-dr"},
		{"(DIFFUSION RESTREINTE)", "DIFFUSION RESTREINTE", "builtin:fr-dr"},
		// SPÉCIAL FRANCE.
		{"SPÉCIAL FRANCE", "SPÉCIAL FRANCE", "builtin:fr-special-france"},
		{"SPECIAL FRANCE", "SPECIAL FRANCE", "builtin:fr-special-france"},
		{"SPE\u0301CIAL FRANCE", "SPE\u0301CIAL FRANCE", "builtin:fr-special-france"},
		{"SPÉCIAL\u00a0FRANCE", "SPÉCIAL\u00a0FRANCE", "builtin:fr-special-france"},
		// CONFIDENTIEL DÉFENSE.
		{"CONFIDENTIEL DÉFENSE", "CONFIDENTIEL DÉFENSE", "builtin:fr-confidentiel-defense"},
		{"CONFIDENTIEL DEFENSE", "CONFIDENTIEL DEFENSE", "builtin:fr-confidentiel-defense"},
		{"CONFIDENTIEL-DÉFENSE", "CONFIDENTIEL-DÉFENSE", "builtin:fr-confidentiel-defense"},
		{"CONFIDENTIEL\nDÉFENSE", "CONFIDENTIEL\nDÉFENSE", "builtin:fr-confidentiel-defense"},
		// SECRET DÉFENSE, anywhere.
		{"SECRET DÉFENSE", "SECRET DÉFENSE", "builtin:fr-secret-defense"},
		{"SECRET DEFENSE", "SECRET DEFENSE", "builtin:fr-secret-defense"},
		{"la levée du SECRET\u00a0DÉFENSE", "SECRET\u00a0DÉFENSE", "builtin:fr-secret-defense"},
		{"SECRET-DÉFENSE", "SECRET-DÉFENSE", "builtin:fr-secret-defense"},
		// TRÈS SECRET DÉFENSE: the longest marking wins.
		{"TRÈS SECRET DÉFENSE", "TRÈS SECRET DÉFENSE", "builtin:fr-tres-secret-defense"},
		{"TRES SECRET DEFENSE", "TRES SECRET DEFENSE", "builtin:fr-tres-secret-defense"},
		{"TRE\u0300S SECRET DE\u0301FENSE", "TRE\u0300S SECRET DE\u0301FENSE", "builtin:fr-tres-secret-defense"},
		// TRÈS SECRET, anywhere.
		{"TRÈS SECRET", "TRÈS SECRET", "builtin:fr-tres-secret"},
		{"TRES SECRET", "TRES SECRET", "builtin:fr-tres-secret"},
		{"un dossier TRÈS SECRET sur la table", "TRÈS SECRET", "builtin:fr-tres-secret"},
		{"TRÈS\u00a0SECRET – SPÉCIAL FRANCE", "TRÈS\u00a0SECRET", "builtin:fr-tres-secret"},
		// SECRET in marking positions.
		{"SECRET", "SECRET", "builtin:fr-secret"},
		{"Rapport\nSECRET\nPage 1", "SECRET", "builtin:fr-secret"},
		{"  SECRET  ", "SECRET", "builtin:fr-secret"},
		{"SECRET – SPÉCIAL FRANCE", "SECRET", "builtin:fr-secret"},
		{"SECRET - SPECIAL FRANCE", "SECRET", "builtin:fr-secret"},
		{"SECRET SPÉCIAL FRANCE", "SECRET", "builtin:fr-secret"},
		{"SECRET // NE PAS DIFFUSER", "SECRET", "builtin:fr-secret"},
		{"Classification : SECRET", "SECRET", "builtin:fr-secret"},
		{"Classification\u202f: SECRET", "SECRET", "builtin:fr-secret"},
		{"CLASSIFICATION: SECRET", "SECRET", "builtin:fr-secret"},
		{"Niveau de classification : SECRET – SPÉCIAL FRANCE", "SECRET", "builtin:fr-secret"},
		{"Marking: SECRET", "SECRET", "builtin:fr-secret"},
		{"classification=SECRET", "SECRET", "builtin:fr-secret"},
		{"| Classification | SECRET |", "SECRET", "builtin:fr-secret"},
		{"Classification : **SECRET**", "SECRET", "builtin:fr-secret"},
		{"[SECRET]", "SECRET", "builtin:fr-secret"},
		{"voir [ SECRET ] ci-dessous", "SECRET", "builtin:fr-secret"},
		{"(SECRET) Le paragraphe suivant…", "SECRET", "builtin:fr-secret"},
		{"[SECRET – SPÉCIAL FRANCE]", "SECRET", "builtin:fr-secret"},
		{"** SECRET **", "SECRET", "builtin:fr-secret"},
		{"# SECRET", "SECRET", "builtin:fr-secret"},
		{"> SECRET", "SECRET", "builtin:fr-secret"},
		{"| SECRET |", "SECRET", "builtin:fr-secret"},
		{"--- SECRET ---", "SECRET", "builtin:fr-secret"},
		{"— SECRET —", "SECRET", "builtin:fr-secret"},
		{"SECRET – 2024/17", "SECRET", "builtin:fr-secret"},
		{"SÉCRET", "SÉCRET", "builtin:fr-secret"},
		{"RÉSTREINT UE", "RÉSTREINT UE", "builtin:eu-restricted"},
		// CONFIDENTIEL in marking positions.
		{"CONFIDENTIEL", "CONFIDENTIEL", "builtin:fr-confidentiel"},
		{"Niveau : CONFIDENTIEL", "CONFIDENTIEL", "builtin:fr-confidentiel"},
		{"(CONFIDENTIEL)", "CONFIDENTIEL", "builtin:fr-confidentiel"},
		{"*CONFIDENTIEL*", "CONFIDENTIEL", "builtin:fr-confidentiel"},
		// DR in marking positions.
		{"DR", "DR", "builtin:fr-dr"},
		{"Compte rendu\nDR\n", "DR", "builtin:fr-dr"},
		{"[DR]", "DR", "builtin:fr-dr"},
		{"(DR)", "DR", "builtin:fr-dr"},
		{"( DR )", "DR", "builtin:fr-dr"},
		{"(DR) Le présent paragraphe décrit…", "DR", "builtin:fr-dr"},
		{"DR –", "DR", "builtin:fr-dr"},
		{"DR – NE PAS DIFFUSER", "DR", "builtin:fr-dr"},
		{"DR\u00a0– DIFFUSION LIMITÉE", "DR", "builtin:fr-dr"},
		{"Classification : DR", "DR", "builtin:fr-dr"},
		{"Niveau : DR", "DR", "builtin:fr-dr"},
		{"Niveau de protection : DR", "DR", "builtin:fr-dr"},
		{"Mention : DR", "DR", "builtin:fr-dr"},
		{"Marquage = DR", "DR", "builtin:fr-dr"},
		{"\r\nDR\r\n", "DR", "builtin:fr-dr"},
		{"fin de page\fDR\fpage suivante", "DR", "builtin:fr-dr"},
		{"\uFEFFSECRET\n", "SECRET", "builtin:fr-secret"},
		{"texte\u2028SECRET", "SECRET", "builtin:fr-secret"},
		{"DIFFUSION\u200bRESTREINTE", "DIFFUSION\u200bRESTREINTE", "builtin:fr-dr"},
		{"| **Classification** | **SECRET** |", "SECRET", "builtin:fr-secret"},
		// EU.
		{"RESTREINT UE", "RESTREINT UE", "builtin:eu-restricted"},
		{"RESTREINT\u00a0UE", "RESTREINT\u00a0UE", "builtin:eu-restricted"},
		{"EU RESTRICTED", "EU RESTRICTED", "builtin:eu-restricted"},
		{"CONFIDENTIEL UE", "CONFIDENTIEL UE", "builtin:eu-confidential"},
		{"EU CONFIDENTIAL", "EU CONFIDENTIAL", "builtin:eu-confidential"},
		{"SECRET UE", "SECRET UE", "builtin:eu-secret"},
		{"EU SECRET", "EU SECRET", "builtin:eu-secret"},
		{"TRÈS SECRET UE", "TRÈS SECRET UE", "builtin:eu-top-secret"},
		{"TRES SECRET UE", "TRES SECRET UE", "builtin:eu-top-secret"},
		{"EU TOP SECRET", "EU TOP SECRET", "builtin:eu-top-secret"},
		{"document marqué EU RESTRICTED en haut", "EU RESTRICTED", "builtin:eu-restricted"},
		// NATO.
		{"NATO RESTRICTED", "NATO RESTRICTED", "builtin:nato-restricted"},
		{"NATO CONFIDENTIAL", "NATO CONFIDENTIAL", "builtin:nato-confidential"},
		{"NATO SECRET", "NATO SECRET", "builtin:nato-secret"},
		{"COSMIC TOP SECRET", "COSMIC TOP SECRET", "builtin:nato-cosmic-top-secret"},
		{"COSMIC\u00a0TOP\u00a0SECRET", "COSMIC\u00a0TOP\u00a0SECRET", "builtin:nato-cosmic-top-secret"},
		// TLP.
		{"TLP:RED", "TLP:RED", "builtin:tlp-red"},
		{"TLP: RED", "TLP: RED", "builtin:tlp-red"},
		{"tlp:red", "tlp:red", "builtin:tlp-red"},
		{"Tlp:Red.", "Tlp:Red", "builtin:tlp-red"},
		{"TLP : RED", "TLP : RED", "builtin:tlp-red"},
		{"TLP:AMBER", "TLP:AMBER", "builtin:tlp-amber"},
		{"TLP:\u00a0AMBER", "TLP:\u00a0AMBER", "builtin:tlp-amber"},
		{"TLP:AMBER+STRICT", "TLP:AMBER+STRICT", "builtin:tlp-amber"},
		{"tlp:amber+strict", "tlp:amber+strict", "builtin:tlp-amber"},
		{"Rapport (TLP:AMBER) du CERT", "TLP:AMBER", "builtin:tlp-amber"},
		{"tags: [tlp:amber, misp]", "tlp:amber", "builtin:tlp-amber"},
		{"TLP RED", "TLP RED", "builtin:tlp-red"},
		{"TLP-RED", "TLP-RED", "builtin:tlp-red"},
		{"tlp-amber+strict", "tlp-amber+strict", "builtin:tlp-amber"},
		{"TLP:\nRED", "TLP:\nRED", "builtin:tlp-red"},
		// Blank lines, long runs and stamps in code spans no longer hide a
		// marking (see the package documentation).
		{"DIFFUSION\n\nRESTREINTE", "DIFFUSION\n\nRESTREINTE", "builtin:fr-dr"},
		{"DIFFUSION\f\nRESTREINTE", "DIFFUSION\f\nRESTREINTE", "builtin:fr-dr"},
		{"DIFFUSION" + strings.Repeat(" ", 100) + "RESTREINTE", "DIFFUSION" + strings.Repeat(" ", 100) + "RESTREINTE", "builtin:fr-dr"},
		{"`SECRET`", "SECRET", "builtin:fr-secret"},
		// NATO in French.
		{"SECRET OTAN", "SECRET OTAN", "builtin:nato-secret"},
		{"NATO/OTAN SECRET", "NATO/OTAN SECRET", "builtin:nato-secret"},
		{"NATO / OTAN CONFIDENTIEL", "NATO / OTAN CONFIDENTIEL", "builtin:nato-confidential"},
		{"OTAN SECRET", "OTAN SECRET", "builtin:nato-secret"},
		{"CONFIDENTIEL OTAN", "CONFIDENTIEL OTAN", "builtin:nato-confidential"},
		{"OTAN/NATO RESTRICTED", "OTAN/NATO RESTRICTED", "builtin:nato-restricted"},
		{"COSMIC TRÈS SECRET", "COSMIC TRÈS SECRET", "builtin:nato-cosmic-top-secret"},
	})
}

func TestNearMisses(t *testing.T) {
	c := mustNew(t, Rules{})
	checkNone(t, c, []string{
		"",
		"diffusion restreinte", "Diffusion Restreinte", "DIFFUSION  RESTREINTES", "XDIFFUSION RESTREINTE",
		"DIFFUSION - - RESTREINTE",
		"spécial france", "Spécial France", "SPÉCIAL FRANCES",
		"confidentiel défense", "Confidentiel Défense",
		"le secret professionnel", "Top secret recipe", "top secret", "Secret défense", "secret",
		"le SECRET professionnel", "SECRET PROFESSIONNEL", "LE SECRET PROFESSIONNEL",
		"SECRET_KEY=abc123", "export SECRET_KEY=abc", "client_secret=xyz", "MY_SECRET", "AWS_SECRET_ACCESS_KEY",
		"SECRET=1", "SECRET=", "SECRET: value", "SECRET:", `"SECRET"`, "$SECRET", "os.Getenv(\"SECRET\")",
		"env[SECRET]", "f(SECRET)", "SECRETS", "SECRETARIAT", "SECRET2", "2SECRET", "SECRETÉ",
		"SECRET – Page 1 sur 10", "SECRET | page 3",
		"Le niveau SECRET est requis", "au niveau SECRET", "(SECRET de Polichinelle)", "[SECRET", "(SECRET – Ceci)",
		"confidentiel", "Confidentiel", "CONFIDENTIELLE", "CONFIDENTIELS", "informations CONFIDENTIEL à traiter",
		"DRH", "DREAL", "la DRH", "Dr Martin", "le Dr. Martin", "DR. MARTIN", "la DR Nord", "La DR a validé",
		"DR – Direction régionale", "DR - Direction régionale Nord", "au niveau DR", "niveau DR",
		"(DR Nord)", "[DRH]", "ADR", "DR_HOST", "DR2", "DR:",
		"TLP:GREEN", "TLP:CLEAR", "TLP:WHITE", "TLP:REDACTED", "TLP:AMBERLIGHT", "XTLP:RED", "tlp red", "TLP::RED",
		"NATO UNCLASSIFIED", "NATO", "EU", "UE", "NATO SECRETARY GENERAL", "EU SECRETARIAT", "RESTREINT UEFA",
		"COSMIC", "TOP", "EU TOP", "TRÈS", "TRÈS SECRÈTEMENT",
		"Le Président de la République a reçu le Dr Martin, DRH de la SNCF.",
	})
}

func TestFirstMarkingWins(t *testing.T) {
	c := mustNew(t, Rules{Markings: []string{"PROJET ALPHA", "DIFFUSION"}})
	checkHits(t, c, []hit{
		{"TLP:AMBER puis DIFFUSION RESTREINTE", "TLP:AMBER", "builtin:tlp-amber"},
		{"DIFFUSION RESTREINTE puis PROJET ALPHA", "DIFFUSION RESTREINTE", "builtin:fr-dr"},
		{"le PROJET ALPHA puis DIFFUSION RESTREINTE", "PROJET ALPHA", "marking:PROJET ALPHA"},
		{"DIFFUSION large", "DIFFUSION", "marking:DIFFUSION"},
		{"(DR)\nSECRET", "DR", "builtin:fr-dr"},
	})
}

func TestUserMarkings(t *testing.T) {
	c := mustNew(t, Rules{Markings: []string{"PROJET ALPHA", `(?i)opération\s+tempête`, `\bCLIENT-[0-9]{4}\b`}})
	checkHits(t, c, []hit{
		{"Le PROJET ALPHA avance.", "PROJET ALPHA", "marking:PROJET ALPHA"},
		{"voir Opération  TEMPÊTE", "Opération  TEMPÊTE", `marking:(?i)opération\s+tempête`},
		{"dossier CLIENT-0042 clos", "CLIENT-0042", `marking:\bCLIENT-[0-9]{4}\b`},
	})
	checkNone(t, c, []string{"le projet alpha", "CLIENT-00420", "opérations"})
	// Built-ins still apply alongside user rules.
	if _, ok := c.Text("TLP:RED"); !ok {
		t.Error("built-in markings must apply with user rules")
	}
}

func TestNilClassifier(t *testing.T) {
	var c *Classifier
	if m, ok := c.Text("SECRET DÉFENSE"); !ok || m.Rule != "builtin:fr-secret-defense" {
		t.Errorf("nil Text = %+v, %v", m, ok)
	}
	if _, ok := c.Path("/p", "confidential/x"); ok {
		t.Error("nil Path matched")
	}
}

func TestNewErrors(t *testing.T) {
	for _, tc := range []struct {
		rules Rules
		want  []string
	}{
		{Rules{Markings: []string{"("}}, []string{`marking "("`, "invalid regular expression", "missing closing )"}},
		{Rules{Markings: []string{"a*"}}, []string{`marking "a*"`, "empty string"}},
		{Rules{Markings: []string{"(?i)x?"}}, []string{"empty string"}},
		{Rules{Markings: []string{""}}, []string{`marking ""`, "empty expression"}},
		{Rules{Paths: []string{"confidential/["}}, []string{`path "confidential/["`, "invalid glob"}},
		{Rules{Paths: []string{"{a,b"}}, []string{`path "{a,b"`, "invalid glob"}},
		{Rules{Paths: []string{"../shared/**"}}, []string{`path "../shared/**"`, "cannot leave the project root"}},
		{Rules{Paths: []string{" "}}, []string{"empty glob"}},
		{Rules{Markings: []string{"(", "ok"}, Paths: []string{"[", "ok/**"}}, []string{`marking "("`, `path "["`}},
	} {
		c, err := New(tc.rules)
		if err == nil || c != nil {
			t.Errorf("New(%+v) = %v, %v; want an error", tc.rules, c, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("New(%+v) error %q; want it to contain %q", tc.rules, err, w)
			}
		}
	}
	_, err := New(Rules{Markings: []string{"a(b"}})
	var se *syntax.Error
	if !errors.As(err, &se) {
		t.Errorf("regexp error not wrapped: %v", err)
	}
	_, err = New(Rules{Paths: []string{"a/["}})
	if !errors.Is(err, errBadGlob) {
		t.Errorf("glob error not wrapped: %v", err)
	}
}

func TestPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX paths")
	}
	c := mustNew(t, Rules{Paths: []string{"confidential/**", "/srv/secret/**", "**/*.dr.md", "notes/private", "./plans/*.pdf"}})
	root := "/proj"
	for _, tc := range []struct {
		p, rule string
	}{
		{"confidential/a.txt", "path:confidential/**"},
		{"confidential/x/y/z.txt", "path:confidential/**"},
		{"confidential", "path:confidential/**"},
		{"/proj/confidential/a.txt", "path:confidential/**"},
		{"public/../confidential/a.txt", "path:confidential/**"},
		{"./confidential/a.txt", "path:confidential/**"},
		{"/srv/secret/file", "path:/srv/secret/**"},
		{"/srv/secret/a/b", "path:/srv/secret/**"},
		{"docs/compte-rendu.dr.md", "path:**/*.dr.md"},
		{"x.dr.md", "path:**/*.dr.md"},
		{"notes/private", "path:notes/private"},
		{"notes/private/a/b.txt", "path:notes/private"}, // inside a classified directory
		{"plans/base.pdf", "path:./plans/*.pdf"},
	} {
		m, ok := c.Path(root, tc.p)
		if !ok || m.Rule != tc.rule || m.Marking != tc.p {
			t.Errorf("Path(%q, %q) = %+v, %v; want rule %q", root, tc.p, m, ok, tc.rule)
		}
	}
	for _, p := range []string{
		"public/a.txt", "confidentiality.txt", "notes/privateer", "notes/private.txt", "docs/a.md",
		// Outside the root: relative globs never match.
		"/other/confidential/a.txt", "../confidential/a.txt", "/confidential/a.txt", "/projet/confidential/a.txt",
		"/srv/secretariat/x", "", "plans/sub/base.pdf",
	} {
		if m, ok := c.Path(root, p); ok {
			t.Errorf("Path(%q, %q) = %+v; want no match", root, p, m)
		}
	}
	// A relative root is taken from the working directory.
	if _, ok := c.Path(".", "confidential/a"); !ok {
		t.Error("relative root")
	}
	wd, _ := filepath.Abs(".")
	if _, ok := c.Path(".", filepath.Join(wd, "confidential", "a")); !ok {
		t.Error("relative root, absolute path")
	}
	if _, ok := mustNew(t, Rules{}).Path(root, "confidential/a"); ok {
		t.Error("no globs, yet a path matched")
	}
}

func pathological(n int) map[string]string {
	return map[string]string{
		"brackets":    strings.Repeat("(DR – ", n/6),
		"banner-ish":  strings.Repeat("SECRET ", n/7),
		"decorations": strings.Repeat("- ", n/2) + "SECRET x",
		"caps":        "SECRET – " + strings.Repeat("A ", n/2),
		"labels":      strings.Repeat("Niveau : DRH ", n/13),
		"tlp":         strings.Repeat("TLP : ", n/6),
		"spaces":      "DIFFUSION" + strings.Repeat(" ", n),
		"seps":        strings.Repeat("TRÈS \u00a0", n/8),
		"newlines":    strings.Repeat("DR\u00a0x\n", n/6),
	}
}

// BenchmarkTextPathological scans inputs built to make a rule rescan, at
// 64 KiB and 512 KiB: linear work keeps the same MB/s at both sizes,
// quadratic work drops eightfold.
func BenchmarkTextPathological(b *testing.B) {
	c, err := New(Rules{})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{64 << 10, 512 << 10} {
		for name, s := range pathological(n) {
			b.Run(fmt.Sprintf("%s/%dKiB", name, n>>10), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					c.Text(s)
				}
			})
		}
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{
		"SECRET", "[DR]", "Classification : SECRET", "TLP:AMBER+STRICT", "TRÈS SECRET DÉFENSE", "DIFFUSION\u00a0RESTREINTE",
		"SPE\u0301CIAL FRANCE", "SECRET – SPÉCIAL FRANCE", "le secret", "SECRET_KEY=", "\xc3", "\xcc", "(", "T", "tl", "TLP:",
	} {
		f.Add(s)
	}
	c := mustNew(f, Rules{Markings: []string{"PROJET ALPHA", "(?i)tempête"}})
	f.Fuzz(func(t *testing.T, s string) {
		m, ok := c.Text(s)
		if ok != (m.Rule != "") || ok && !strings.Contains(s, m.Marking) {
			t.Fatalf("Text(%q) = %+v, %v", s, m, ok)
		}
		if ok && m.Marking == "" {
			t.Fatalf("Text(%q): empty marking", s)
		}
		// Text looks at s only: the same question gets the same answer.
		if m2, ok2 := c.Text(s); m2 != m || ok2 != ok {
			t.Fatalf("Text(%q) not deterministic", s)
		}
		c.Path("/root", s)
	})
}

// prose is ordinary French administrative prose without any marking, with
// the capitals, acronyms and near-misses real text carries.
const prose = `Le Directeur régional a réuni les équipes de la DR Nord le 12 mars. ` +
	`Selon le Dr Martin, la DRH de la SNCF et la DREAL ont validé le calendrier. ` +
	`Le secret professionnel s'applique aux échanges avec l'Agence, et le règlement ` +
	`intérieur rappelle que les informations confidentielles restent au sein de l'équipe. ` +
	`Les délais sont tenus : la Commission européenne (CE) et l'OTAN ont été informées ` +
	`de l'avancement. Top secret recipe, disait-on en riant à la cantine. ` +
	`Pour la configuration, SECRET_KEY et client_secret sont lus depuis l'environnement. ` +
	`Trois réunions sont prévues en avril ; la Préfecture, la Région et l'État y participent. ` +
	`Enfin, le Tribunal administratif a rendu sa décision, et l'Élysée s'en est félicité.` + "\n"

func benchText(b *testing.B, c *Classifier) {
	s := strings.Repeat(prose, 64<<10/len(prose)+1)[:64<<10]
	if m, ok := c.Text(s); ok {
		b.Fatalf("prose has a marking: %+v", m)
	}
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		c.Text(s)
	}
}

// BenchmarkText measures Text on 64 KiB of ordinary French prose without
// markings: the common case, run on every tool result.
func BenchmarkText(b *testing.B) {
	b.Run("builtin", func(b *testing.B) { benchText(b, mustNew(b, Rules{})) })
	b.Run("builtin+rules", func(b *testing.B) {
		benchText(b, mustNew(b, Rules{Markings: []string{"PROJET ALPHA", `CLIENT-[0-9]{4}`}}))
	})
}
