package kb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSearchHitAndChunkCarryThePage(t *testing.T) {
	s := openTest(t, Config{})
	mustCreate(t, s, "docs", CreateOptions{})
	path := filepath.Join(t.TempDir(), "manual.pdf")
	if err := os.WriteFile(path, pagedPDF("Cover", "Nothing here", "The zebra section"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustIngest(t, s, "docs", path)
	res := search(t, s, Query{Text: "zebra", Bases: []string{"docs"}})
	if len(res.Hits) == 0 || res.Hits[0].Page != 3 {
		t.Fatalf("hits %+v: want the zebra passage on page 3", res.Hits)
	}
	c, err := s.Chunk(context.Background(), res.Hits[0].Chunk)
	if err != nil || c.Page != 3 {
		t.Fatalf("chunk %+v, %v: want page 3", c, err)
	}
}

func TestIngestReportsPagesOfAPDF(t *testing.T) {
	s := openTest(t, Config{})
	mustCreate(t, s, "docs", CreateOptions{})
	path := filepath.Join(t.TempDir(), "manual.pdf")
	if err := os.WriteFile(path, pagedPDF("One", "Two", "Three"), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls []string
	_, err := s.Ingest(context.Background(), "docs", []string{path}, IngestOptions{Progress: func(p Progress) {
		if p.Parsing != "" {
			calls = append(calls, fmt.Sprintf("%s %d/%d", filepath.Base(p.Parsing), p.PagesDone, p.Pages))
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(calls, ", "); got != "manual.pdf 1/3, manual.pdf 2/3, manual.pdf 3/3" {
		t.Errorf("page progress %q", got)
	}
}
