package agents

import (
	"strings"
	"testing"

	"github.com/moteur/moteur/i18n"
)

func TestDescribe(t *testing.T) {
	c, _ := Load(Config{ProjectDir: "testdata/project", Lang: i18n.FR})
	for _, l := range []i18n.Lang{i18n.FR, i18n.EN} {
		d := c.Describe(l)
		if !strings.HasPrefix(d, i18n.AgentToolDescription(l)) {
			t.Errorf("%s: head missing", l)
		}
		for _, line := range []string{
			"\n- code-reviewer: Reviews code for quality",
			"\n- explore: " + i18n.ExploreDescription(l),
			"\n- general-purpose: " + i18n.GeneralPurposeDescription(l),
		} {
			if !strings.Contains(d, line) {
				t.Errorf("%s: %q missing from\n%s", l, line, d)
			}
		}
		if strings.Index(d, "- code-reviewer") > strings.Index(d, "- explore") {
			t.Errorf("%s: agents not sorted", l)
		}
	}
	// A multi-line description stays under its item.
	dir := t.TempDir()
	write(t, dir, "m.md", "---\nname: multi\ndescription: |\n  First line.\n  Second line.\n---\nP\n")
	c, _ = Load(Config{UserDir: dir})
	if d := c.Describe(i18n.EN); !strings.HasSuffix(d, "\n- multi: First line.\n  Second line.") {
		t.Errorf("multi-line description:\n%s", d)
	}
}
