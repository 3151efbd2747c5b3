package frontmatter

import (
	"errors"
	"strings"
	"testing"

	"github.com/moteur/moteur/strictyaml"
)

func TestParse(t *testing.T) {
	doc, err := Parse([]byte("---\nname: pdf\ndescription: Fill PDF forms\nlicense: MIT\n---\n# PDF\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Fields["name"] != "pdf" || doc.Fields["license"] != "MIT" || doc.Body != "# PDF\nbody\n" || doc.BodyLine != 6 {
		t.Fatalf("%+v", doc)
	}
	if _, err := Parse([]byte("# no header\n")); !errors.Is(err, ErrNone) {
		t.Errorf("no header: %v", err)
	}
	var se *strictyaml.Error
	if _, err := Parse([]byte("---\nname: a\n")); !errors.As(err, &se) || !strings.Contains(err.Error(), "never closes") {
		t.Errorf("unclosed: %v", err)
	}
	if _, err := Parse([]byte("---\nname: a\nname: b\n---\n")); !errors.As(err, &se) || se.Line != 3 {
		t.Errorf("duplicate key: %v (line %d), want line 3", err, se.Line)
	}
	if _, err := Parse([]byte("---\n- a\n- b\n---\n")); err == nil {
		t.Error("a list header accepted")
	}
	doc, err = Parse([]byte("\ufeff---\r\nname: x\r\n---\r\nbody"))
	if err != nil || doc.Fields["name"] != "x" {
		t.Errorf("BOM and CRLF: %+v, %v", doc, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nname: a\n---\nbody"))
	f.Add([]byte("---\n: [\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Parse(data)
	})
}
