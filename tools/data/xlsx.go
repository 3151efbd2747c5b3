package data

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/moteur/moteur/xlsx"
)

// parseXLSX reads every sheet with cell content; each one's header is its
// first non-empty row. Sheets without any content are skipped (no phantom
// columns, seed 000); when all are, the workbook has no data.
func parseXLSX(name string, data []byte, maxBytes int64) (*parsed, error) {
	wb, err := xlsx.Read(data, xlsx.Limits{Unzipped: 4 * maxBytes, Part: 2 * maxBytes})
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable workbook: %w", name, err)
	}
	p := &parsed{name: name, format: "XLSX", workbook: true}
	var empty, list []string
	for _, sh := range wb.Sheets {
		list = append(list, sh.Name)
		if sh.Err != nil {
			p.notes = append(p.notes, fmt.Sprintf("sheet %q: unreadable, skipped: %v", sh.Name, sh.Err))
			continue
		}
		head, body, cells := splitHeader(sh)
		if head == nil {
			empty = append(empty, sh.Name)
			continue
		}
		s := sheet{name: sh.Name, header: head, rows: body}
		convertDates(s, cells, wb.Date1904)
		p.sheets = append(p.sheets, s)
	}
	if len(p.sheets) == 0 {
		return nil, fmt.Errorf("%s: %w: every sheet of the workbook is empty (%s)", name, ErrNoData, strings.Join(quoteAll(list), ", "))
	}
	if len(empty) > 0 {
		p.notes = append(p.notes, fmt.Sprintf("empty sheets skipped: %s", strings.Join(quoteAll(empty), ", ")))
	}
	return p, nil
}

// splitHeader finds the first non-empty row (nil if none) and returns the
// non-empty rows after it, as text and as cells. Values are raw: numbers
// as stored, not as their display format rounds or groups them.
func splitHeader(sh xlsx.Sheet) ([]string, [][]string, [][]xlsx.Cell) {
	var head []string
	var body [][]string
	var cells [][]xlsx.Cell
	for _, r := range sh.Rows {
		texts := make([]string, len(r.Cells))
		for i, c := range r.Cells {
			texts[i] = rawValue(c)
		}
		switch {
		case blank(texts):
		case head == nil:
			head = texts
		default:
			body = append(body, texts)
			cells = append(cells, r.Cells)
		}
	}
	return head, body, cells
}

// convertDates turns into ISO dates, in place, the serials of the columns
// whose first value below the header is a cell in a date format: a raw
// date cell is only a number of days.
func convertDates(s sheet, cells [][]xlsx.Cell, date1904 bool) {
	width := len(s.header)
	for _, r := range s.rows {
		width = max(width, len(r))
	}
	for c := range width {
		isDate := false
		for i, r := range s.rows {
			if c < len(r) && strings.TrimSpace(r[c]) != "" {
				isDate = cells[i][c].Kind == xlsx.Number && cells[i][c].DateFormat
				break
			}
		}
		if !isDate {
			continue
		}
		for _, r := range s.rows {
			if c < len(r) {
				r[c] = xlsx.ISODate(r[c], date1904)
			}
		}
	}
}

// rawValue is a cell as SQL reads it: booleans as 1 and 0, so that a
// column of them is a column of integers.
func rawValue(c xlsx.Cell) string {
	if c.Kind == xlsx.Bool {
		if c.Value == "TRUE" {
			return "1"
		}
		return "0"
	}
	return c.Value
}

func quoteAll(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return q
}
