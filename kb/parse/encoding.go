package parse

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

var (
	utf8BOM    = []byte{0xEF, 0xBB, 0xBF}
	utf16LEBOM = []byte{0xFF, 0xFE}
	utf16BEBOM = []byte{0xFE, 0xFF}
)

const warnWindows1252 = "not UTF-8: decoded as Windows-1252"

func hasUTF16BOM(data []byte) bool {
	return bytes.HasPrefix(data, utf16LEBOM) || bytes.HasPrefix(data, utf16BEBOM)
}

// DecodeText turns the bytes of a text-like file into UTF-8 with "\n" line
// ends. A UTF-8 BOM is dropped and UTF-16 with a BOM is decoded. Anything
// else that is not valid UTF-8 is read as Windows-1252: it is what legacy
// Western files almost always are, and it maps every byte, so the text
// survives (with a warning) instead of being refused.
func DecodeText(data []byte) (string, []string) {
	var warnings []string
	switch {
	case bytes.HasPrefix(data, utf8BOM):
		data = data[len(utf8BOM):]
	case bytes.HasPrefix(data, utf16LEBOM):
		data = decodeUTF16(data, unicode.LittleEndian)
	case bytes.HasPrefix(data, utf16BEBOM):
		data = decodeUTF16(data, unicode.BigEndian)
	}
	if !utf8.Valid(data) {
		var warning string
		data, warning = decodeInvalidUTF8(data)
		warnings = append(warnings, warning)
	}
	return normalizeNewlines(string(data)), warnings
}

// decodeInvalidUTF8 decides between a UTF-8 file with a few damaged bytes
// (kept as UTF-8, damage replaced by U+FFFD) and a legacy 8-bit file
// (decoded as Windows-1252): UTF-8 wins when it has more well-formed
// multi-byte characters than invalid bytes.
func decodeInvalidUTF8(data []byte) ([]byte, string) {
	multi, invalid := 0, 0
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			invalid++
		case n > 1:
			multi++
		}
		i += n
	}
	if multi > invalid {
		return bytes.ToValidUTF8(data, []byte("\uFFFD")), fmt.Sprintf("invalid UTF-8: %d bad bytes replaced by U+FFFD", invalid)
	}
	dec, err := charmap.Windows1252.NewDecoder().Bytes(data)
	if err != nil {
		return bytes.ToValidUTF8(data, []byte("\uFFFD")), "not UTF-8: undecodable bytes replaced by U+FFFD"
	}
	return dec, warnWindows1252
}

func decodeUTF16(data []byte, order unicode.Endianness) []byte {
	dec, err := unicode.UTF16(order, unicode.ExpectBOM).NewDecoder().Bytes(data)
	if err != nil {
		// Cannot happen with a BOM present (bad units become U+FFFD),
		// but keep the bytes rather than lose the file.
		return data
	}
	return dec
}

// normalizeNewlines turns CRLF and lone CR into LF so that paragraph
// splitting sees one kind of line end.
func normalizeNewlines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}
