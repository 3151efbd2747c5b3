package parse

import (
	"strings"
	"testing"
)

func TestTameNesting(t *testing.T) {
	cases := []struct{ in, want string }{
		{"# ok\n\n> > quote\n- a\n  - b\n", "# ok\n\n> > quote\n- a\n  - b\n"},
		{strings.Repeat(">", 40) + " deep\nnext", strings.Repeat("> ", 32) + "deep\nnext"},
		{"a\n" + strings.Repeat(" ", 80) + "- item", "a\n- item"},
		{strings.Repeat("- ", 40) + "x", strings.Repeat("- ", 32) + "x"},
		{strings.Repeat("1. ", 40) + "x\n", strings.Repeat("1. ", 32) + "x\n"},
	}
	for _, c := range cases {
		got, changed := tameNesting(c.in)
		if got != c.want || changed != (c.in != c.want) {
			t.Errorf("tameNesting(%q) = %q, %v; want %q", c.in, got, changed, c.want)
		}
	}
}

// TestDeepMarkdownIsFlattened: goldmark's block parser works per nesting
// level on every line; without the bounds this input takes minutes.
func TestDeepMarkdownIsFlattened(t *testing.T) {
	var sb strings.Builder
	for i := range 3000 {
		sb.WriteString(strings.Repeat("  ", i) + "- item\n")
	}
	sb.WriteString(strings.Repeat(">", 100000) + " quoted\n")
	doc := mustParse(t, "deep.md", []byte(sb.String()))
	if len(doc.Warnings) != 1 || !strings.Contains(doc.Warnings[0], "flattened") {
		t.Errorf("warnings %q", doc.Warnings)
	}
	var all strings.Builder
	for _, b := range doc.Blocks {
		all.WriteString(b.Text)
	}
	if strings.Count(all.String(), "item") != 3000 || !strings.Contains(all.String(), "quoted") {
		t.Errorf("content lost while flattening")
	}
}

func TestFrontMatterStripped(t *testing.T) {
	doc := mustParse(t, "post.md", []byte("---\ntitle: \"Release notes\"\ndate: 2025-01-01\n---\n# v2\n\nNew things.\n"))
	if doc.Title != "Release notes" {
		t.Errorf("title %q", doc.Title)
	}
	assertBlocks(t, doc, []string{"heading:1:v2", "paragraph:New things. @ v2"})
	// A document opening with a rule but no closing one is left alone.
	doc = mustParse(t, "rule.md", []byte("---\nJust text.\n"))
	assertBlocks(t, doc, []string{"paragraph:Just text."})
}
