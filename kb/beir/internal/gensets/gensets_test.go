package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoffText(t *testing.T) {
	tests := []struct{ in, want string }{
		{`\fBls\fR \- list directory contents`, "ls - list directory contents"},
		{`zum Herunterladen \(:uber das \f(CWHTTP\fP`, "zum Herunterladen über das HTTP"},
		{`le fichier \('a \(Fo\ cat\ \(Fc`, "le fichier á « cat »"},
		{`\s-1SMALL\s0 and \s+2big\s0`, "SMALL and big"},
		{`it\(aqs \[u00E9]t\['e]`, "it's été"},
		{`text \" a comment`, "text "},
	}
	for _, tt := range tests {
		if got := roffText(tt.in); got != tt.want {
			t.Errorf("roffText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRoffLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{`.BR ls (1)`, "ls(1)"},
		{`.B "two words"`, "two words"},
		{`.IP "\(bu" 4`, "•"},
		{`.PP`, ""},
		{`.\" a comment`, ""},
		{`plain text`, "plain text"},
	}
	for _, tt := range tests {
		if got := roffLine(tt.in); got != tt.want {
			t.Errorf("roffLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func writeGz(t *testing.T, path, text string) {
	t.Helper()
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(text))
	z.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

const lsPage = `.TH LS 1
.SH NAME
ls \- list directory contents
.SH SYNOPSIS
.B ls
[\fIOPTION\fR]
.SH DESCRIPTION
.\" not shown
List information about the FILEs (the current directory by default).
Sort entries alphabetically if none of
.B \-cftuvSUX
nor
.B \-\-sort
is specified, which is what most users want when they list the files of a directory.
.SH AUTHOR
Someone.
`

func TestManSet(t *testing.T) {
	root := t.TempDir()
	writeGz(t, filepath.Join(root, "man1", "ls.1.gz"), lsPage)
	writeGz(t, filepath.Join(root, "man1", "dir.1.gz"), strings.Replace(lsPage, "ls \\-", "dir \\-", 1)) // same NAME text, same description: one document
	writeGz(t, filepath.Join(root, "man1", "link.1.gz"), ".so man1/ls.1\n")
	writeGz(t, filepath.Join(root, "man1", "mdoc.1.gz"), ".Dd today\n.Sh NAME\n")
	st, err := manSet(root, []string{"man1", "man9"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.docs) != 1 || len(st.queries) != 1 {
		t.Fatalf("%d documents, %d queries; want 1 and 1: %+v", len(st.docs), len(st.queries), st)
	}
	d, q := st.docs[0], st.queries[0]
	if q.Text != "list directory contents" || d.Title != "dir" || !strings.HasPrefix(d.Text, "List information about the FILEs") ||
		!strings.Contains(d.Text, "none of -cftuvSUX nor --sort is specified") || strings.Contains(d.Text, "Someone") || strings.Contains(d.Text, "not shown") {
		t.Errorf("query %q, document %+v", q.Text, d)
	}
	if got := st.qrels[q.ID]; len(got) != 1 || got[0] != d.ID {
		t.Errorf("qrels %v", got)
	}
}

func TestCommentSections(t *testing.T) {
	src := "// Package p does things.\n//\n// # First heading\n//\n" + strings.Repeat("// words of the first section here\n", 4) +
		"// # Second\n// too short\npackage p\n"
	got := commentSections("x/p", src)
	if len(got) != 2 || got[0].query != "First heading" || got[0].doc.Title != "x/p" || !strings.HasPrefix(got[0].doc.Text, "words of the first") {
		t.Fatalf("got %+v", got)
	}
	if got[1].query != "" {
		t.Errorf("a section of two words gave query %q, want it left out", got[1].query)
	}
}

// TestWriteIsDeterministic writes one set twice: the same bytes.
func TestWriteIsDeterministic(t *testing.T) {
	st := judged([]pair{
		{query: "b query", doc: doc{Title: "t", Text: "first text"}},
		{query: "a query", doc: doc{Title: "t", Text: "second text"}},
		{doc: doc{Title: "t", Text: "a distractor"}},
	}, "d")
	st.readme = "readme\n"
	a, b := t.TempDir(), t.TempDir()
	if err := st.write(a); err != nil {
		t.Fatal(err)
	}
	if err := st.write(b); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "README.md"} {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s differs or is empty", name)
		}
	}
	q, _ := os.ReadFile(filepath.Join(a, "qrels/test.tsv"))
	if want := "query-id\tcorpus-id\tscore\nq00001\td00001\t1\nq00002\td00002\t1\n"; string(q) != want {
		t.Errorf("qrels %q, want %q", q, want)
	}
}
