package parse

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// MaxDecompressedBytes bounds what a gzip-compressed document may expand
// to. Gzip reaches ratios of about 1000:1, so a file well within the size
// limit could otherwise fill memory (a "zip bomb").
const MaxDecompressedBytes = DefaultMaxBytes

// gzipInner returns the name of the document a gzip-compressed file holds
// (notes.md for notes.md.gz) and whether name is one.
func gzipInner(name string) (string, bool) {
	ext := filepath.Ext(name)
	if !strings.EqualFold(ext, ".gz") {
		return "", false
	}
	return strings.TrimSuffix(name, ext), true
}

// parseGzip decompresses data, at most MaxDecompressedBytes of it, and
// parses the result as the document inner names (its extension chooses
// the format). Compressed archives are refused: they hold several files.
func parseGzip(inner string, data []byte) (Document, error) {
	switch ext := strings.ToLower(filepath.Ext(inner)); ext {
	case ".tar":
		return Document{}, fmt.Errorf("%w: a compressed tar archive holds several files: extract it and add the folder", ErrUnsupported)
	case ".gz":
		return Document{}, fmt.Errorf("%w: compressed twice (%s.gz): decompress it once first", ErrUnsupported, filepath.Base(inner))
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return Document{}, fmt.Errorf("%w: not gzip data, though the name ends in .gz: %v", ErrCorrupt, err)
	}
	text, err := io.ReadAll(io.LimitReader(zr, MaxDecompressedBytes+1))
	if err != nil {
		return Document{}, fmt.Errorf("%w: gzip data cut short or damaged: %v", ErrCorrupt, err)
	}
	if int64(len(text)) > MaxDecompressedBytes {
		return Document{}, fmt.Errorf("%w: decompresses to more than %s (from %s compressed): refused, as a compression bomb would be",
			ErrTooLarge, humanBytes(MaxDecompressedBytes), humanBytes(int64(len(data))))
	}
	doc, err := parseBytes(inner, text)
	if err != nil {
		return Document{}, err
	}
	if doc.Meta == nil {
		doc.Meta = map[string]string{}
	}
	doc.Meta["compression"] = "gzip"
	return doc, nil
}
