package classify

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/moteur/moteur/textfold"
)

// Evasions are markings spelled so that a reader still sees them: each must
// be found like the plain marking. Exported to the other packages' tests
// through testdata would tie them to this file; they copy the few they
// need.
var evasions = []struct{ text, rule string }{
	{"DIFFUSION\nRESTREINTE", "builtin:fr-dr"},
	{"DIFFUSION\n    RESTREINTE", "builtin:fr-dr"},
	{"NATO\nSECRET", "builtin:nato-secret"},
	{"Compte rendu\nDR\nSuite du texte", "builtin:fr-dr"},
	{"DR\nCompte rendu de la réunion", "builtin:fr-dr"},
	// Invisible characters inside a word.
	{"DIFF\u200bUSION RESTREINTE", "builtin:fr-dr"},
	{"SEC\u00adRET DÉFENSE", "builtin:fr-secret-defense"},
	{"DIFFUSION RES\u2060TREIN\u200dTE", "builtin:fr-dr"},
	{"\ufeffSE\u200cCRET\n", "builtin:fr-secret"},
	// Look-alikes: Cyrillic Е and С, Greek Ν Α Τ Ο, mixed.
	{"DIFFUSION RЕSTRЕINTЕ", "builtin:fr-dr"},
	{"SЕСRЕT DÉFENSE", "builtin:fr-secret-defense"},
	{"ΝΑΤΟ SECRET", "builtin:nato-secret"},
	{"ΤLΡ:RΕD", "builtin:tlp-red"},
	// Fullwidth and mathematical letters.
	{"ＤＩＦＦＵＳＩＯＮ ＲＥＳＴＲＥＩＮＴＥ", "builtin:fr-dr"},
	{"𝐒𝐄𝐂𝐑𝐄𝐓 𝐃𝐄𝐅𝐄𝐍𝐒𝐄", "builtin:fr-secret-defense"},
	// Spaced letters.
	{"S E C R E T", "builtin:fr-secret"},
	{"D I F F U S I O N   R E S T R E I N T E", "builtin:fr-dr"},
	{"Rapport\nD R\n", "builtin:fr-dr"},
	// HTML entities.
	{"DIFFUSION&nbsp;RESTREINTE", "builtin:fr-dr"},
	{"DIFFUSION&#160;RESTREINTE", "builtin:fr-dr"},
	{"DIFFUSION&#xa0;RESTREINTE", "builtin:fr-dr"},
	{"SP&Eacute;CIAL FRANCE", "builtin:fr-special-france"},
	{"&#83;ECRET D&#xC9;FENSE", "builtin:fr-secret-defense"},
	// Markdown emphasis.
	{"**DIFFUSION** **RESTREINTE**", "builtin:fr-dr"},
	{"__TRÈS__ _SECRET_", "builtin:fr-tres-secret"},
	{"~~SECRET~~ `DÉFENSE`", "builtin:fr-secret-defense"},
	{"DIFF**USION** RESTREINTE", "builtin:fr-dr"},
	// TLP.
	{"TLP RED", "builtin:tlp-red"},
	{"TLP-RED", "builtin:tlp-red"},
	{"TLP:\nRED", "builtin:tlp-red"},
	{"TLP AMBER+STRICT", "builtin:tlp-amber"},
	// NATO in French.
	{"SECRET OTAN", "builtin:nato-secret"},
	{"NATO/OTAN SECRET", "builtin:nato-secret"},
	// Escapes (JSON text, source code).
	{`"DIFFUSION\nRESTREINTE"`, "builtin:fr-dr"},
	{`"DIFFUSION \u0052ESTREINTE"`, "builtin:fr-dr"},
	{`"\u0053\u0045\u0043\u0052\u0045\u0054 D\u00c9FENSE"`, "builtin:fr-secret-defense"},
	// Line numbers, as read_file, cat -n and grep -n show lines.
	{"     1\tDIFFUSION\n     2\tRESTREINTE\n", "builtin:fr-dr"},
	{"     1\tDR\n     2\tCompte rendu\n", "builtin:fr-dr"},
	{"     7\tNATO\n     8\tSECRET\n", "builtin:nato-secret"},
	{"     1\tDIFFUSION\n     2\t    RESTREINTE\n", "builtin:fr-dr"},
	{"12:TLP:\n13-RED", "builtin:tlp-red"},
	// Terminal colours.
	{"\x1b[1;31mSECRET\x1b[0m DÉFENSE", "builtin:fr-secret-defense"},
}

func TestEvasionsAreFound(t *testing.T) {
	c := mustNew(t, Rules{})
	for _, tc := range evasions {
		m, ok := c.Text(tc.text)
		if !ok || m.Rule != tc.rule {
			t.Errorf("Text(%q) = %+v, %v; want %s", tc.text, m, ok, tc.rule)
			continue
		}
		if !strings.Contains(tc.text, m.Marking) {
			t.Errorf("Text(%q): marking %q is not part of the text", tc.text, m.Marking)
		}
	}
}

