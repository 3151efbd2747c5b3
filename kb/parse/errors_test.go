package parse

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func expectErr(t *testing.T, name string, data []byte, sentinel error, msgPart string) {
	t.Helper()
	doc, err := Bytes(name, data)
	if !errors.Is(err, sentinel) {
		t.Fatalf("Bytes(%q) = %d blocks, err %v; want %v", name, len(doc.Blocks), err, sentinel)
	}
	if !strings.HasPrefix(err.Error(), "parse: "+name+": ") || !strings.Contains(err.Error(), msgPart) {
		t.Errorf("error %q: want prefix %q and %q", err, "parse: "+name+": ", msgPart)
	}
}

func TestCorruptPDF(t *testing.T) {
	good := helloPDF()
	expectErr(t, "trunc.pdf", good[:len(good)/2], ErrCorrupt, "corrupt PDF")
	expectErr(t, "junk.pdf", []byte("%PDF-1.4\nthis is not a pdf at all\n%%EOF\n"), ErrCorrupt, "corrupt PDF")
	expectErr(t, "notpdf.pdf", []byte("hello"), ErrCorrupt, "corrupt PDF")
	// A valid skeleton whose page tree points at itself must not hang.
	cyclic := pdfObjects([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R] /Count 5 >>"}, "")
	expectErr(t, "cyclic.pdf", cyclic, ErrCorrupt, "no pages")
}

func TestEncryptedPDF(t *testing.T) {
	zeros := "<" + strings.Repeat("00", 32) + ">"
	data := onePagePDF("BT /F1 12 Tf 72 700 Td (secret) Tj ET",
		"/Encrypt << /Filter /Standard /V 1 /R 2 /O "+zeros+" /U "+zeros+" /P -4 >> /ID [<00112233445566778899AABBCCDDEEFF> <00112233445566778899AABBCCDDEEFF>]")
	expectErr(t, "locked.pdf", data, ErrEncrypted, "password")
}

func TestPDFWithoutText(t *testing.T) {
	expectErr(t, "scan.pdf", onePagePDF("0 0 m 100 100 l S", ""), ErrEmpty, "OCR")
}

func TestEncryptedDOCX(t *testing.T) {
	expectErr(t, "secret.docx", oleFile(true), ErrEncrypted, "password-protected")
	expectErr(t, "secret.xlsx", oleFile(true), ErrEncrypted, "XLSX")
	expectErr(t, "noext", oleFile(true), ErrEncrypted, "password-protected")
	expectErr(t, "old.doc", oleFile(false), ErrUnsupported, "legacy Office")
}

func TestCorruptDOCX(t *testing.T) {
	good := sampleDOCX(t)
	expectErr(t, "broken.docx", good[:len(good)/3], ErrCorrupt, "corrupt DOCX")
	noBody := zipFiles(t, map[string]string{"word/other.xml": "<x/>"})
	expectErr(t, "nobody.docx", noBody, ErrCorrupt, "word/document.xml is missing")
	badXML := zipFiles(t, map[string]string{"word/document.xml": "<w:document " + wordNSDecl + "><w:body><w:p>"})
	expectErr(t, "badxml.docx", badXML, ErrCorrupt, "corrupt DOCX")
}

func TestCorruptXLSXAndJSON(t *testing.T) {
	expectErr(t, "book.xlsx", []byte("PK\x03\x04 not really a zip"), ErrCorrupt, "corrupt XLSX")
	expectErr(t, "bad.json", []byte(`{"a": [1, 2}`), ErrCorrupt, "corrupt JSON")
	expectErr(t, "bad.jsonl", []byte("{oops\n[also bad\n"), ErrCorrupt, "line 1")
}

func TestBinaryRefused(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1, 2, 3}, 100)...)
	expectErr(t, "image.png", png, ErrUnsupported, "PNG image")
	expectErr(t, "image.txt", png, ErrUnsupported, "binary file")
	expectErr(t, "a.out", []byte("\x7fELF\x02\x01\x01"), ErrUnsupported, "ELF")
	expectErr(t, "data.bin", []byte("abc\x00def"), ErrUnsupported, "NUL")
	expectErr(t, "archive.zip", zipFiles(t, map[string]string{"a.txt": "x"}), ErrUnsupported, "zip archive")
}

