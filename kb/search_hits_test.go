package kb

import (
	"context"
	"testing"
)

// A search over two bases names each hit's base as the document's own
// record does: the hits are read without kbs, their base taken from the
// bases searched.
func TestSearchHitsNameTheirBase(t *testing.T) {
	s := openTest(t, Config{})
	ctx := context.Background()
	mustCreate(t, s, "alpha", CreateOptions{})
	mustCreate(t, s, "beta", CreateOptions{Analyzer: AnalyzerMoteur})
	addTexts(t, s, "alpha", []Text{{Key: "a", Title: "Archive", Body: "The archive server keeps every nightly backup for a month."}})
	addTexts(t, s, "beta", []Text{{Key: "b", Title: "Restore", Body: "Restoring a backup from the archive takes an hour."}})
	res := search(t, s, Query{Text: "archive backup", Mode: ModeKeyword})
	if len(res.Hits) != 2 {
		t.Fatalf("hits %s, want one of each base", titles(res.Hits))
	}
	seen := map[string]bool{}
	for _, h := range res.Hits {
		d, err := s.Document(ctx, h.Document)
		if err != nil {
			t.Fatal(err)
		}
		if h.Base != d.Base || h.BaseName != d.BaseName || h.BaseName == "" {
			t.Errorf("hit %s: base %q %q, its document's %q %q", h.Title, h.Base, h.BaseName, d.Base, d.BaseName)
		}
		seen[h.BaseName] = true
	}
	if !seen["alpha"] || !seen["beta"] {
		t.Errorf("bases of the hits %v, want alpha and beta", seen)
	}
}
