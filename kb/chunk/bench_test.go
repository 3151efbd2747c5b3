package chunk

import (
	"fmt"
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/parse"
)

// benchMarkdown generates about size bytes of varied Markdown: nested
// headings, prose, lists, code and tables.
func benchMarkdown(size int) []byte {
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "# Chapter %d\n\n%s\n\n", i, sentences(8))
		fmt.Fprintf(&sb, "## Section %d.1\n\n%s\n\n%s\n\n", i, sentences(3), sentences(25))
		sb.WriteString("- first point about *this*\n- second point with `code`\n  - nested detail\n\n")
		sb.WriteString("```go\nfunc f() int {\n\treturn 42\n}\n```\n\n")
		fmt.Fprintf(&sb, "### Data %d\n\n| key | value | note |\n|---|---|---|\n", i)
		for r := range 12 {
			fmt.Fprintf(&sb, "| k%d | %d | a short note |\n", r, r*i)
		}
		sb.WriteString("\n")
	}
	return []byte(sb.String())
}

// BenchmarkMarkdown measures parse + split throughput on ~1 MB of
// Markdown; the MB/s column is the figure to report.
func BenchmarkMarkdown(b *testing.B) {
	src := benchMarkdown(1 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		doc, err := parse.Bytes("bench.md", src)
		if err != nil {
			b.Fatal(err)
		}
		if len(Split(doc, Config{})) == 0 {
			b.Fatal("no chunks")
		}
	}
}
