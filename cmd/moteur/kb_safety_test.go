package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/parse"
)

// baseNames lists the bases kb list --json shows.
func baseNames(t *testing.T, h *harness) []string {
	t.Helper()
	res := h.run(t, "kb", "list", "--json")
	if res.code != 0 {
		t.Fatalf("kb list: exit %d, stderr %q", res.code, res.stderr)
	}
	var bases []struct {
		Name string `json:"name"`
	}
	decodeOnly(t, res.stdout, &bases)
	names := []string{}
	for _, b := range bases {
		names = append(names, b.Name)
	}
	return names
}

func TestKBRmOfAWholeBaseNeedsYesOffATerminal(t *testing.T) {
	h := newKBHarness(t)
	withBase(t, h, "docs")

	res := h.run(t, "kb", "rm", "docs")
	if res.code != 2 || !strings.Contains(res.stderr, "kb rm would remove knowledge base docs (3 documents, 3 passages): pass --yes") {
		t.Errorf("kb rm without --yes off a terminal: exit %d, stdout %q, stderr %q; want 2 saying what would go and to pass --yes",
			res.code, res.stdout, res.stderr)
	}
	if names := baseNames(t, h); len(names) != 1 || names[0] != "docs" {
		t.Fatalf("after a refused kb rm, the bases are %v; want docs still there", names)
	}
	// A base that does not exist is named as such, --yes or not.
	if res := h.run(t, "kb", "rm", "nope"); res.code != 2 || !strings.Contains(res.stderr, "knowledge base nope not found") {
		t.Errorf("kb rm nope: exit %d, stderr %q", res.code, res.stderr)
	}

	res = h.run(t, "kb", "rm", "docs", "--yes")
	if res.code != 0 || res.stdout != "Removed knowledge base docs.\n" {
		t.Errorf("kb rm --yes: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if names := baseNames(t, h); len(names) != 0 {
		t.Errorf("after kb rm --yes, the bases are %v", names)
	}
}

func TestKBRmAsksOnATerminal(t *testing.T) {
	h := newKBHarness(t)
	withBase(t, h, "docs")
	h.tty = true

	h.stdin = strings.NewReader("n\n")
	res := h.run(t, "kb", "rm", "docs")
	if res.code != 1 || !strings.Contains(res.stderr, "Remove knowledge base docs (3 documents, 3 passages)? The files themselves are not touched. [y/N] ") ||
		!strings.Contains(res.stderr, "knowledge base docs not removed") {
		t.Errorf("answered n: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if names := baseNames(t, h); len(names) != 1 {
		t.Fatalf("answered n, and the bases are %v", names)
	}

	h.stdin = strings.NewReader("oui\n")
	if res := h.run(t, "kb", "rm", "docs"); res.code != 0 || res.stdout != "Removed knowledge base docs.\n" {
		t.Errorf("answered oui: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if names := baseNames(t, h); len(names) != 0 {
		t.Errorf("answered oui, and the bases are %v", names)
	}
}

func TestKBAddOfFoldersWithNoFileFails(t *testing.T) {
	h := newKBHarness(t)
	if res := h.run(t, "kb", "create", "x"); res.code != 0 {
		t.Fatalf("kb create: exit %d, stderr %q", res.code, res.stderr)
	}
	empty := t.TempDir()
	hidden := writeDocs(t, map[string]string{".notes.md": "# Caché\n\nUn fichier caché.\n"})

	res := h.run(t, "kb", "add", "x", empty)
	if res.code != 1 || res.stdout != "" ||
		res.stderr != "moteur: no file to add to x: "+empty+" holds no file (hidden files and folders are skipped)\n" {
		t.Errorf("kb add x EMPTY: exit %d, stdout %q, stderr %q; want 1 and the message alone", res.code, res.stdout, res.stderr)
	}
	res = h.run(t, "kb", "add", "x", empty, hidden, "--json")
	var rep ingestJSON
	decodeOnly(t, res.stdout, &rep)
	if res.code != 1 || len(rep.Files) != 0 || !strings.Contains(res.stderr, empty+", "+hidden+" hold no file") {
		t.Errorf("kb add x EMPTY HIDDEN --json: exit %d, report %+v, stderr %q", res.code, rep, res.stderr)
	}
}

// ingestedSize matches the size and speed of kb add's summary.
var ingestedSize = regexp.MustCompile(` · (\S+ \S+) ingested in \S+ \((\S+) MB/s\)\n`)

func TestKBAddSpeedCountsOnlyTheIngestedBytes(t *testing.T) {
	h := newKBHarness(t)
	dir := writeDocs(t, kbDocs)
	var size int64
	for _, text := range kbDocs {
		size += int64(len(text))
	}
	// 3 MiB refused as binary: read, not ingested.
	binary := append([]byte("\x00\x01binary"), bytes.Repeat([]byte{0}, 3<<20)...)
	if err := os.WriteFile(filepath.Join(dir, "blob.txt"), binary, 0o600); err != nil {
		t.Fatal(err)
	}
	if res := h.run(t, "kb", "create", "docs"); res.code != 0 {
		t.Fatalf("kb create: exit %d, stderr %q", res.code, res.stderr)
	}

	res := h.run(t, "kb", "add", "docs", dir)
	m := ingestedSize.FindStringSubmatch(res.stdout)
	if res.code != 1 || !strings.HasPrefix(res.stdout, "docs: 3 added, 0 updated, 0 unchanged, 1 failed") || m == nil {
		t.Fatalf("kb add: exit %d, stdout:\n%s", res.code, res.stdout)
	}
	if m[1] != humanBytes(size) {
		t.Errorf("summary says %s ingested, want %s (the three documents, not the refused 3 MiB):\n%s", m[1], humanBytes(size), res.stdout)
	}

	// Again: everything unchanged or refused, nothing ingested.
	res = h.run(t, "kb", "add", "docs", dir)
	if m := ingestedSize.FindStringSubmatch(res.stdout); m == nil || m[1] != "0 B" || m[2] != "0.0" {
		t.Errorf("kb add of unchanged files: stdout:\n%s\nwant 0 B ingested at 0.0 MB/s", res.stdout)
	}
}

func TestKBAddReadsGzipCompressedDocuments(t *testing.T) {
	h := newKBHarness(t)
	dir := t.TempDir()
	gz := func(name string, chunks ...[]byte) {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		for _, c := range chunks {
			zw.Write(c)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	gz("astreinte.md.gz", []byte("# Astreinte\n\nL'astreinte du week-end est compensée par une journée de récupération.\n"))
	gz("faq.html.gz", []byte("<html><head><title>FAQ</title></head><body><p>Le badge perdu se déclare à l'accueil.</p></body></html>"))
	mib := bytes.Repeat([]byte("a"), 1<<20)
	var bomb [][]byte
	for range parse.MaxDecompressedBytes>>20 + 1 {
		bomb = append(bomb, mib)
	}
	gz("bomb.txt.gz", bomb...)
	if res := h.run(t, "kb", "create", "docs"); res.code != 0 {
		t.Fatalf("kb create: exit %d, stderr %q", res.code, res.stderr)
	}

	res := h.run(t, "kb", "add", "docs", dir)
	if res.code != 1 || !strings.HasPrefix(res.stdout, "docs: 2 added, 0 updated, 0 unchanged, 1 failed") ||
		!regexp.MustCompile(`(?m)^  failed  \S*bomb\.txt\.gz: .*decompresses to more than 64\.0 MiB .*compression bomb`).MatchString(res.stdout) {
		t.Fatalf("kb add: exit %d, stdout:\n%s\nstderr %q", res.code, res.stdout, res.stderr)
	}
	out := kbSearch(t, h, "docs", "astreinte", "récupération")
	if len(out.Hits) == 0 || out.Hits[0].Title != "Astreinte" || !strings.Contains(out.Hits[0].Text, "journée de récupération") {
		t.Errorf("search of the gzip Markdown: %+v", out.Hits)
	}
	out = kbSearch(t, h, "docs", "badge", "perdu")
	if len(out.Hits) == 0 || out.Hits[0].Title != "FAQ" || filepath.Base(out.Hits[0].Path) != "faq.html.gz" {
		t.Errorf("search of the gzip HTML: %+v", out.Hits)
	}
}
