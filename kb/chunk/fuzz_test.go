package chunk

import (
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/parse"
)

// FuzzSplit: any Markdown and any valid size give chunks within the size,
// with consecutive indexes, no empty chunk and non-decreasing starts.
func FuzzSplit(f *testing.F) {
	f.Add("# A\n\nSome text. More text!\n\n## B\n\n```go\nx := 1\n```\n\n| h |\n|---|\n| r |\n", uint16(100), int16(30))
	f.Add(sentences(40), uint16(150), int16(0))
	f.Add("- a\n- b\n  - c\n\n> quote "+sentences(3), uint16(120), int16(-1))
	f.Fuzz(func(t *testing.T, src string, size uint16, overlap int16) {
		doc, err := parse.Bytes("fuzz.md", []byte(src))
		if err != nil {
			return
		}
		cfg := Config{Size: MinSize + int(size)%400, Overlap: int(overlap) % 200}
		want, _ := cfg.clamped()
		chunks := Split(doc, cfg)
		checkInvariants(t, chunks, want)
		checkCoverage(t, doc, chunks, want)
	})
}

// checkCoverage: every word of the document short enough never to be cut
// appears whole in some chunk; nothing is lost.
func checkCoverage(t *testing.T, doc parse.Document, chunks []Chunk, size int) {
	t.Helper()
	var all strings.Builder
	for _, c := range chunks {
		all.WriteString(c.Text)
		all.WriteString("\x00")
	}
	text := all.String()
	for _, b := range doc.Blocks {
		for _, w := range strings.Fields(b.Text + " " + b.Header + " " + strings.Join(b.Rows, " ")) {
			if runeLen(w) <= size/4 && !strings.Contains(text, w) {
				t.Fatalf("word %q of a %s block is in no chunk", w, b.Kind)
			}
		}
	}
}
