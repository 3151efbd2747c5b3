package data

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// parseXLSX reads every sheet with cell content; each one's header is its
// first non-empty row. Sheets without any content are skipped (no phantom
// columns, seed 000); when all are, the workbook has no data.
func parseXLSX(name string, data []byte, maxBytes int64) (*parsed, error) {
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		UnzipSizeLimit:    4 * maxBytes,
		UnzipXMLSizeLimit: 2 * maxBytes,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable workbook: %w", name, err)
	}
	defer f.Close()
	date1904 := false
	if props, err := f.GetWorkbookProps(); err == nil && props.Date1904 != nil {
		date1904 = *props.Date1904
	}
	p := &parsed{name: name, format: "XLSX", workbook: true}
	var empty []string
	list := f.GetSheetList()
	for _, sh := range list {
		// Raw values: numbers as stored, not as their display format
		// rounds or groups them.
		rows, err := f.GetRows(sh, excelize.Options{RawCellValue: true})
		if err != nil {
			p.notes = append(p.notes, fmt.Sprintf("sheet %q: unreadable, skipped: %v", sh, err))
			continue
		}
		head, body, numbers := splitHeader(rows)
		if head < 0 {
			empty = append(empty, sh)
			continue
		}
		s := sheet{name: sh, header: rows[head], rows: body}
		convertDates(f, sh, s, numbers, date1904)
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

// splitHeader finds the first non-empty row (-1 if none) and returns the
// non-empty rows after it with their sheet row numbers (1-based).
func splitHeader(rows [][]string) (int, [][]string, []int) {
	head := -1
	var body [][]string
	var numbers []int
	for i, r := range rows {
		switch {
		case blank(r):
		case head < 0:
			head = i
		default:
			body = append(body, r)
			numbers = append(numbers, i+1)
		}
	}
	return head, body, numbers
}

// convertDates turns into ISO dates, in place, the serials of the columns
// whose first value below the header is a cell in a date format: a raw
// date cell is only a number of days.
func convertDates(f *excelize.File, sh string, s sheet, numbers []int, date1904 bool) {
	width := len(s.header)
	for _, r := range s.rows {
		width = max(width, len(r))
	}
	for c := range width {
		isDate := false
		for i, r := range s.rows {
			if c < len(r) && strings.TrimSpace(r[c]) != "" {
				isDate = isDateCell(f, sh, c+1, numbers[i])
				break
			}
		}
		if !isDate {
			continue
		}
		for _, r := range s.rows {
			if c < len(r) {
				r[c] = serialToISO(r[c], date1904)
			}
		}
	}
}

// isDateCell reports whether the cell at col, row (1-based) has a date
// number format.
func isDateCell(f *excelize.File, sh string, col, row int) bool {
	cell, err := excelize.CoordinatesToCellName(col, row)
	if err != nil {
		return false
	}
	idx, err := f.GetCellStyle(sh, cell)
	if err != nil {
		return false
	}
	st, err := f.GetStyle(idx)
	if err != nil || st == nil {
		return false
	}
	return isDateFormat(st.NumFmt, st.CustomNumFmt)
}

// isDateFormat recognises the built-in date formats (14–22, 45–47) and
// custom ones that show a year, a month with a day, or an hour.
func isDateFormat(id int, custom *string) bool {
	if (id >= 14 && id <= 22) || (id >= 45 && id <= 47) {
		return true
	}
	if custom == nil {
		return false
	}
	code := strings.ToLower(stripQuoted(*custom))
	return strings.Contains(code, "yy") || (strings.Contains(code, "d") && strings.Contains(code, "m")) || strings.Contains(code, "h")
}

// stripQuoted drops the literal text of a number format ("Total: "0).
func stripQuoted(code string) string {
	var b strings.Builder
	quoted := false
	for _, r := range code {
		switch {
		case r == '"':
			quoted = !quoted
		case !quoted:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// serialToISO writes an Excel date serial as YYYY-MM-DD, with the time
// when it has one; anything else is kept.
func serialToISO(v string, date1904 bool) string {
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return v
	}
	t, err := excelize.ExcelDateToTime(n, date1904)
	if err != nil {
		return v
	}
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02 15:04:05")
}

func quoteAll(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return q
}