func TestEvasionMarkingIsTheOriginalText(t *testing.T) {
	c := mustNew(t, Rules{})
	checkHits(t, c, []hit{
		{"voir\nS E C R E T\nici", "S E C R E T", "builtin:fr-secret"},
		{"x DIFFUSION&nbsp;RESTREINTE y", "DIFFUSION&nbsp;RESTREINTE", "builtin:fr-dr"},
		{"a **DIFFUSION** **RESTREINTE** b", "DIFFUSION** **RESTREINTE", "builtin:fr-dr"},
		{"a ＳＥＣＲＥＴ ＤＥＦＥＮＳＥ b", "ＳＥＣＲＥＴ ＤＥＦＥＮＳＥ", "builtin:fr-secret-defense"},
	})
}

// Negative controls: folding must not turn ordinary text into markings.
func TestFoldingDoesNotInventMarkings(t *testing.T) {
	c := mustNew(t, Rules{})
	checkNone(t, c, []string{
		"le secret professionnel est protégé", "un secret bien gardé", "Secret de fabrication",
		"Le protocole tlp définit quatre couleurs.", "the tlp red team met", "TLP:GREEN partout", "TLP WHITE",
		"La DR Nord a validé le budget", "au niveau DR", "voir la DR régionale", "le Dr Martin",
		"Это секретный документ для отдела", "СЕКРЕТНО", "НАТО и ЕС", "Ο ΝΑΤΟ είναι συμμαχία", // Russian, Greek
		"il y a un problème", "a b c d", "A B est une droite", "x = a * b * c",
		"SECRET_KEY=abc", "client_secret", "__init__ secret", "`secret`", "*secret*",
		"     1\tle secret\n     2\tprofessionnel", "12:la DR Nord", "diffusion&nbsp;restreinte",
		"d i f f u s i o n r e s t r e i n t e", "S E C R E T S", "SECRETARIAT GÉNÉRAL",
	})
}

func TestCaseInsensitive(t *testing.T) {
	plain := mustNew(t, Rules{Markings: []string{"PROJET ALPHA"}})
	ci := mustNew(t, Rules{Markings: []string{"PROJET ALPHA"}, CaseInsensitive: true})
	hits := []hit{
		{"Diffusion Restreinte", "Diffusion Restreinte", "builtin:fr-dr"},
		{"diffusion\nrestreinte", "diffusion\nrestreinte", "builtin:fr-dr"},
		{"Confidentiel\nle texte", "Confidentiel", "builtin:fr-confidentiel"},
		{"[Secret]", "Secret", "builtin:fr-secret"},
		{"Très Secret Défense", "Très Secret Défense", "builtin:fr-tres-secret-defense"},
		{"tlp red", "tlp red", "builtin:tlp-red"},
		{"le projet alpha avance", "projet alpha", "marking:PROJET ALPHA"},
		{"le Projet\nAlpha avance", "Projet\nAlpha", "marking:PROJET ALPHA"},
	}
	checkHits(t, ci, hits)
	var texts []string
	for _, tc := range hits {
		texts = append(texts, tc.text)
	}
	checkNone(t, plain, texts)
	// Still whole words, still marking positions: mixed-case tails are prose.
	checkNone(t, ci, []string{"le secret professionnel", "DR – Direction régionale", "secretariat", "la dr nord"})
}

func TestUserMarkingsAreFolded(t *testing.T) {
	c := mustNew(t, Rules{Markings: []string{"PROJET ALPHA", `CLIENT-[0-9]{4}`}})
	checkHits(t, c, []hit{
		{"le PROJET\n\nALPHA", "PROJET\n\nALPHA", "marking:PROJET ALPHA"},
		{"le **PROJET** ALPHA", "PROJET** ALPHA", "marking:PROJET ALPHA"},
		{"le P R O J E T ALPHA", "P R O J E T ALPHA", "marking:PROJET ALPHA"},
		{"le PROJET&nbsp;ALPHA", "PROJET&nbsp;ALPHA", "marking:PROJET ALPHA"},
		{"CLIENT-１２３４", "CLIENT-１２３４", "marking:CLIENT-[0-9]{4}"},
		{"dossier CLIENT-1234", "CLIENT-1234", "marking:CLIENT-[0-9]{4}"},
	})
}

