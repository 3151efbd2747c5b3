package parse

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// parser turns the raw bytes of one format into a Document.
type parser func(data []byte) (Document, error)

// format is one entry of the extension table.
type format struct {
	name  string // Document.Format
	parse parser
	text  bool // text-like: decoded as characters, refused when the bytes look binary
}

var (
	textFormat     = format{"text", parseText, true}
	markdownFormat = format{"markdown", parseMarkdownBytes, true}
	htmlFormat     = format{"html", parseHTML, true}
	jsonFormat     = format{"json", parseJSON, true}
	pdfFormat      = format{"pdf", parsePDF, false}
	docxFormat     = format{"docx", parseDOCX, false}
	xlsxFormat     = format{"xlsx", parseXLSX, false}
)

// byExt maps a lower-case extension to its format; code extensions are
// added from the language table in code.go.
var byExt = func() map[string]format {
	m := map[string]format{
		".txt":      textFormat,
		".text":     textFormat,
		".log":      textFormat,
		".md":       markdownFormat,
		".markdown": markdownFormat,
		".mdown":    markdownFormat,
		".html":     htmlFormat,
		".htm":      htmlFormat,
		".xhtml":    htmlFormat,
		".pdf":      pdfFormat,
		".docx":     docxFormat,
		".xlsx":     xlsxFormat,
		".xlsm":     xlsxFormat,
		".csv":      {"csv", func(b []byte) (Document, error) { return parseCSV(b, 0) }, true},
		".tsv":      {"csv", func(b []byte) (Document, error) { return parseCSV(b, '\t') }, true},
		".json":     jsonFormat,
		".jsonl":    {"json", parseJSONL, true},
		".ndjson":   {"json", parseJSONL, true},
	}
	for ext, lang := range codeLanguages {
		m[ext] = format{"code", codeParser(lang), true}
	}
	return m
}()

// Formats lists the supported file extensions (with the dot), sorted, for
// messages such as "supported: .csv, .docx, …".
func Formats() []string {
	exts := make([]string, 0, len(byExt))
	for ext := range byExt {
		exts = append(exts, ext)
	}
	slices.Sort(exts)
	return exts
}

// detect picks the format: a container magic (OLE, PDF, DOCX/XLSX zip) is
// trusted over a text extension because such bytes are never text; then
// the extension; then the content.
func detect(name string, data []byte) (string, parser, error) {
	ext := strings.ToLower(filepath.Ext(name))
	if bytes.HasPrefix(data, oleMagic) {
		return "", nil, oleError(ext, data)
	}
	f, known := byExt[ext]
	if known && !f.text {
		// The format's own parser says precisely what is wrong when the
		// content does not match the extension.
		return f.name, f.parse, nil
	}
	if c, ok := containerFormat(data); ok {
		return c.name, c.parse, nil
	}
	if kind := binaryKind(data); kind != "" {
		return "", nil, fmt.Errorf("%w: binary file (%s)", ErrUnsupported, kind)
	}
	if known {
		return f.name, f.parse, nil
	}
	f = sniffText(data)
	return f.name, f.parse, nil
}

var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// oleError explains an OLE compound file. Office stores password-protected
// DOCX/XLSX files as OLE containers holding an "EncryptionInfo" stream
// (its directory name is UTF-16LE); other OLE files are legacy .doc/.xls.
func oleError(ext string, data []byte) error {
	if bytes.Contains(data, utf16LE("EncryptionInfo")) {
		label := strings.ToUpper(strings.TrimPrefix(ext, "."))
		if label == "" {
			label = "Office document"
		}
		return fmt.Errorf("%w %s: password-protected Office file (OLE container with EncryptionInfo); remove the password and save it again", ErrEncrypted, label)
	}
	return fmt.Errorf("%w: legacy Office binary file (OLE compound document such as .doc, .xls or .ppt); save it as .docx or .xlsx", ErrUnsupported)
}

func utf16LE(s string) []byte {
	b := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		b = append(b, s[i], 0)
	}
	return b
}

// containerFormat recognises PDF and Office Open XML by their bytes.
func containerFormat(data []byte) (format, bool) {
	if bytes.HasPrefix(data, []byte("%PDF-")) {
		return pdfFormat, true
	}
	if !bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return format{}, false
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return format{}, false
	}
	for _, f := range zr.File {
		switch f.Name {
		case "word/document.xml":
			return docxFormat, true
		case "xl/workbook.xml":
			return xlsxFormat, true
		}
	}
	return format{}, false
}

// binaryMagics are prefixes of common non-text files, with a name for the
// error message. Each holds a byte that text never starts with (a control
// or non-UTF-8 byte) or is too specific to open a text by chance.
var binaryMagics = []struct {
	prefix string
	kind   string
}{
	{"\x89PNG\r\n\x1a\n", "PNG image"},
	{"\xFF\xD8\xFF", "JPEG image"},
	{"GIF87a", "GIF image"},
	{"GIF89a", "GIF image"},
	{"\x7FELF", "ELF executable"},
	{"PK\x03\x04", "zip archive"},
	{"PK\x05\x06", "zip archive"},
	{"\x1F\x8B", "gzip archive"},
	{"7z\xBC\xAF\x27\x1C", "7-Zip archive"},
	{"Rar!\x1A\x07", "RAR archive"},
	{"\x00asm", "WebAssembly module"},
	{"\xCF\xFA\xED\xFE", "Mach-O executable"},
	{"\xCE\xFA\xED\xFE", "Mach-O executable"},
	{"ID3\x03", "MP3 audio"},
	{"ID3\x04", "MP3 audio"},
	{"\x00\x00\x01\x00", "icon"},
}

// sniffLen is how much of the start is inspected for NUL bytes.
const sniffLen = 8 << 10

// binaryKind names the kind of binary file data is, or returns "" for text.
// A NUL byte in the first 8 KiB means binary, except in UTF-16 text (which
// is full of NULs and announced by its byte-order mark).
func binaryKind(data []byte) string {
	for _, m := range binaryMagics {
		if bytes.HasPrefix(data, []byte(m.prefix)) {
			return m.kind
		}
	}
	if hasUTF16BOM(data) {
		return ""
	}
	if bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		return "NUL bytes in content"
	}
	return ""
}

// sniffText chooses among the text formats for a file whose extension
// says nothing: HTML by its opening tag, JSON when the whole content
// parses, plain text otherwise.
func sniffText(data []byte) format {
	text, _ := DecodeText(data)
	head := strings.ToLower(strings.TrimLeft(text[:min(len(text), 512)], " \t\r\n"))
	switch {
	case strings.HasPrefix(head, "<!doctype html"), strings.HasPrefix(head, "<html"):
		return htmlFormat
	case strings.HasPrefix(head, "{"), strings.HasPrefix(head, "["):
		if json.Valid([]byte(text)) {
			return jsonFormat
		}
	}
	return textFormat
}
