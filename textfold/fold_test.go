package textfold

import (
	"strings"
	"testing"
	"unicode"
)

func TestFold(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Escapes.
		{"DIFFUSION&nbsp;RESTREINTE", "DIFFUSION RESTREINTE"},
		{"DIFFUSION&#160;RESTREINTE", "DIFFUSION RESTREINTE"},
		{"DIFFUSION&#xA0;RESTREINTE", "DIFFUSION RESTREINTE"},
		{"DIFFUSION&nbspRESTREINTE", "DIFFUSION RESTREINTE"},
		{"SP&Eacute;CIAL", "SPÉCIAL"},
		{"&#83;ECRET", "SECRET"},
		{"&#x53ECRET", "\u53ECRET"}, // hex digits run on, as in browsers
		{"&amp;nbsp;", " "},
		{"&amp;amp;amp;#83;", "S"},
		{"a &b c", "a &b c"},
		{"&unknown; &#0; &#xD800;", "&unknown; &#0; &#xD800;"},
		{`sk-proj-\u0041BC`, "sk-proj-ABC"},
		{`\uD83D\uDE00`, "\U0001F600"},
		{`\uD83D alone`, `\uD83D alone`},
		{`\u{53}\U00000045\x43RET`, "SECRET"},
		{`DIFFUSION\nRESTREINTE`, "DIFFUSION\nRESTREINTE"},
		{`\\u0041`, "A"},
		{`C:\dir\x`, `C:\dir\x`},
		// Invisible characters.
		{"SEC\u200bRET", "SECRET"},
		{"SEC\u00adRET", "SECRET"},
		{"SE\u200dC\u200cR\u2060E\ufeffT", "SECRET"},
		{"S\ufe0fECRET", "SECRET"},
		{"\x1b[1;31mSECRET\x1b[0m", "SECRET"},
		{"SEC\x00RET", "SECRET"},
		{"E\u200b\u0301", "É"},
		// NFKC.
		{"ＳＥＣＲＥＴ", "SECRET"},
		{"𝐒𝐄𝐂𝐑𝐄𝐓", "SECRET"},
		{"ⓈⒺⒸⓇⒺⓉ", "SECRET"},
		{"SPE\u0301CIAL", "SPÉCIAL"},
		{"TLP：RED", "TLP:RED"},
		// Look-alikes.
		{"SЕCRЕT", "SECRET"},           // Cyrillic Е
		{"ΝΑΤΟ SECRET", "NATO SECRET"}, // Greek
		{"ꮪꭼ", "ꮪꭼ"},                   // Cherokee small letters are left
		{"ᏚᎬᏟᎡᎬᎢ", "SECRET"},           // Cherokee capitals
		{"ꓢꓰꓚꓣꓰꓔ", "SECRET"},           // Lisu
		{"Это секретный документ", "Этo ceкpeтный дoкyмeнт"}, // Russian folds to no Latin word
		// Emphasis.
		{"**DIFFUSION** **RESTREINTE**", "DIFFUSION RESTREINTE"},
		{"__SECRET__", "SECRET"},
		{"~~SECRET~~ `DR`", "SECRET DR"},
		{"DIFF**USION**", "DIFFUSION"},
		{"SECRET_KEY snake_case", "SECRET_KEY snake_case"},
		{"** SECRET **", "** SECRET **"},
		{"a * b", "a * b"},
		// Line numbers.
		{"     1\tDR\n     2\tla suite", "DR\nla suite"},
		{"12:DIFFUSION\n13-RESTREINTE", "DIFFUSION\nRESTREINTE"},
		{"1\t2\t3:x", "x"},
		{"Niveau 1: DR", "Niveau 1: DR"},
		// Spacing.
		{"S E C R E T", "SECRET"},
		{"D I F F U S I O N   R E S T R E I N T E", "DIFFUSION RESTREINTE"},
		{"S\u00a0E\u00a0C\u00a0R\u00a0E\u00a0T", "SECRET"},
		{"D R", "DR"},
		{"il y a", "il y a"},
		{"A  B", "A  B"},
		{"A   B", "A  B"},
		{"A  B C", "A BC"},
		{"DIFFUSION\n\n   RESTREINTE", "DIFFUSION\nRESTREINTE"},
		{"DIFFUSION\t \u3000RESTREINTE", "DIFFUSION RESTREINTE"},
		{"a\r\nb", "a\nb"},
		{"", ""},
	} {
		if got := Fold(tc.in); got != tc.want {
			t.Errorf("Fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFoldLeavesPlainTextAlone(t *testing.T) {
	s := "Le Directeur régional a réuni les équipes — voir « le plan ». SECRET_KEY=1; a+b\n"
	if got := Fold(s); got != s {
		t.Errorf("Fold(%q) = %q", s, got)
	}
	if !Plain(s) {
		t.Errorf("Plain(%q) = false", s)
	}
}

func TestMapOrigin(t *testing.T) {
	for _, tc := range []struct{ in, folded, orig string }{
		{"x SEC\u200bRET y", "SECRET", "SEC\u200bRET"},
		{"     1\tDIFFUSION\n     2\tRESTREINTE", "DIFFUSION\nRESTREINTE", "DIFFUSION\n     2\tRESTREINTE"},
		{"a S E C R E T b", "SECRET", "S E C R E T"},
		{"DIFFUSION&nbsp;RESTREINTE", "DIFFUSION RESTREINTE", "DIFFUSION&nbsp;RESTREINTE"},
		{"**SECRET**", "SECRET", "SECRET"},
		{"ＳＥＣＲＥＴ", "SECRET", "ＳＥＣＲＥＴ"},
		{"plain SECRET", "SECRET", "SECRET"},
	} {
		m := Map(tc.in)
		i := strings.Index(m.Text, tc.folded)
		if i < 0 {
			t.Errorf("Map(%q).Text = %q, lacks %q", tc.in, m.Text, tc.folded)
			continue
		}
		a, b := m.Origin(i, i+len(tc.folded))
		if got := tc.in[a:b]; got != tc.orig {
			t.Errorf("Map(%q): %q comes from %q, want %q", tc.in, tc.folded, got, tc.orig)
		}
	}
}

func TestPlain(t *testing.T) {
	for _, s := range []string{
		"", "plain text", "DIFFUSION RESTREINTE", "SECRET\n\nDR", "prix : 12\u00a0€", "é è à ç œ « » — ’",
		"a_b", "x == y && z", "2 * 3", "voir le point A. B est faux", strings.Repeat(" \n\t", 100),
	} {
		if !Plain(s) {
			t.Errorf("Plain(%q) = false", s)
		}
	}
	for _, s := range []string{
		"&nbsp;", "&#83;", `\u0041`, `\n`, "**A**", "_x", "SEC\u200bRET", "ＳＥＣＲＥＴ", "SЕCRЕT", "S E",
		"1\tDR", "x\n12:y", "\u00a012\tx", "E\u0301", "\x1b[0m", "\xff",
		"É R", "…",
	} {
		if Plain(s) {
			t.Errorf("Plain(%q) = true", s)
		}
	}
}

// collapseSpace folds every run of white space to one space.
func collapseSpace(s string) string { return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ") }

func foldSeeds() []string {
	return []string{
		"S E C R E T", "**DIFFUSION** **RESTREINTE**", "SEC\u200bRET", "ＳＥＣＲＥＴ", "SЕCRЕT", "&amp;nbsp;",
		"     1\tDR\n     2\tx", "A  B C", `\\\u0041`, "\x1b[1m", "E\u200b\u0301", "\\*n", "&*amp;", "Ο\u0308",
		"\xed\xa0\x80", "\u034f\u0301", "a\u2028 12:x", "\r\n\r\n", "_*_", "A\u00a0 B", "&#x26;#83;",
		strings.Repeat("\u0301", 40), strings.Repeat("\u034f", 5),
	}
}

// FuzzFold: folding never panics, is idempotent, gives the same text with
// and without the map, maps every byte to a span of the original that
// never goes backwards, and Plain text folds to itself but for white space.
func FuzzFold(f *testing.F) {
	for _, s := range foldSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := Map(s)
		if got := Fold(s); got != m.Text {
			t.Fatalf("Fold(%q) = %q, Map = %q", s, got, m.Text)
		}
		if again := Fold(m.Text); again != m.Text {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, m.Text, again)
		}
		prev := 0
		for i := range len(m.Text) {
			a, b := m.Origin(i, i+1)
			if a < prev || a >= b || b > len(s) {
				t.Fatalf("Map(%q): byte %d of %q comes from [%d,%d) (previous start %d)", s, i, m.Text, a, b, prev)
			}
			prev = a
		}
		if a, b := m.Origin(0, len(m.Text)); len(m.Text) > 0 && (a < 0 || b > len(s) || a > b) {
			t.Fatalf("Map(%q).Origin(all) = [%d,%d)", s, a, b)
		}
		if Plain(s) && collapseSpace(m.Text) != collapseSpace(s) {
			t.Fatalf("Plain(%q), yet it folds to %q", s, m.Text)
		}
	})
}

