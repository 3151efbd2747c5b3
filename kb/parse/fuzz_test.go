package parse

import (
	"errors"
	"testing"
)

// FuzzBytes: any name and bytes give either an error wrapping one of the
// sentinels or a document whose blocks are all non-empty; never a panic.
func FuzzBytes(f *testing.F) {
	f.Add("a.md", []byte(sampleMarkdown))
	f.Add("a.txt", []byte("caf\xe9\n\nsecond"))
	f.Add("a.html", []byte("<title>t</title><h1>x</h1><table><tr><td>1</td></tr></table>"))
	f.Add("a.pdf", helloPDF())
	f.Add("a.docx", sampleDOCX(f))
	f.Add("a.xlsx", sampleXLSX(f))
	f.Add("a.csv", []byte("a;b\n1;2\n"))
	f.Add("a.json", []byte(`[{"a":1},2]`))
	f.Add("a.jsonl", []byte("{}\n[1]\n"))
	f.Add("a.go", []byte(sampleGo))
	f.Add("noext", []byte{0xFF, 0xFE, 'h', 0, 'i', 0})
	f.Add("x.doc", oleFile(true))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		doc, err := Bytes(name, data)
		if err != nil {
			for _, s := range []error{ErrUnsupported, ErrEmpty, ErrEncrypted, ErrCorrupt, ErrTooLarge} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error wraps no sentinel: %v", err)
		}
		checkBlocks(t, doc)
	})
}
