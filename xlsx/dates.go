package xlsx

import (
	"encoding/xml"
	"math"
	"strconv"
	"strings"
	"time"
)

// A number's format decides whether it is a date: styles.xml lists the
// cell formats (cellXfs), each naming a number format, built-in by its id
// or custom by its code.

type styleSheet struct {
	custom map[int]string // numFmtId → format code
	xfs    []int          // cell format index → numFmtId
}

func (r *reader) styles(name string) (*styleSheet, error) {
	st := &styleSheet{custom: map[int]string{}}
	inXfs := false
	err := r.decode(name, func(d *xml.Decoder, se xml.StartElement) error {
		switch se.Name.Local {
		case "numFmt":
			if id, err := strconv.Atoi(attr(se, "numFmtId")); err == nil {
				st.custom[id] = attr(se, "formatCode")
			}
		case "cellXfs":
			inXfs = true
		case "cellStyleXfs", "dxfs":
			inXfs = false
		case "xf":
			if inXfs {
				id, _ := strconv.Atoi(attr(se, "numFmtId"))
				st.xfs = append(st.xfs, id)
			}
		}
		return nil
	})
	return st, err
}

// isDate tells whether cell format xf shows a date or a time.
func (s *styleSheet) isDate(xf int) bool {
	if xf < 0 || xf >= len(s.xfs) {
		return false
	}
	id := s.xfs[xf]
	code, ok := s.custom[id]
	if !ok {
		return (id >= 14 && id <= 22) || (id >= 45 && id <= 47)
	}
	return IsDateFormat(code)
}

// IsDateFormat tells whether a number format code shows a date or a time:
// once its literal text ("…", \x), colours and locales ([Red], [$-409])
// are dropped, it names a year, a day with a month, or an hour.
func IsDateFormat(code string) bool {
	var b strings.Builder
	quoted, bracket := false, false
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case quoted:
			quoted = c != '"'
		case c == '"':
			quoted = true
		case c == '\\':
			i++
		case bracket:
			// Elapsed time, [h]:mm, is a time.
			if c == 'h' || c == 'H' {
				b.WriteByte('h')
			}
			bracket = c != ']'
		case c == '[':
			bracket = true
		default:
			b.WriteByte(c | 0x20) // ASCII lower case; other bytes do not matter
		}
	}
	f := b.String()
	return strings.Contains(f, "yy") || (strings.Contains(f, "d") && strings.Contains(f, "m")) || strings.Contains(f, "h")
}

// SerialTime is the time of a date serial: days since 1899-12-30 (the
// 1900 system, whose fictitious 1900-02-29 is serial 60) or since
// 1904-01-01, the fraction being the time of day, rounded to the second.
func SerialTime(serial float64, date1904 bool) (time.Time, bool) {
	if math.IsNaN(serial) || serial < 0 || serial > 2958465 { // 9999-12-31
		return time.Time{}, false
	}
	base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	switch {
	case date1904:
		base = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	case serial < 61:
		base = time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC)
	}
	days := math.Floor(serial)
	secs := math.Round((serial - days) * 86400)
	return base.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second), true
}

// ISODate writes a serial as YYYY-MM-DD, with the time of day when it has
// one; a value that is no serial comes back unchanged.
func ISODate(v string, date1904 bool) string {
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return v
	}
	t, ok := SerialTime(n, date1904)
	if !ok {
		return v
	}
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02 15:04:05")
}

// Text is the cell as a reader sees it: dates in ISO form, anything else
// its Value.
func (c Cell) Text(date1904 bool) string {
	if c.Kind == Number && c.DateFormat {
		return ISODate(c.Value, date1904)
	}
	return c.Value
}
