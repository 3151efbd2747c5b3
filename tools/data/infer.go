package data

import (
	"strconv"
	"strings"
	"time"
)

// kind is a column's inferred type.
type kind int

const (
	kindText kind = iota
	kindInteger
	kindReal
	kindDate
)

// sqlType is the column's declared type; dates are ISO text, which sorts
// and compares as dates and works with SQLite's date functions.
func (k kind) sqlType() string {
	switch k {
	case kindInteger:
		return "INTEGER"
	case kindReal:
		return "REAL"
	}
	return "TEXT"
}

func (k kind) String() string {
	switch k {
	case kindInteger:
		return "INTEGER"
	case kindReal:
		return "REAL"
	case kindDate:
		return "TEXT (ISO date)"
	}
	return "TEXT"
}

// inference watches a column's values and decides its kind: the narrowest
// one every non-empty value fits.
type inference struct {
	values, ints, reals, dates int
	// Slash dates (31/01/2024) are day-first unless a value can only be
	// month-first (01/31/2024); both seen means they are not dates.
	dayFirst, monthFirst bool
	decimalComma         bool
}

func (in *inference) observe(v string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return
	}
	in.values++
	switch {
	case isInteger(v):
		in.ints++
	case isReal(v, in.decimalComma):
		in.reals++
	default:
		if layout, first, second := dateLayout(v); layout != "" {
			in.dates++
			if layout == slashDate {
				in.dayFirst = in.dayFirst || first > 12
				in.monthFirst = in.monthFirst || second > 12
			}
		}
	}
}

func (in *inference) kind() kind {
	switch {
	case in.values == 0:
		return kindText
	case in.ints == in.values:
		return kindInteger
	case in.ints+in.reals == in.values:
		return kindReal
	case in.dates == in.values && !(in.dayFirst && in.monthFirst):
		return kindDate
	}
	return kindText
}

// convert turns a cell into the column's value: nil for an empty cell.
func (in *inference) convert(k kind, v string) any {
	t := strings.TrimSpace(v)
	if t == "" {
		return nil
	}
	switch k {
	case kindInteger:
		n, _ := strconv.ParseInt(t, 10, 64)
		return n
	case kindReal:
		return parseReal(t, in.decimalComma)
	case kindDate:
		return isoDate(t, in.monthFirst && !in.dayFirst)
	}
	return v
}

// isInteger accepts what fits an int64, without leading zeros: "007" is a
// code, kept as text.
func isInteger(v string) bool {
	digits := strings.TrimLeft(v, "+-")
	if len(digits) > 1 && digits[0] == '0' {
		return false
	}
	_, err := strconv.ParseInt(v, 10, 64)
	return err == nil
}

// isReal accepts decimal numbers ("3.14", "1e6", and "3,14" when the
// delimiter is not a comma), not "NaN", "Inf" or hexadecimal.
func isReal(v string, decimalComma bool) bool {
	for _, r := range v {
		if !strings.ContainsRune("0123456789.eE+-,", r) {
			return false
		}
	}
	whole, _, _ := strings.Cut(strings.TrimLeft(v, "+-"), ".")
	if len(whole) > 1 && whole[0] == '0' && whole[1] >= '0' && whole[1] <= '9' {
		return false // "075" is a code
	}
	if strings.ContainsRune(v, ',') && !(decimalComma && strings.Count(v, ",") == 1 && !strings.ContainsRune(v, '.')) {
		return false
	}
	_, err := strconv.ParseFloat(strings.Replace(v, ",", ".", 1), 64)
	return err == nil
}

func parseReal(v string, decimalComma bool) float64 {
	if decimalComma {
		v = strings.Replace(v, ",", ".", 1)
	}
	f, _ := strconv.ParseFloat(v, 64)
	return f
}

// slashDate is the layout of 31/01/2024, whose order the column decides.
const slashDate = "slash"

// isoLayouts are the unambiguous date layouts, with the layout each is
// written back in.
var isoLayouts = []struct{ in, out string }{
	{"2006-01-02", "2006-01-02"},
	{"2006/01/02", "2006-01-02"},
	{"2006-01-02 15:04:05", "2006-01-02 15:04:05"},
	{"2006-01-02 15:04", "2006-01-02 15:04:05"},
	{"2006-01-02T15:04:05", "2006-01-02 15:04:05"},
	{time.RFC3339Nano, time.RFC3339},
}

// dateLayout recognises a date; for a slash date it returns its first two
// numbers, which decide between day-first and month-first.
func dateLayout(v string) (string, int, int) {
	if len(v) < 8 || len(v) > 35 || v[0] < '0' || v[0] > '9' {
		return "", 0, 0
	}
	for _, l := range isoLayouts {
		if _, err := time.Parse(l.in, v); err == nil {
			return l.in, 0, 0
		}
	}
	parts := strings.Split(v, "/")
	if len(parts) != 3 || len(parts[2]) != 4 || len(parts[0]) > 2 || len(parts[1]) > 2 {
		return "", 0, 0
	}
	a, errA := strconv.Atoi(parts[0])
	b, errB := strconv.Atoi(parts[1])
	_, errC := strconv.Atoi(parts[2])
	if errA != nil || errB != nil || errC != nil {
		return "", 0, 0
	}
	if _, err := time.Parse("2/1/2006", v); err != nil {
		if _, err := time.Parse("1/2/2006", v); err != nil {
			return "", 0, 0
		}
	}
	return slashDate, a, b
}

// isoDate writes a recognised date as ISO text.
func isoDate(v string, monthFirst bool) string {
	for _, l := range isoLayouts {
		if t, err := time.Parse(l.in, v); err == nil {
			return t.Format(l.out)
		}
	}
	layout := "2/1/2006"
	if monthFirst {
		layout = "1/2/2006"
	}
	if t, err := time.Parse(layout, v); err == nil {
		return t.Format("2006-01-02")
	}
	return v
}