// FuzzUserMarkingsFolded: Text finds an organisation's marking that the
// text, as it is or folded with line breaks read as spaces, holds,
// whatever it leaves unread (see userMarking.mayBeIn).
func FuzzUserMarkingsFolded(f *testing.F) {
	exprs := []string{"PROJET ALPHA", `CLIENT-[0-9]{4}`, "(?i)projet beta", `\bX-1\b`, "DR-7:", "(?i)é+tude", "K9"}
	for _, s := range []string{
		"le PROJET\nALPHA", "le **PROJET** ALPHA", "P R O J E T ALPHA", "CLIENT-１２３４", "C&#76;IENT-1234",
		`CLIENT\u002d1234`, "projet\u200bbeta", "projet\n\nBETA", "X\u20111", "ＤＲ-7:", "k9", "K\u200b9", "\u212a9",
		"x *PROJET* ALPHA", `PRO\u004aET ALPHA`, "func f() {\n\tx := \"PROJET\\nALPHA\"\n}", "     1\tPROJET\n     2\tALPHA",
		"P*ROJET ALPHA", "PROJ&Eacute;T", "CLIENT-12\n34", "É+TUDE", "e\u0301tude",
	} {
		f.Add(s)
	}
	c := mustNew(f, Rules{Markings: exprs})
	var res []*regexp.Regexp
	for _, e := range exprs {
		res = append(res, regexp.MustCompile(e))
	}
	f.Fuzz(func(t *testing.T, s string) {
		flat := strings.ReplaceAll(textfold.Fold(s), "\n", " ")
		for _, re := range res {
			if re.MatchString(s) || re.MatchString(flat) {
				if _, ok := c.Text(s); !ok {
					t.Fatalf("%q (folded %q) holds %v, yet Text finds nothing", s, flat, re)
				}
			}
		}
	})
}

// A case-insensitive marking's lead is looked for in plain text by its
// ASCII cases alone: no rune outside ASCII whose case folds to an ASCII
// letter is plain.
func TestCaseFoldsOfASCIIAreNotPlain(t *testing.T) {
	for c := rune('A'); c <= 'z'; c++ {
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			if r >= utf8.RuneSelf && textfold.Plain("x"+string(r)+"x") {
				t.Errorf("%q folds to %q and is plain", r, c)
			}
		}
	}
}

// FuzzPlainPath: for text Plain says folding leaves alone but for its
// white space, reading it as it is gives the verdict reading it folded
// gives. This is what makes the fast path correct.
func FuzzPlainPath(f *testing.F) {
	for _, s := range []string{
		"DIFFUSION  \n\n RESTREINTE", "[SECRET" + strings.Repeat(" \t", 200) + "]", "SECRET  \t\r\n", "TLP :\n RED",
		"Classification   :   DR", "(  DR  )", "DR –  NE PAS DIFFUSER", "SECRET   SPÉCIAL FRANCE", "NATO /\nOTAN SECRET",
		"A  B", "x\u00a0SECRET\u2028y", "SECRET -\n- DÉFENSE",
		`fmt.Printf("%q\n", x) // *Server &s.cfg __init__`, `"a\nb" "\u00e9" "\"k\"" https:\/\/h`,
		"     3\tfunc main() {\n     4\t\treturn\n", "tlp:\n12:red", `"DIFFUSION\nRESTREINTE"`, "x\\nSECRET",
		"**tlp**:red", "*p*", "1*\tDR", `\/ SECRET`, `tlp:r\u0065d`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if textfold.Plain(s) {
			for _, ci := range []bool{false, true} {
				_, _, r1, ok1 := scanBuiltin(s, ci)
				_, _, r2, ok2 := scanBuiltin(textfold.Fold(s), ci)
				if ok1 != ok2 || r1 != r2 {
					t.Fatalf("ci=%v: %q reads %q %v as it is, %q %v folded (%q)", ci, s, r1, ok1, r2, ok2, textfold.Fold(s))
				}
			}
		}
		// Inert text, read as it is, finds whatever its folded form holds
		// (case-sensitive: what Text reads it with).
		if textfold.Inert(s) {
			_, _, r1, ok1 := scanBuiltin(s, false)
			_, _, r2, ok2 := scanBuiltin(textfold.Fold(s), false)
			if ok2 && !ok1 {
				t.Fatalf("Inert(%q), yet only its folded form %q holds %q (as it is: %q)", s, textfold.Fold(s), r2, r1)
			}
		}
	})
}

func benchFolded(b *testing.B, c *Classifier, s string) {
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		c.Text(s)
	}
}

// BenchmarkTextFolded measures Text on 64 KiB that must be folded: prose
// with Markdown emphasis and typographic ellipses, and text full of
// disguises without a marking.
func BenchmarkTextFolded(b *testing.B) {
	md := strings.Repeat("Le **Directeur** régional a réuni les _équipes_… la DR Nord le 12 mars.\n\n", 64<<10/80)
	disguised := strings.Repeat("S E C **RE** ＴＡ ＲＹ SЕCRЕTAIRE&nbsp;GÉNÉ\u200bRAL \\u0041\n", 64<<10/60)
	c := mustNew(b, Rules{})
	if m, ok := c.Text(disguised); ok {
		b.Fatalf("marking in the benchmark text: %+v", m)
	}
	b.Run("markdown", func(b *testing.B) { benchFolded(b, c, md) })
	b.Run("disguised", func(b *testing.B) { benchFolded(b, c, disguised) })
	b.Run("case-insensitive", func(b *testing.B) {
		benchFolded(b, mustNew(b, Rules{CaseInsensitive: true}), strings.Repeat(prose, 64<<10/len(prose)+1)[:64<<10])
	})
}
