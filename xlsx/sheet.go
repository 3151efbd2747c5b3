package xlsx

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// sheet reads the rows of one worksheet part.
func (r *reader) sheet(name string, sst []string, styles *styleSheet) ([]Row, error) {
	var rows []Row
	var cur *Row
	nextRow := 1
	nextCol := 0
	err := r.decode(name, func(d *xml.Decoder, se xml.StartElement) error {
		switch se.Name.Local {
		case "row":
			num := nextRow
			if v := attr(se, "r"); v != "" {
				n, ok := atoiRow(v)
				if !ok {
					return fmt.Errorf("%w: row number %q", ErrNotWorkbook, v)
				}
				num = n
			}
			if len(rows) > 0 && num <= rows[len(rows)-1].Num {
				return fmt.Errorf("%w: row %d after row %d", ErrNotWorkbook, num, rows[len(rows)-1].Num)
			}
			rows = append(rows, Row{Num: num})
			cur = &rows[len(rows)-1]
			nextRow, nextCol = num+1, 0
		case "c":
			if cur == nil {
				return fmt.Errorf("%w: cell outside a row", ErrNotWorkbook)
			}
			col := nextCol
			if ref := attr(se, "r"); ref != "" {
				if col = colIndex(ref); col < 0 {
					return fmt.Errorf("%w: cell reference %q", ErrNotWorkbook, ref)
				}
			}
			if col < len(cur.Cells) {
				return fmt.Errorf("%w: row %d: cell %s repeated or out of order", ErrNotWorkbook, cur.Num, attr(se, "r"))
			}
			c, err := r.cell(d, se, sst, styles)
			if err != nil {
				return fmt.Errorf("row %d: %w", cur.Num, err)
			}
			nextCol = col + 1
			if c.Kind == Empty {
				return nil
			}
			if grow := col + 1 - len(cur.Cells); grow > 0 {
				r.cells += grow
				if r.cells > r.lim.Cells {
					return fmt.Errorf("%w: more than %d cells", ErrTooLarge, r.lim.Cells)
				}
				cur.Cells = append(cur.Cells, make([]Cell, grow)...)
			}
			cur.Cells[col] = c
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Rows with no value (styled, or holding only empty cells) are not
	// rows of the data.
	kept := rows[:0]
	for _, row := range rows {
		if len(row.Cells) > 0 {
			kept = append(kept, row)
		}
	}
	return kept, nil
}

// cell reads the <c> element just started.
func (r *reader) cell(d *xml.Decoder, se xml.StartElement, sst []string, styles *styleSheet) (Cell, error) {
	typ := attr(se, "t")
	var v, inline string
	hasV, hasInline := false, false
	for depth := 1; depth > 0; {
		tok, err := d.RawToken()
		if err != nil {
			return Cell{}, fmt.Errorf("%w: %w", ErrNotWorkbook, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "v":
				if v, err = text(d, false); err != nil {
					return Cell{}, fmt.Errorf("%w: %w", ErrNotWorkbook, err)
				}
				hasV = true
			case "is":
				if inline, err = text(d, true); err != nil {
					return Cell{}, fmt.Errorf("%w: %w", ErrNotWorkbook, err)
				}
				hasInline = true
			default:
				depth++ // <f> and the like: their text is skipped
			}
		case xml.EndElement:
			depth--
		}
	}
	switch typ {
	case "inlineStr":
		if !hasInline {
			return Cell{}, nil
		}
		return Cell{Value: inline, Kind: String}, nil
	case "s":
		if !hasV {
			return Cell{}, nil
		}
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 || i >= len(sst) {
			return Cell{}, fmt.Errorf("%w: cell %s: shared string %q of %d", ErrNotWorkbook, attr(se, "r"), v, len(sst))
		}
		return Cell{Value: sst[i], Kind: String}, nil
	case "str":
		return Cell{Value: v, Kind: String}, nil
	case "b":
		if !hasV {
			return Cell{}, nil
		}
		b := strings.TrimSpace(v)
		if b == "1" || strings.EqualFold(b, "true") {
			return Cell{Value: "TRUE", Kind: Bool}, nil
		}
		return Cell{Value: "FALSE", Kind: Bool}, nil
	case "e":
		return Cell{Value: v, Kind: Error}, nil
	case "d":
		if !hasV {
			return Cell{}, nil
		}
		return Cell{Value: strings.TrimSpace(v), Kind: Date}, nil
	}
	v = strings.TrimSpace(v)
	if v == "" {
		if hasInline { // an inline string without its type attribute
			return Cell{Value: inline, Kind: String}, nil
		}
		return Cell{}, nil
	}
	if _, err := strconv.ParseFloat(v, 64); err != nil {
		return Cell{}, fmt.Errorf("%w: cell %s: number %q", ErrNotWorkbook, attr(se, "r"), v)
	}
	c := Cell{Value: v, Kind: Number}
	if s := attr(se, "s"); s != "" && styles != nil {
		if i, err := strconv.Atoi(s); err == nil {
			c.DateFormat = styles.isDate(i)
		}
	}
	return c, nil
}

// Texts is the sheet's rows as text (Cell.Text), one slice a row with
// values; Rows[i].Num is the sheet row of the i-th.
func (s Sheet) Texts(date1904 bool) [][]string {
	out := make([][]string, len(s.Rows))
	for i, row := range s.Rows {
		out[i] = make([]string, len(row.Cells))
		for j, c := range row.Cells {
			out[i][j] = c.Text(date1904)
		}
	}
	return out
}
