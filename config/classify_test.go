package config

import (
	"strings"
	"testing"
)

// TestClassifyCaseInsensitiveOnlyTightens: any file may turn
// case_insensitive on; no later file turns it off, and a project that
// tries is reported.
func TestClassifyCaseInsensitiveOnlyTightens(t *testing.T) {
	for _, tc := range []struct {
		name, user, project string
		want                bool
		notice              bool
	}{
		{"unset", "", "", false, false},
		{"user", "classify: {case_insensitive: true}\n", "", true, false},
		{"project", "", "classify: {case_insensitive: true}\n", true, false},
		{"project on after user off", "classify: {case_insensitive: false}\n", "classify: {case_insensitive: true}\n", true, false},
		{"project off after user on", "classify: {case_insensitive: true}\n", "classify: {case_insensitive: false}\n", true, true},
		{"project silent after user on", "classify: {case_insensitive: true}\n", "mode: confirm\n", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			if tc.user != "" {
				e.writeUser(tc.user)
			}
			if tc.project != "" {
				e.writeProject(tc.project)
			}
			c := e.mustLoad()
			if c.ClassifyCaseInsensitive != tc.want || c.ClassifyRules().CaseInsensitive != tc.want {
				t.Errorf("case_insensitive = %v (rules %v), want %v", c.ClassifyCaseInsensitive, c.ClassifyRules().CaseInsensitive, tc.want)
			}
			noticed := strings.Contains(strings.Join(c.Notices, "\n"), "case_insensitive")
			if noticed != tc.notice {
				t.Errorf("notices %q: case_insensitive noticed %v, want %v", c.Notices, noticed, tc.notice)
			}
		})
	}
	// A wrong type is an error naming the key, as for every key.
	e := newEnv(t).writeUser("classify: {case_insensitive: sometimes}\n")
	e.loadErr("case_insensitive")
}
