package strictyaml

import (
	"errors"
	"strings"
	"testing"
)

type nested struct {
	Name      string `yaml:"name"`
	Providers []struct {
		Model   string `yaml:"model"`
		BaseURL string `yaml:"base_url"`
	} `yaml:"providers"`
	Limits map[string]struct {
		Max int `yaml:"max"`
	} `yaml:"limits"`
}

// An unknown key names the closest key of its own mapping, at any depth.
func TestUnknownKeySuggestsTheClosest(t *testing.T) {
	for in, want := range map[string]string{
		"nmae: a\n": `unknown key "nmae"; did you mean "name"?`,
		"providers:\n  - modle: m\n    base_url: x\n": `unknown key "modle"; did you mean "model"?`,
		"limits:\n  a:\n    mx: 3\n":                  `unknown key "mx"; did you mean "max"?`,
	} {
		var d nested
		_, err := Decode([]byte(in), &d)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want %q", in, err, want)
		}
	}
	var d nested
	if _, err := Decode([]byte("zzzzzz: 1\n"), &d); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a key close to none: %v, want no suggestion", err)
	}
}

// A "key: value" indented under a line it cannot continue is reported at
// its own line, not at the line above, which the parser reads it with.
func TestYAMLErrorAtItsRealLine(t *testing.T) {
	for in, line := range map[string]int{
		"name: a\n  bad: indent\n": 2,
		"name: a\nproviders:\n  - model: m\n    base_url: x\n      extra: y\n": 5,
	} {
		var d nested
		_, err := Decode([]byte(in), &d)
		var ye *Error
		if !errors.As(err, &ye) || ye.Line != line {
			t.Errorf("Decode(%q) = %v, want an error at line %d", in, err, line)
		}
	}
}
