package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

const mdSample = "# Title\n\nSome *emph*, **strong**, `code x`, ~~gone~~ and a [link](https://example.com/a).\n" +
	"Soft break.  \nHard break.\n\n## Sub\n\n- one\n- two\n  1. three\n  2. four\n- five\n\n> quoted **text**\n\n" +
	"```go\nfunc main() {\n\tprintln(1)\n}\n```\n\n---\n\n| name | n |\n|:--|--:|\n| x | 1 |\n| long | 22 |\n"

func TestMarkdownASCIIBlocks(t *testing.T) {
	got := (&markdown{style: "ascii"}).render(mdSample, 100)
	want := []string{
		"  # Title",
		"",
		"  Some *emph*, **strong**, `code x`, ~~gone~~ and a link (https://example.com/a). Soft break.",
		"  Hard break.",
		"",
		"  ## Sub",
		"",
		"  • one",
		"  • two",
		"    1. three",
		"    2. four",
		"  • five",
		"",
		"  | quoted **text**",
		"",
		"    func main() {",
		"        println(1)",
		"    }",
		"",
		"  --------",
		"",
		"  name |  n",
		"  -----|---",
		"  x    |  1",
		"  long | 22",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMarkdownStyledRunsDoNotLeak(t *testing.T) {
	got := (&markdown{style: "dark"}).render(mdSample, 40)
	joined := strings.Join(got, "\n")
	for _, w := range []string{"\x1b[1mstrong\x1b[m", "\x1b[3memph\x1b[m", "\x1b[9mgone\x1b[m", "─┼─", "\x1b[4;36mlink\x1b[m"} {
		if !strings.Contains(joined, w) {
			t.Errorf("rendering lacks %q:\n%q", w, got)
		}
	}
	if strings.Contains(joined, "**") || strings.Contains(joined, "`") {
		t.Errorf("markers shown in a styled rendering:\n%q", got)
	}
	for _, l := range got {
		if i := strings.LastIndex(l, "\x1b["); i >= 0 && !strings.HasPrefix(l[i:], "\x1b[m") {
			t.Errorf("line does not end its style: %q", l)
		}
	}
}

func TestMarkdownWrapsToWidth(t *testing.T) {
	long := strings.Repeat("word after **bold words** and `some code` then [a link](https://example.com/x) ", 20)
	src := long + "\n\n- " + long + "\n  - " + long + "\n\n> " + long + "\n\n" +
		"| a | b |\n|---|---|\n| " + long + " | " + long + " |\n\n```\n" + strings.Repeat("x", 300) + "\n```\n" +
		strings.Repeat("y", 500) + "\n"
	for _, style := range []string{"ascii", "dark"} {
		for _, width := range []int{12, 20, 33, 60, 100} {
			got := (&markdown{style: style}).render(src, width)
			limit := max(width-2*mdMargin, 10) + mdMargin
			var words int
			for _, l := range got {
				if w := ansi.StringWidth(l); w > limit {
					t.Fatalf("%s at %d: line of %d cells, limit %d: %q", style, width, w, limit, l)
				}
				words += strings.Count(ansi.Strip(l), "after")
			}
			// Six copies of the text, 20 "after" each; below 20 cells the
			// table's columns cut words.
			if width >= 20 && words != 120 {
				t.Errorf("%s at %d: %d words 'after' shown, want 120", style, width, words)
			}
		}
	}
}

func TestMarkdownDeepNestingIsBounded(t *testing.T) {
	for _, src := range []string{
		strings.Repeat("> ", 5000) + "deep",
		func() string {
			var sb strings.Builder
			for i := range 200 {
				sb.WriteString(strings.Repeat("  ", i) + "- level\n")
			}
			return sb.String()
		}(),
	} {
		got := (&markdown{style: "ascii"}).render(src, 80)
		if !strings.Contains(strings.Join(got, "\n"), "deep") && !strings.Contains(strings.Join(got, "\n"), "level") {
			t.Errorf("the nested text was lost: %q", got)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > 78 {
				t.Fatalf("line of %d cells: %q", ansi.StringWidth(l), l)
			}
		}
	}
}

func TestMarkdownWideTableFitsQuickly(t *testing.T) {
	var sb strings.Builder
	for range 2 {
		sb.WriteString("|")
		for range 2000 {
			sb.WriteString(" " + strings.Repeat("x", 300) + " |")
		}
		sb.WriteString("\n")
		if !strings.Contains(sb.String(), "---") {
			sb.WriteString("|" + strings.Repeat("---|", 2000) + "\n")
		}
	}
	got := (&markdown{style: "ascii"}).render(sb.String(), 80)
	for _, l := range got {
		if ansi.StringWidth(l) > 80 {
			t.Fatalf("line of %d cells", ansi.StringWidth(l))
		}
	}
	// Too many columns for the width: each row becomes header: value lines.
	if n := strings.Count(strings.Join(got, "\n"), strings.Repeat("x", 70)); n < 4000 {
		t.Errorf("%d cells shown, want all 4,000 (header and row)", n)
	}
	// A table that fits keeps its columns.
	got = (&markdown{style: "ascii"}).render("| a | b |\n|---|---|\n| "+strings.Repeat("y ", 100)+"| z |\n", 40)
	if !strings.Contains(got[0], "| b") || !strings.Contains(got[2], "| z") {
		t.Errorf("narrowed table: %q", got)
	}
}

func TestFitColumns(t *testing.T) {
	w := []int{10, 50, 3, 40}
	fitColumns(w, 60)
	if sum := w[0] + w[1] + w[2] + w[3]; sum != 60 || w[2] != 3 || w[0] != 10 || w[1]-w[3] > 1 || w[3] > w[1] {
		t.Errorf("widths = %v, want 10, 24, 3, 23: the narrow ones kept, the wide ones cut evenly to fill 60", w)
	}
}
