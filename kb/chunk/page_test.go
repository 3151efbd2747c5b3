package chunk

import (
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/parse"
)

func TestChunksCarryTheirPage(t *testing.T) {
	long := strings.Repeat("A sentence that fills the page. ", 12)
	doc := parse.Document{
		Blocks: []parse.Block{para("Page one, alone."), para(long), para(long), para("Back matter. " + long)},
		Meta:   map[string]string{parse.MetaPageBlocks: "0 1 3 3"}, // page 3 has no text: it starts where page 4 does
	}
	chunks := Split(doc, Config{Size: 400, Overlap: -1})
	var got []int
	for _, c := range chunks {
		got = append(got, c.Page)
	}
	// Block 0 is page 1, blocks 1 and 2 page 2, block 3 page 4: a chunk
	// is on the page where it starts.
	want := []int{1, 2, 2, 4}
	if len(chunks) != len(want) {
		t.Fatalf("%d chunks %q, want %d", len(chunks), texts(chunks), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pages %v, want %v (chunks %q)", got, want, texts(chunks))
			break
		}
	}
}

func TestChunksWithoutPagesHavePageZero(t *testing.T) {
	for _, c := range Split(md(t, "# T\n\nSome text."), Config{}) {
		if c.Page != 0 {
			t.Errorf("chunk %d: page %d, want 0 for a document without pages", c.Index, c.Page)
		}
	}
}
