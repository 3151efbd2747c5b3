package strictyaml

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type doc struct {
	Name  string   `yaml:"name"`
	Items []string `yaml:"items"`
}

func TestDecodeRefusesWhatCouldHideAMistake(t *testing.T) {
	for in, want := range map[string]string{
		"name: a\nitmes: [x]\n":   "itmes",
		"name: a\nname: b\n":      "name",
		"name: [1, 2]\n":          "",
		"name: a\n---\nname: b\n": "",
	} {
		var d doc
		_, err := Decode([]byte(in), &d)
		var ye *Error
		if !errors.As(err, &ye) || ye.Line == 0 || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want an error with its line naming %q", in, err, want)
		}
	}
	var d doc
	if _, err := Decode([]byte("name: a\nitems: [x, y]\n"), &d); err != nil || d.Name != "a" || len(d.Items) != 2 {
		t.Errorf("a valid file: %+v, %v", d, err)
	}
}

func TestReadFileRefusesWhatIsNotASmallFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(dir); err == nil {
		t.Error("a directory was read")
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, MaxFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(big); err == nil {
		t.Error("a file over the limit was read")
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want os.ErrNotExist", err)
	}
}
