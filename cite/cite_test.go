package cite

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestAliasesArePerKindAndStable(t *testing.T) {
	tb := NewTable()
	c1 := tb.Alias(Ref{Kind: Chunk, ID: "d-1-0"})
	d1 := tb.Alias(Ref{Kind: Document, ID: "d-1"})
	c2 := tb.Alias(Ref{Kind: Chunk, ID: "d-1-1"})
	again := tb.Alias(Ref{Kind: Chunk, ID: "d-1-0", Score: 0.9})
	if c1 != "c1" || d1 != "d1" || c2 != "c2" || again != "c1" {
		t.Fatalf("aliases %s %s %s %s, want c1 d1 c2 c1", c1, d1, c2, again)
	}
	r, ok := tb.Resolve("c1")
	if !ok || r.ID != "d-1-0" || r.Score != 0.9 || r.Alias != "c1" {
		t.Fatalf("Resolve(c1) = %+v, %v", r, ok)
	}
	if _, ok := tb.Resolve("c9"); ok {
		t.Fatal("an unknown alias resolved")
	}
}

func TestAddContinuesNumbering(t *testing.T) {
	tb := NewTable()
	tb.Add(Ref{Alias: "c7", Kind: Chunk, ID: "x"}, Ref{Alias: "bogus", Kind: Chunk, ID: "y"}, Ref{Alias: "d2", Kind: Document, ID: "z"})
	if a := tb.Alias(Ref{Kind: Chunk, ID: "x"}); a != "c7" {
		t.Fatalf("restored ref got %s, want c7", a)
	}
	if a := tb.Alias(Ref{Kind: Chunk, ID: "new"}); a != "c8" {
		t.Fatalf("next chunk alias %s, want c8", a)
	}
	if _, ok := tb.Resolve("bogus"); ok {
		t.Fatal("a malformed alias was recorded")
	}
}

func TestFindCitations(t *testing.T) {
	text := "Le délai est de 30 jours [c3]. Voir aussi [c1, c3; d2] et [c12][b1]. Pas [x4] ni [c] ni c5."
	if got, want := Find(text), []string{"c3", "c1", "d2", "c12", "b1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Find = %v, want %v", got, want)
	}
	tb := NewTable()
	tb.Add(Ref{Alias: "c3", Kind: Chunk, ID: "chunk-3", Title: "Congés"})
	cits := tb.Citations(text)
	if len(cits) != 1 || cits[0].ID != "chunk-3" {
		t.Fatalf("Citations = %+v, want only the known c3", cits)
	}
}

func TestConcurrentAliases(t *testing.T) {
	tb := NewTable()
	var wg sync.WaitGroup
	got := make([]string, 50)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = tb.Alias(Ref{Kind: Chunk, ID: string(rune('A' + i))})
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, a := range got {
		if seen[a] {
			t.Fatalf("alias %s given twice", a)
		}
		seen[a] = true
	}
}

func TestTableInContext(t *testing.T) {
	if _, ok := TableFrom(context.Background()); ok {
		t.Fatal("a table found in an empty context")
	}
	tb := NewTable()
	if got, ok := TableFrom(WithTable(context.Background(), tb)); !ok || got != tb {
		t.Fatal("table not carried by the context")
	}
}

// A web page is shown by its URL.
func TestWhereShowsFilePageAndSection(t *testing.T) {
	for _, c := range []struct {
		ref  Ref
		want string
	}{
		{Ref{Path: "/usr/share/doc/libtasn1.pdf", Page: 12}, "libtasn1.pdf p. 12"},
		{Ref{Path: "/d/libtasn1.pdf", Page: 3, Headings: "4 Functions"}, "libtasn1.pdf p. 3 › 4 Functions"},
		{Ref{Path: "notes.md", Headings: "A > B"}, "notes.md › A > B"},
		{Ref{Path: "notes.md"}, "notes.md"},
		{Ref{Kind: Web, Path: "https://www.service-public.fr/particuliers/conges"}, "https://www.service-public.fr/particuliers/conges"},
	} {
		if got := c.ref.Where(); got != c.want {
			t.Errorf("Where(%+v) = %q, want %q", c.ref, got, c.want)
		}
	}
}

// Web pages get wN aliases in the same table, are cited and restored like
// passages, and are found by their URL.
func TestWebAliases(t *testing.T) {
	tab := NewTable()
	page := Ref{Kind: Web, ID: "https://example.org/a", Path: "https://example.org/a", Title: "A"}
	if a := tab.Alias(page); a != "w1" {
		t.Fatalf("first page alias %q, want w1", a)
	}
	if r, ok := tab.Lookup(Web, page.ID); !ok || r.Alias != "w1" || r.Title != "A" {
		t.Errorf("Lookup = %+v, %v", r, ok)
	}
	if got := Find("Selon [w1] et [c2, w3]."); strings.Join(got, " ") != "w1 c2 w3" {
		t.Errorf("Find = %v, want w1 c2 w3", got)
	}
	again := NewTable()
	again.Add(tab.Refs()...)
	if a := again.Alias(Ref{Kind: Web, ID: "https://example.org/b"}); a != "w2" {
		t.Errorf("after a restore the next page is %q, want w2", a)
	}
}
