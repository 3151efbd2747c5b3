package chunk

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/moteur/moteur/kb/parse"
)

func md(t testing.TB, src string) parse.Document {
	t.Helper()
	doc, err := parse.Bytes("doc.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func para(text string, path ...string) parse.Block {
	return parse.Block{Kind: parse.Paragraph, Text: text, Headings: path}
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// checkInvariants holds for every Split result: consecutive indexes, no
// empty chunk, nothing over size, known kinds, non-decreasing starts.
func checkInvariants(t testing.TB, chunks []Chunk, size int) {
	t.Helper()
	for i, c := range chunks {
		if c.Index != i {
			t.Fatalf("chunk %d has Index %d", i, c.Index)
		}
		if strings.TrimSpace(c.Text) == "" {
			t.Fatalf("chunk %d is empty", i)
		}
		if n := runeLen(c.Text); n > size {
			t.Fatalf("chunk %d has %d runes > size %d:\n%s", i, n, size, c.Text)
		}
		if c.Kind != KindText && c.Kind != KindCode && c.Kind != KindTable {
			t.Fatalf("chunk %d has kind %q", i, c.Kind)
		}
		if i > 0 && c.Start < chunks[i-1].Start {
			t.Fatalf("chunk %d starts at %d, before chunk %d at %d", i, c.Start, i-1, chunks[i-1].Start)
		}
	}
}

func texts(chunks []Chunk) []string {
	var out []string
	for _, c := range chunks {
		out = append(out, c.Text)
	}
	return out
}

func TestHeadingsAreBoundariesAndTopTheirChunk(t *testing.T) {
	doc := md(t, "Preamble.\n\n# A\n\nAlpha.\n\n## B\n\nBeta.\n\n### C\n\nGamma.\n\n## D\n\nDelta.\n")
	chunks := Split(doc, Config{})
	checkInvariants(t, chunks, DefaultSize)
	want := []Chunk{
		{Index: 0, Text: "Preamble.", Kind: KindText, Start: 0},
		{Index: 1, Text: "# A\n\nAlpha.", Headings: []string{"A"}, Kind: KindText, Start: 9},
		{Index: 2, Text: "## B\n\nBeta.", Headings: []string{"A", "B"}, Kind: KindText, Start: 16},
		{Index: 3, Text: "### C\n\nGamma.", Headings: []string{"A", "B", "C"}, Kind: KindText, Start: 22},
		{Index: 4, Text: "## D\n\nDelta.", Headings: []string{"A", "D"}, Kind: KindText, Start: 29},
	}
	if !reflect.DeepEqual(chunks, want) {
		t.Errorf("chunks:\n got %+v\nwant %+v", chunks, want)
	}
}

func TestHeadingsWithoutBodyJoinTheNextSection(t *testing.T) {
	chunks := Split(md(t, "# Book\n\n## Part\n\nText.\n\n## Empty end\n"), Config{})
	want := []string{"# Book\n\n## Part\n\nText.", "## Empty end"}
	if got := texts(chunks); !reflect.DeepEqual(got, want) {
		t.Errorf("texts %q, want %q", got, want)
	}
	if got := chunks[0].Headings; !reflect.DeepEqual(got, []string{"Book", "Part"}) {
		t.Errorf("headings %q", got)
	}
}

func TestSmallParagraphsArePacked(t *testing.T) {
	var blocks []parse.Block
	for i := range 12 {
		p := fmt.Sprintf("Paragraph number %02d has exactly fifty runes.......", i)
		if runeLen(p) != 50 {
			t.Fatalf("fixture has %d runes", runeLen(p))
		}
		blocks = append(blocks, para(p))
	}
	chunks := Split(parse.Document{Blocks: blocks}, Config{Size: 200, Overlap: -1})
	checkInvariants(t, chunks, 200)
	// 3 paragraphs of 50 runes + 2 separators of 2 = 154 ≤ 200 < 206.
	if len(chunks) != 4 {
		t.Fatalf("%d chunks, want 4: %q", len(chunks), texts(chunks))
	}
	for _, c := range chunks {
		if n := strings.Count(c.Text, "Paragraph number"); n != 3 {
			t.Errorf("chunk %d packs %d paragraphs, want 3", c.Index, n)
		}
	}
	if chunks[1].Start != 150 {
		t.Errorf("second chunk starts at %d, want 150", chunks[1].Start)
	}
}

func TestPackedChunksOverlap(t *testing.T) {
	var blocks []parse.Block
	for i := range 6 {
		blocks = append(blocks, para(fmt.Sprintf("Block %d says something short here and then stops.", i)))
	}
	chunks := Split(parse.Document{Blocks: blocks}, Config{Size: 140, Overlap: 30})
	checkInvariants(t, chunks, 140)
	if len(chunks) < 2 {
		t.Fatalf("want several chunks, got %q", texts(chunks))
	}
	for i := 1; i < len(chunks); i++ {
		ov := assertOverlap(t, chunks[i-1].Text, chunks[i].Text, 30)
		if !strings.HasPrefix(chunks[i].Text, ov+"\n\n") {
			t.Errorf("chunk %d: overlap %q not followed by the next block", i, ov)
		}
	}
}

// assertOverlap checks that next starts with a suffix of prev of at most
// max runes that begins at a word boundary, and returns it.
func assertOverlap(t *testing.T, prev, next string, max int) string {
	t.Helper()
	best := ""
	for i := range prev {
		if suffix := prev[i:]; strings.HasPrefix(next, suffix) {
			best = suffix
			break
		}
	}
	if best == "" {
		t.Fatalf("no overlap between\n%q\nand\n%q", prev, next)
	}
	if n := runeLen(best); n > max {
		t.Errorf("overlap %q has %d runes > %d", best, n, max)
	}
	before, _ := utf8.DecodeLastRuneInString(strings.TrimSuffix(prev, best))
	first, _ := utf8.DecodeRuneInString(best)
	if !unicode.IsSpace(before) || unicode.IsSpace(first) {
		t.Errorf("overlap %q does not start at a word boundary of %q", best, prev)
	}
	return best
}

func sentences(n int) string {
	var sb strings.Builder
	for i := range n {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "Sentence %d tells a small fact about topic %d!", i, i%7)
	}
	return sb.String()
}

func TestLongParagraphCutAtSentencesWithOverlap(t *testing.T) {
	text := sentences(60) // about 2800 runes
	doc := parse.Document{Blocks: []parse.Block{para(text)}}
	chunks := Split(doc, Config{Size: 400, Overlap: 80})
	checkInvariants(t, chunks, 400)
	if len(chunks) < 7 {
		t.Fatalf("%d chunks for %d runes", len(chunks), runeLen(text))
	}
	rebuilt := chunks[0].Text
	for i, c := range chunks {
		if i < len(chunks)-1 && !strings.HasSuffix(c.Text, "!") {
			t.Errorf("chunk %d does not end at a sentence: %q", i, c.Text)
		}
		if i == 0 {
			continue
		}
		ov := assertOverlap(t, chunks[i-1].Text, c.Text, 80)
		// Start points at the overlap's position in the paragraph.
		if want := strings.Index(text, c.Text); c.Start != utf8.RuneCountInString(text[:want]) {
			t.Errorf("chunk %d Start %d, text found at rune %d", i, c.Start, want)
		}
		rebuilt += " " + strings.TrimPrefix(c.Text, ov)
	}
	if strings.Join(strings.Fields(rebuilt), " ") != text {
		t.Errorf("chunks minus overlaps do not rebuild the paragraph")
	}
}

func TestLongParagraphWithoutSentencesCutBetweenWords(t *testing.T) {
	words := strings.Fields(strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing elit ", 40))
	text := strings.Join(words, " ")
	vocab := map[string]bool{}
	for _, w := range words {
		vocab[w] = true
	}
	chunks := Split(parse.Document{Blocks: []parse.Block{para(text)}}, Config{Size: 150, Overlap: -1})
	checkInvariants(t, chunks, 150)
	for _, c := range chunks {
		for _, w := range strings.Fields(c.Text) {
			if !vocab[w] {
				t.Fatalf("chunk %d cuts inside a word: %q", c.Index, w)
			}
		}
	}
	if got := strings.Join(strings.Fields(strings.Join(texts(chunks), " ")), " "); got != text {
		t.Errorf("without overlap the chunks must rebuild the text exactly")
	}
}

func TestWordLongerThanSizeIsCut(t *testing.T) {
	word := strings.Repeat("x", 2500)
	chunks := Split(parse.Document{Blocks: []parse.Block{para("short " + word + " tail")}}, Config{})
	checkInvariants(t, chunks, DefaultSize)
	total := 0
	for _, c := range chunks {
		total += strings.Count(c.Text, "x")
	}
	if total < 2500 {
		t.Errorf("lost part of the long word: %d of 2500", total)
	}
}

func TestTableChunksRepeatHeader(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("# Inventory\n\n## Parts\n\n| Part | Count | Note |\n|---|---|---|\n")
	for i := range 60 {
		fmt.Fprintf(&sb, "| part-%02d | %d | some note text |\n", i, i*3)
	}
	chunks := Split(md(t, sb.String()), Config{Size: 300})
	checkInvariants(t, chunks, 300)
	if len(chunks) < 5 {
		t.Fatalf("%d chunks, want the table cut", len(chunks))
	}
	seen := map[string]int{}
	for i, c := range chunks {
		if c.Kind != KindTable || !reflect.DeepEqual(c.Headings, []string{"Inventory", "Parts"}) {
			t.Errorf("chunk %d kind %q headings %q", i, c.Kind, c.Headings)
		}
		head := "## Parts\n\n| Part | Count | Note |\n| --- | --- | --- |\n"
		if i == 0 {
			head = "# Inventory\n\n" + head
		}
		if !strings.HasPrefix(c.Text, head) {
			t.Errorf("chunk %d does not start with the heading and header:\n%s", i, c.Text)
		}
		for _, line := range strings.Split(strings.TrimPrefix(c.Text, head), "\n") {
			seen[line]++
		}
	}
	for i := range 60 {
		if row := fmt.Sprintf("| part-%02d | %d | some note text |", i, i*3); seen[row] != 1 {
			t.Errorf("row %q appears %d times", row, seen[row])
		}
	}
}

func TestCodeNotMergedWithProse(t *testing.T) {
	doc := md(t, "# Use\n\nCall it:\n\n```go\nx := f()\n```\n\n```go\ny := g()\n```\n\nThen check.\n")
	chunks := Split(doc, Config{})
	var kinds []string
	for _, c := range chunks {
		kinds = append(kinds, c.Kind+":"+c.Text)
	}
	want := []string{"text:# Use\n\nCall it:", "code:x := f()\n\ny := g()", "text:Then check."}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("got %q\nwant %q", kinds, want)
	}
}

func TestSectionStartingWithCodeKeepsHeading(t *testing.T) {
	chunks := Split(md(t, "## Build\n\n```\nmake all\n```\n"), Config{})
	if len(chunks) != 1 || chunks[0].Kind != KindCode || chunks[0].Text != "## Build\n\nmake all" {
		t.Errorf("chunks %+v", chunks)
	}
}

func TestLongCodeCutOnLines(t *testing.T) {
	var lines []string
	for i := range 200 {
		lines = append(lines, fmt.Sprintf("\tvalue%03d := compute(%d) // step", i, i))
	}
	src := "func big() {\n" + strings.Join(lines, "\n") + "\n}"
	doc := parse.Document{Blocks: []parse.Block{{Kind: parse.Code, Text: src}}}
	chunks := Split(doc, Config{Size: 500})
	checkInvariants(t, chunks, 500)
	srcLines := map[string]bool{}
	for _, l := range strings.Split(src, "\n") {
		srcLines[l] = true
	}
	var all []string
	for _, c := range chunks {
		if c.Kind != KindCode {
			t.Errorf("chunk %d kind %q", c.Index, c.Kind)
		}
		for _, l := range strings.Split(c.Text, "\n") {
			if !srcLines[l] {
				t.Fatalf("chunk %d holds a partial line %q", c.Index, l)
			}
			all = append(all, l)
		}
	}
	if strings.Join(all, "\n") != src {
		t.Errorf("code chunks do not rebuild the source in order")
	}
}

func TestNothingOverSizeOnMixedDocument(t *testing.T) {
	var sb strings.Builder
	for s := range 5 {
		fmt.Fprintf(&sb, "# Section %d\n\n%s\n\n", s, sentences(5+s*10))
		sb.WriteString("```\n" + strings.Repeat("code line that is rather long indeed\n", 15*s) + "```\n\n")
		sb.WriteString("| a | b |\n|---|---|\n" + strings.Repeat("| cell text | "+strings.Repeat("y", 120)+" |\n", 3*s) + "\n")
		sb.WriteString("- item one\n- item two " + sentences(s) + "\n\n")
	}
	doc := md(t, sb.String())
	for _, cfg := range []Config{{Size: 100, Overlap: 20}, {Size: 157, Overlap: 50}, {Size: 333}, {}, {Size: 20000}} {
		size, _ := cfg.clamped()
		chunks := Split(doc, cfg)
		checkInvariants(t, chunks, size)
		checkCoverage(t, doc, chunks, size)
	}
}

func TestDefaults(t *testing.T) {
	doc := parse.Document{Blocks: []parse.Block{para(sentences(80))}}
	chunks := Split(doc, Config{})
	checkInvariants(t, chunks, DefaultSize)
	if len(chunks) < 3 || runeLen(chunks[0].Text) < DefaultSize/2 {
		t.Fatalf("default size not applied: %d chunks, first %d runes", len(chunks), runeLen(chunks[0].Text))
	}
	for i := 1; i < len(chunks); i++ {
		assertOverlap(t, chunks[i-1].Text, chunks[i].Text, DefaultOverlap)
	}
}

func TestNegativeOverlapDisablesIt(t *testing.T) {
	text := sentences(30)
	chunks := Split(parse.Document{Blocks: []parse.Block{para(text)}}, Config{Size: 300, Overlap: -1})
	joined := strings.Join(texts(chunks), " ")
	if joined != text {
		t.Errorf("without overlap the pieces must tile the paragraph exactly")
	}
}

func TestDeterministic(t *testing.T) {
	doc := md(t, "# T\n\n"+sentences(50)+"\n\n| a |\n|---|\n| b |\n")
	if a, b := Split(doc, Config{Size: 250}), Split(doc, Config{Size: 250}); !reflect.DeepEqual(a, b) {
		t.Error("two runs differ")
	}
}

func TestEmptyDocumentGivesNoChunks(t *testing.T) {
	doc := parse.Document{Blocks: []parse.Block{para("   "), {Kind: parse.Code, Text: "\n\n"}, {Kind: parse.Table}}}
	if chunks := Split(doc, Config{}); len(chunks) != 0 {
		t.Errorf("chunks %q, want none", texts(chunks))
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		cfg  Config
		want string // "" when valid, else a word the error must contain
	}{
		{Config{}, ""},
		{Config{Size: 100, Overlap: 49}, ""},
		{Config{Size: 20000, Overlap: -5}, ""},
		{Config{Size: 99}, "size 99"},
		{Config{Size: 20001}, "size 20001"},
		{Config{Size: -1}, "size -1"},
		{Config{Size: 100, Overlap: 50}, "overlap 50"},
		{Config{Size: 150}, "overlap 100"}, // the default overlap no longer fits
	}
	for _, c := range cases {
		err := c.cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want one about %q", c.cfg, err, c.want)
		}
	}
}

func TestResolved(t *testing.T) {
	for _, c := range []struct{ in, want Config }{
		{Config{}, Config{Size: DefaultSize, Overlap: DefaultOverlap}},
		{Config{Size: 500, Overlap: -1}, Config{Size: 500, Overlap: -1}},
		{Config{Size: 500, Overlap: 50}, Config{Size: 500, Overlap: 50}},
	} {
		if got := c.in.Resolved(); got != c.want {
			t.Errorf("%+v.Resolved() = %+v, want %+v", c.in, got, c.want)
		}
		// Resolving changes nothing Split does.
		if a, b := c.in.Resolved().Resolved(), c.in.Resolved(); a != b {
			t.Errorf("Resolved is not idempotent: %+v then %+v", b, a)
		}
	}
}
