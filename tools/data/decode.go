package data

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// decodeText turns delimited text into UTF-8: a UTF-8 BOM is dropped,
// UTF-16 with a BOM decoded, and text that is not UTF-8 read as
// Windows-1252 (what legacy spreadsheets export), with a note.
func decodeText(data []byte) (string, []string) {
	var notes []string
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		data = decodeUTF16(data, unicode.LittleEndian)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		data = decodeUTF16(data, unicode.BigEndian)
	}
	if !utf8.Valid(data) {
		if dec, err := charmap.Windows1252.NewDecoder().Bytes(data); err == nil {
			data = dec
			notes = append(notes, "the file is not UTF-8: read as Windows-1252")
		} else {
			data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
			notes = append(notes, "the file is not UTF-8: undecodable bytes replaced by U+FFFD")
		}
	}
	return string(data), notes
}

func decodeUTF16(data []byte, order unicode.Endianness) []byte {
	dec, err := unicode.UTF16(order, unicode.ExpectBOM).NewDecoder().Bytes(data)
	if err != nil {
		return data // cannot happen with a BOM; keep the bytes rather than lose them
	}
	return dec
}

// delimiters are the candidates for sniffing, preferred in this order on a
// tie.
var delimiters = []rune{',', ';', '\t', '|'}

// sniffDelimiter picks the candidate found the same non-zero number of
// times, outside quotes, on the most of the first lines.
func sniffDelimiter(text string) rune {
	var lines []string
	for l := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if lines = append(lines, l); len(lines) == 10 {
			break
		}
	}
	best, bestScore := delimiters[0], 0
	for _, d := range delimiters {
		counts := map[int]int{}
		for _, l := range lines {
			if n := countUnquoted(l, d); n > 0 {
				counts[n]++
			}
		}
		for n, agreeing := range counts {
			if score := agreeing*1000 + n; score > bestScore {
				best, bestScore = d, score
			}
		}
	}
	return best
}

func countUnquoted(line string, d rune) int {
	n, quoted := 0, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted = !quoted
		case r == d && !quoted:
			n++
		}
	}
	return n
}