func TestEmpty(t *testing.T) {
	expectErr(t, "empty.txt", nil, ErrEmpty, "empty")
	expectErr(t, "blank.md", []byte(" \n\t\r\n "), ErrEmpty, "empty")
	expectErr(t, "bom.txt", []byte("\xEF\xBB\xBF  \n"), ErrEmpty, "empty")
	expectErr(t, "rule.md", []byte("---\n\n***\n"), ErrEmpty, "no text")
	expectErr(t, "empty.json", []byte("[]"), ErrEmpty, "no text")
}

func TestFileTooLargeIsNotRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: no disk used. If File read it, it would take a GiB of RAM.
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = File(path, Limits{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1.0 GiB") || !strings.Contains(err.Error(), "64.0 MiB") {
		t.Fatalf("err %v, want ErrTooLarge naming sizes", err)
	}
	small := filepath.Join(t.TempDir(), "small.txt")
	if err := os.WriteFile(small, []byte("twelve bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := File(small, Limits{MaxBytes: 11}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("custom limit: err %v, want ErrTooLarge", err)
	}
	if _, err := File(small, Limits{MaxBytes: 12}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}

func TestFileErrors(t *testing.T) {
	_, err := File(filepath.Join(t.TempDir(), "missing.md"), Limits{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "parse: ") {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := File(t.TempDir(), Limits{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("directory: %v, want ErrUnsupported", err)
	}
}

func TestWindows1252(t *testing.T) {
	doc := mustParse(t, "legacy.txt", []byte("caf\xe9 cr\xe8me \x80 5"))
	if got := doc.Blocks[0].Text; got != "café crème € 5" {
		t.Errorf("text %q", got)
	}
	if !slices.Contains(doc.Warnings, "not UTF-8: decoded as Windows-1252") {
		t.Errorf("warnings %q", doc.Warnings)
	}
}

func TestDamagedUTF8StaysUTF8(t *testing.T) {
	doc := mustParse(t, "mostly.txt", []byte("café crème brûlée \xff end"))
	if got := doc.Blocks[0].Text; got != "café crème brûlée \uFFFD end" {
		t.Errorf("text %q", got)
	}
	if len(doc.Warnings) != 1 || !strings.Contains(doc.Warnings[0], "invalid UTF-8") {
		t.Errorf("warnings %q", doc.Warnings)
	}
}

func TestUTF16WithBOM(t *testing.T) {
	le := []byte{0xFF, 0xFE}
	be := []byte{0xFE, 0xFF}
	for _, r := range "# Titre\n\nÉté 🌞" {
		if r > 0xFFFF {
			hi, lo := 0xD800+((r-0x10000)>>10), 0xDC00+((r-0x10000)&0x3FF)
			le = append(le, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
			be = append(be, byte(hi>>8), byte(hi), byte(lo>>8), byte(lo))
			continue
		}
		le = append(le, byte(r), byte(r>>8))
		be = append(be, byte(r>>8), byte(r))
	}
	for name, data := range map[string][]byte{"le.md": le, "be.md": be} {
		doc := mustParse(t, name, data)
		assertBlocks(t, doc, []string{"heading:1:Titre", "paragraph:Été 🌞 @ Titre"})
		if len(doc.Warnings) != 0 {
			t.Errorf("%s: warnings %q", name, doc.Warnings)
		}
	}
}

func TestUTF8BOMStripped(t *testing.T) {
	doc := mustParse(t, "bom.md", []byte("\xEF\xBB\xBF# Title\n"))
	assertBlocks(t, doc, []string{"heading:1:Title"})
}
