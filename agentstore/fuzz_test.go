package agentstore

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/moteur/moteur/agentconfig"
)

// FuzzPrepare: any name, id and description is either refused or stored
// trimmed, printable and within bounds.
func FuzzPrepare(f *testing.F) {
	f.Add("ag-1", "Support", "desk")
	f.Add("", "  ", "")
	f.Add("a b", "x\x00", "\xff")
	f.Fuzz(func(t *testing.T, id, name, desc string) {
		a, err := prepare(agentconfig.Agent{ID: id, Name: name, Description: desc})
		if err != nil {
			return
		}
		if a.Name != strings.TrimSpace(a.Name) || a.Name == "" || !utf8.ValidString(a.Name) ||
			utf8.RuneCountInString(a.Name) > MaxNameLen || (a.ID != "" && !idRule.MatchString(a.ID)) {
			t.Fatalf("accepted %+v", a)
		}
	})
}

// idRule is the documented rule for an agent id, an oracle independent of
// the code under test.
var idRule = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