func TestFoldSeeds(t *testing.T) {
	for _, s := range foldSeeds() {
		if again := Fold(Fold(s)); again != Fold(s) {
			t.Errorf("not idempotent: %q -> %q -> %q", s, Fold(s), again)
		}
	}
}

const benchProse = `Le Directeur régional a réuni les équipes de la DR Nord le 12 mars. ` +
	`Selon le Dr Martin, la DRH de la SNCF et la DREAL ont validé le calendrier. ` +
	`Le secret professionnel s'applique aux échanges avec l'Agence.` + "\n\n"

func benchInput() string { return strings.Repeat(benchProse, 64<<10/len(benchProse)+1)[:64<<10] }

// BenchmarkPlain is the fast path's cost: one pass over ordinary prose.
func BenchmarkPlain(b *testing.B) {
	s := benchInput()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Plain(s)
	}
}

// BenchmarkFold folds ordinary prose (whose blank lines make folding copy)
// and prose full of disguises.
func BenchmarkFold(b *testing.B) {
	disguised := strings.Repeat("**DIFFUSION** R E S T R E I N T E SEC\u200bRET ＳＥＣＲＥＴ &nbsp; SЕCRЕT\n", 64<<10/80)
	for name, s := range map[string]string{"prose": benchInput(), "disguised": disguised} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				Fold(s)
			}
		})
	}
}
