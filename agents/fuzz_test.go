package agents

import (
	"os"
	"path/filepath"
	"testing"
)

func writeFile(dir, name, text string) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
}

// FuzzParse: no input panics, and a kept agent has a valid name and a
// description.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: d\ntools: Read, Bash(git *)\nmodel: sonnet\n---\nP",
		"---\nname: a\ndescription: d\ntools: [Read, 3]\n---\n",
		"---\nname: [x]\n---\n",
		"---\ntools:\n---\n",
	} {
		f.Add([]byte(s))
	}
	p := newParser(Config{Tools: sessionTools})
	f.Fuzz(func(t *testing.T, data []byte) {
		a, _, ok := p.parse("f.md", data)
		if ok && (!validName(a.Name) || a.Description == "") {
			t.Fatalf("kept %+v", a)
		}
	})
}
