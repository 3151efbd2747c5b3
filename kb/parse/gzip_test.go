package parse

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"
)

// gzipped compresses the chunks, written one after the other.
func gzipped(t *testing.T, chunks ...[]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chunks {
		if _, err := zw.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGzipDocumentParsedByItsInnerExtension(t *testing.T) {
	md := []byte("# Congés\n\nTrente jours ouvrables par an.\n")
	doc := mustParse(t, "notes.md.gz", gzipped(t, md))
	if doc.Format != "markdown" || doc.Title != "Congés" || doc.Meta["compression"] != "gzip" {
		t.Errorf("format %q, title %q, meta %v; want the Markdown inside", doc.Format, doc.Title, doc.Meta)
	}
	assertBlocks(t, doc, []string{"heading:1:Congés", "paragraph:Trente jours ouvrables par an. @ Congés"})

	html := []byte("<html><head><title>Page</title></head><body><p>Le texte.</p></body></html>")
	if doc := mustParse(t, "page.HTML.GZ", gzipped(t, html)); doc.Format != "html" || doc.Title != "Page" {
		t.Errorf("page.HTML.GZ: format %q, title %q", doc.Format, doc.Title)
	}
	// No inner extension: the content says what it is; the title is the
	// name without .gz.
	if doc := mustParse(t, "README.gz", gzipped(t, []byte("Plain words.\n"))); doc.Format != "text" || doc.Title != "README" {
		t.Errorf("README.gz: format %q, title %q", doc.Format, doc.Title)
	}
}

func TestGzipBombRefused(t *testing.T) {
	// One byte more than the limit, in 1 MiB pieces: a few hundred KiB
	// compressed.
	piece := bytes.Repeat([]byte("a"), 1<<20)
	chunks := make([][]byte, 0, MaxDecompressedBytes>>20+1)
	for range MaxDecompressedBytes >> 20 {
		chunks = append(chunks, piece)
	}
	bomb := gzipped(t, append(chunks, []byte("a"))...)
	if int64(len(bomb)) > DefaultMaxBytes/64 {
		t.Fatalf("the bomb is %d bytes compressed: not a bomb", len(bomb))
	}
	_, err := Bytes("bomb.txt.gz", bomb)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "decompresses to more than 64.0 MiB") {
		t.Fatalf("a gzip bomb: %v; want ErrTooLarge saying the bound", err)
	}
	// At the limit exactly, the same text is read.
	doc, err := Bytes("big.txt.gz", gzipped(t, chunks...))
	if err != nil || doc.Format != "text" {
		t.Fatalf("a document of exactly the limit: %v", err)
	}
}

func TestGzipBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want error
		says string
	}{
		{"plain.md.gz", []byte("# not compressed\n"), ErrCorrupt, "not gzip data"},
		{"cut.md.gz", gzipped(t, bytes.Repeat([]byte("mot "), 1000))[:40], ErrCorrupt, "cut short"},
		{"twice.md.gz.gz", gzipped(t, gzipped(t, []byte("x"))), ErrUnsupported, "compressed twice"},
		{"site.tar.gz", gzipped(t, []byte("x")), ErrUnsupported, "tar archive"},
		{"empty.txt.gz", gzipped(t, []byte("  \n")), ErrEmpty, "no content"},
		{"image.png.gz", gzipped(t, []byte("\x89PNG\r\n\x1a\n\x00\x00")), ErrUnsupported, "PNG image"},
	} {
		_, err := Bytes(tc.name, tc.data)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: %v; want %v saying %q and naming the file", tc.name, err, tc.want, tc.says)
		}
	}
}
