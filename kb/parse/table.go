package parse

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/moteur/moteur/xlsx"
)

// csvDelimiters are the candidates for sniffing, in order of preference
// on a tie.
var csvDelimiters = []rune{',', ';', '\t', '|'}

// parseCSV reads delimited text as one table whose header is the first
// row. delim 0 means sniff it from the first lines (Excel in many locales
// writes ';').
func parseCSV(data []byte, delim rune) (Document, error) {
	text, warnings := DecodeText(data)
	if delim == 0 {
		delim = SniffDelimiter(text)
	}
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = delim
	r.FieldsPerRecord = -1 // ragged rows are common and harmless
	r.LazyQuotes = true
	var records [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Document{}, fmt.Errorf("%w CSV: %w", ErrCorrupt, err)
		}
		records = append(records, rec)
	}
	var b builder
	if len(records) > 0 {
		b.table(records[0], records[1:])
	}
	doc := b.document()
	doc.Warnings = warnings
	doc.Meta = map[string]string{"delimiter": string(delim)}
	return doc, nil
}

// SniffDelimiter picks the candidate that appears the same non-zero number
// of times on the most of the first lines, preferring higher counts; quoted
// text is ignored.
func SniffDelimiter(text string) rune {
	lines := firstLines(text, 10)
	best, bestScore := csvDelimiters[0], 0
	for _, d := range csvDelimiters {
		counts := map[int]int{}
		for _, l := range lines {
			if n := countUnquoted(l, d); n > 0 {
				counts[n]++
			}
		}
		for n, lines := range counts {
			// Lines agreeing dominate; the count breaks ties.
			if score := lines*1000 + n; score > bestScore {
				best, bestScore = d, score
			}
		}
	}
	return best
}

func firstLines(text string, n int) []string {
	var lines []string
	for l := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if lines = append(lines, l); len(lines) == n {
			break
		}
	}
	return lines
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

// parseXLSX renders each non-empty sheet as a heading (the sheet name,
// level 1) followed by a table whose header is its first non-empty row.
// Dates are written in ISO form, other values as stored.
func parseXLSX(data []byte) (Document, error) {
	wb, err := xlsx.Read(data, xlsx.Limits{Unzipped: 2 * maxXMLPart, Part: maxXMLPart})
	if err != nil {
		return Document{}, xlsxError(err)
	}
	var b builder
	var warnings, names []string
	for _, sheet := range wb.Sheets {
		names = append(names, sheet.Name)
		if sheet.Err != nil {
			warnings = append(warnings, fmt.Sprintf("sheet %q: unreadable: %v", sheet.Name, sheet.Err))
			continue
		}
		rows := dropEmptyRows(sheet.Texts(wb.Date1904))
		if len(rows) == 0 {
			warnings = append(warnings, fmt.Sprintf("sheet %q: empty", sheet.Name))
			continue
		}
		b.heading(1, sheet.Name)
		b.table(rows[0], rows[1:])
	}
	doc := b.document()
	doc.Title = cleanInline(wb.Title) // the first sheet name is not the workbook's title
	doc.Warnings = warnings
	doc.Meta = map[string]string{"sheets": strings.Join(names, ", ")}
	return doc, nil
}

// xlsxError classifies the reader's errors.
func xlsxError(err error) error {
	if errors.Is(err, xlsx.ErrTooLarge) {
		return fmt.Errorf("%w: XLSX expands beyond %s: %w", ErrTooLarge, humanBytes(2*maxXMLPart), err)
	}
	return fmt.Errorf("%w XLSX: %w", ErrCorrupt, err)
}

func dropEmptyRows(rows [][]string) [][]string {
	kept := rows[:0]
	for _, r := range rows {
		for _, c := range r {
			if strings.TrimSpace(c) != "" {
				kept = append(kept, r)
				break
			}
		}
	}
	return kept
}
