package skills_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/skills"
)

func pkg(t testing.TB, base, dir, content string) {
	t.Helper()
	p := filepath.Join(base, dir, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skill(name, desc string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\nBody of %s.\n", name, desc, name)
}

// problem finds the problem reported for a file (path suffix) and checks
// its reason.
func problem(t *testing.T, ps []skills.Problem, suffix, reason string) {
	t.Helper()
	for _, p := range ps {
		if strings.HasSuffix(p.Path, suffix) {
			if !strings.Contains(p.Error(), reason) {
				t.Errorf("%s: reason %q, want %q", suffix, p.Error(), reason)
			}
			return
		}
	}
	t.Errorf("no problem reported for %s (want %q); got %v", suffix, reason, ps)
}

// TestBadInput: each broken package is reported with its file and reason
// and skipped; the good ones are still found.
func TestBadInput(t *testing.T) {
	root, user := t.TempDir(), t.TempDir()
	sk := filepath.Join(root, ".moteur", "skills")
	pkg(t, sk, "good", skill("good", "A good one."))
	pkg(t, sk, "nofm", "# Just markdown\n")
	pkg(t, sk, "badname", skill("Bad_Name", "Upper case."))
	pkg(t, sk, "long", skill(strings.Repeat("a", 65), "Too long a name."))
	pkg(t, sk, "hyphen", skill("-x", "Leading hyphen."))
	pkg(t, sk, "nodesc", "---\nname: nodesc\n---\nbody\n")
	pkg(t, sk, "longdesc", skill("longdesc", strings.Repeat("é", 1025)))
	pkg(t, sk, "numname", "---\nname: 12\ndescription: x\n---\n")
	pkg(t, sk, "yaml", "---\nname: yaml\ndescription: [unclosed\n---\n")
	pkg(t, sk, "dupkey", "---\nname: a\nname: b\ndescription: x\n---\n")
	pkg(t, sk, "open", "---\nname: open\n")
	pkg(t, sk, "big", skill("big", "Big.")+strings.Repeat("x", skills.MaxSkillFileBytes))
	if err := os.MkdirAll(filepath.Join(sk, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	// SKILL.md that is a link out of its package.
	write(t, filepath.Join(root, "elsewhere.md"), skill("escape", "Escapes."))
	if err := os.MkdirAll(filepath.Join(sk, "escape"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "elsewhere.md"), filepath.Join(sk, "escape", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	// Duplicates: the user's first, then the project's, then the shared.
	pkg(t, filepath.Join(user, "skills"), "dup", skill("dup", "The user's."))
	pkg(t, sk, "dup", skill("dup", "The project's."))
	pkg(t, filepath.Join(root, ".claude", "skills"), "dup2", skill("dup", "Claude's."))
	pkg(t, filepath.Join(root, ".agents", "skills"), "good", skill("good", "Shared copy."))

	set := skills.Discover(skills.Config{ProjectRoot: root, UserDir: user})
	var names []string
	for _, k := range set.List() {
		names = append(names, k.Name+"@"+string(k.Source))
	}
	if got := strings.Join(names, " "); got != "dup@user good@project" {
		t.Errorf("skills: %s", got)
	}
	if k, _ := set.Lookup("dup"); k.Description != "The user's." {
		t.Errorf("dup: %+v", k)
	}
	ps := set.Problems()
	problem(t, ps, "nofm/SKILL.md", "no front matter")
	problem(t, ps, "badname/SKILL.md", `"Bad_Name" has the character 'B'`)
	problem(t, ps, "long/SKILL.md", "over the limit of 64")
	problem(t, ps, "hyphen/SKILL.md", "starts with a hyphen")
	problem(t, ps, "nodesc/SKILL.md", "no description")
	problem(t, ps, "longdesc/SKILL.md", "1025 characters long, over the limit of 1024")
	problem(t, ps, "numname/SKILL.md", `"name" must be a string`)
	problem(t, ps, "yaml/SKILL.md", "front matter")
	problem(t, ps, "dupkey/SKILL.md", ":3: ")
	problem(t, ps, "open/SKILL.md", "never closes")
	problem(t, ps, "big/SKILL.md", "over the limit of 262144")
	problem(t, ps, "empty/SKILL.md", "no SKILL.md in the package")
	problem(t, ps, "escape/SKILL.md", "cannot open SKILL.md")
	problem(t, ps, ".moteur/skills/dup/SKILL.md", "found first in "+filepath.Join(user, "skills", "dup", "SKILL.md"))
	problem(t, ps, ".claude/skills/dup2/SKILL.md", "the first one wins")
	problem(t, ps, ".agents/skills/good/SKILL.md", "the first one wins")
	// Every package found is read-only, the skipped ones too.
	if _, ok := set.SkillAt(filepath.Join(sk, "nofm", "x")); !ok {
		t.Error("a skipped package is writable")
	}
	if _, ok := set.SkillAt(filepath.Join(sk, "goodness")); ok {
		t.Error("a sibling with a common prefix counts as a skill directory")
	}
}

func TestSelection(t *testing.T) {
	root := t.TempDir()
	sk := filepath.Join(root, ".moteur", "skills")
	pkg(t, sk, "a", skill("a", "A."))
	pkg(t, sk, "b", skill("b", "B."))
	for _, c := range []struct {
		mode  string
		names []string
		want  string
	}{
		{"", nil, "a b"}, {"all", nil, "a b"}, {"none", nil, ""}, {"selected", []string{"b", "zz"}, "b"},
	} {
		sel, err := skills.ParseSelection(c.mode, c.names)
		if err != nil {
			t.Fatal(err)
		}
		set := skills.Discover(skills.Config{ProjectRoot: root, Selection: sel})
		var got []string
		for _, k := range set.List() {
			got = append(got, k.Name)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s %v: %v", c.mode, c.names, got)
		}
		if c.mode == "none" && (set.Section(i18n.EN) != "" || len(set.Excluded()) != 2) {
			t.Errorf("none: section %q, excluded %v", set.Section(i18n.EN), set.Excluded())
		}
		if c.mode == "selected" {
			if ps := set.Problems(); len(ps) != 1 || !strings.Contains(ps[0].Error(), `"zz"`) {
				t.Errorf("missing selected skill: %v", ps)
			}
			if _, _, err := set.Invoke("a", ""); !errors.Is(err, skills.ErrUnknown) {
				t.Errorf("invoke of an unselected skill: %v", err)
			}
		}
	}
	for _, bad := range []struct {
		mode  string
		names []string
	}{{"some", nil}, {"all", []string{"a"}}, {"selected", []string{"A"}}} {
		if _, err := skills.ParseSelection(bad.mode, bad.names); err == nil {
			t.Errorf("%q %v accepted", bad.mode, bad.names)
		}
	}
	var none *skills.Set
	if none.List() != nil || none.Section(i18n.FR) != "" {
		t.Error("nil set is not empty")
	}
}

func TestInvoke(t *testing.T) {
	root := t.TempDir()
	sk := filepath.Join(root, ".moteur", "skills")
	body := "---\nname: fix\ndescription: Fix an issue.\n---\nFix issue $ARGUMENTS[0] with priority $1 (all: $ARGUMENTS) in ${CLAUDE_SKILL_DIR}. Costs $5.\n"
	pkg(t, sk, "fix", body)
	pkg(t, sk, "plain", "---\nname: plain\ndescription: No placeholder.\n---\nDo the thing.\n")
	pkg(t, sk, "manual", "---\nname: manual\ndescription: Only by hand.\ndisable-model-invocation: true\n---\nx\n")
	pkg(t, sk, "auto", "---\nname: auto\ndescription: Only by the model.\nuser-invocable: false\n---\nx\n")
	set := skills.Discover(skills.Config{ProjectRoot: root})
	dir, _ := set.SkillDir("fix")
	text, sum, err := set.Invoke("fix", ` 42 "very high" `)
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256([]byte(body))
	if sum != hex.EncodeToString(want[:]) {
		t.Errorf("sha256 %s", sum)
	}
	has(t, "invoke", text, "[Skill fix (skill://fix/SKILL.md)", `shell_exec(skill_name="fix"`,
		"Fix issue 42 with priority very high (all: 42 \"very high\") in "+dir+". Costs .")
	if strings.Contains(text, "description:") || strings.Contains(text, "ARGUMENTS:") {
		t.Errorf("invoke:\n%s", text)
	}
	text, _, _ = set.Invoke("plain", "now please")
	if !strings.HasSuffix(text, "Do the thing.\n\nARGUMENTS: now please") {
		t.Errorf("plain:\n%s", text)
	}
	if text, _, _ = set.Invoke("plain", ""); strings.Contains(text, "ARGUMENTS") {
		t.Errorf("no args:\n%s", text)
	}
	if _, _, err := set.Invoke("auto", ""); !errors.Is(err, skills.ErrNotUserInvocable) {
		t.Errorf("auto: %v", err)
	}
	if _, _, err := set.Invoke("manual", ""); err != nil {
		t.Errorf("manual: %v", err)
	}
	sec := set.Section(i18n.EN)
	if strings.Contains(sec, "manual") || !strings.Contains(sec, "- auto:") {
		t.Errorf("section:\n%s", sec)
	}
	if _, _, err := set.Invoke("nope", ""); !errors.Is(err, skills.ErrUnknown) || !strings.Contains(err.Error(), "auto, fix, manual, plain") {
		t.Errorf("unknown: %v", err)
	}
	// The hash is of the file read now.
	edited := strings.Replace(body, "Costs", "Price", 1)
	pkg(t, sk, "fix", edited)
	_, sum2, _ := set.Invoke("fix", "")
	if h := sha256.Sum256([]byte(edited)); sum2 != hex.EncodeToString(h[:]) {
		t.Errorf("hash after edit: %s", sum2)
	}
}

func TestParseURI(t *testing.T) {
	for uri, want := range map[string]string{
		"skill://pdf/SKILL.md":        "pdf SKILL.md",
		"skill://pdf":                 "pdf SKILL.md",
		"skill://pdf/":                "pdf SKILL.md",
		"skill://pdf/./scripts//a.py": "pdf scripts/a.py",
	} {
		n, r, err := skills.ParseURI(uri)
		if err != nil || n+" "+r != want {
			t.Errorf("%s: %s %s %v", uri, n, r, err)
		}
	}
	for _, bad := range []string{"pdf/SKILL.md", "skill:///SKILL.md", "skill://PDF/x", "skill://pdf/../x", "skill://pdf/a/../../x", "skill://pdf//etc/passwd", "skill://pdf/a\\..\\x", "skill://pdf/a\x00"} {
		if _, _, err := skills.ParseURI(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseURI(f *testing.F) {
	for _, s := range []string{"skill://a/SKILL.md", "skill://a/../b", "skill://a-1/x/./y", "skill://", "skill://a//b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		name, rel, err := skills.ParseURI(uri)
		if err != nil {
			return
		}
		if skills.CheckName(name) != nil {
			t.Fatalf("%q: invalid name %q accepted", uri, name)
		}
		if !filepath.IsLocal(rel) || strings.ContainsAny(rel, "\\\x00") {
			t.Fatalf("%q: path %q leaves the skill", uri, rel)
		}
	})
}

func FuzzCheckName(f *testing.F) {
	f.Add("pdf-fill")
	f.Add("A")
	f.Fuzz(func(t *testing.T, name string) {
		if skills.CheckName(name) != nil {
			return
		}
		if len(name) == 0 || len(name) > skills.MaxNameLen || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || name[0] == '-' {
			t.Fatalf("%q accepted", name)
		}
	})
}

// BenchmarkDiscover200 discovers 200 packages in one project location.
func BenchmarkDiscover200(b *testing.B) {
	root := b.TempDir()
	sk := filepath.Join(root, ".moteur", "skills")
	for i := range 200 {
		name := fmt.Sprintf("skill-%03d", i)
		pkg(b, sk, name, skill(name, "Does task number "+name+" when the user asks for it, with its scripts.")+strings.Repeat("Instructions line.\n", 100))
	}
	b.ReportAllocs()
	for b.Loop() {
		set := skills.Discover(skills.Config{ProjectRoot: root})
		if len(set.List()) != 200 {
			b.Fatal(len(set.List()))
		}
	}
}
