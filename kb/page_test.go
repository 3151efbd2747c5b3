package kb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/chunk"
	"github.com/moteur/moteur/kb/parse/pdftest"
)

// pagedPDF is a PDF whose page i (1-based) says texts[i-1].
func pagedPDF(texts ...string) []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	var kids []string
	for _, text := range texts {
		content := fmt.Sprintf("BT /F1 12 Tf 72 700 Td (%s) Tj ET", text)
		objs = append(objs, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", len(objs)))
		kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(texts))
	return pdftest.Objects(objs, "")
}

func TestPDFChunksStoreTheirPage(t *testing.T) {
	s := openTest(t, Config{})
	mustCreate(t, s, "docs", CreateOptions{Chunking: chunk.Config{Size: 100, Overlap: -1}})
	dir := t.TempDir()
	long := strings.Repeat("Lorem ipsum dolor sit amet. ", 3)
	path := filepath.Join(dir, "manual.pdf")
	if err := os.WriteFile(path, pagedPDF("Cover", "First "+long, "Second "+long), 0o644); err != nil {
		t.Fatal(err)
	}
	mustIngest(t, s, "docs", path)
	rows, err := s.r.QueryContext(context.Background(), `SELECT page, text FROM kb_chunks ORDER BY idx`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var page int
		var text string
		if err := rows.Scan(&page, &text); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(text, " ")
		got = append(got, fmt.Sprintf("%d:%s", page, first))
	}
	if want := "1:Cover 2:First 3:Second"; strings.Join(got, " ") != want {
		t.Errorf("chunks %q, want %q", strings.Join(got, " "), want)
	}
	var meta string
	if err := s.r.QueryRow(`SELECT meta FROM kb_documents`).Scan(&meta); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(meta, "page_blocks") || !strings.Contains(meta, `"pages":"3"`) {
		t.Errorf("stored meta %s: want the page count and not the page starts", meta)
	}
}

func TestMigrationAddsChunkPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, Config{Path: path})
	// Back to the first schema, as a database written by an older Moteur.
	if _, err := s.w.Exec(`ALTER TABLE kb_documents DROP COLUMN language; ALTER TABLE kb_chunks DROP COLUMN page; DELETE FROM kb_migrations WHERE version > 1`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTest(t, Config{Path: path})
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM pragma_table_info('kb_chunks') WHERE name = 'page'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("page column after migration: %d, %v", n, err)
	}
}
