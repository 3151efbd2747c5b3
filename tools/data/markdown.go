package data

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxCell is the number of runes a table cell shows.
const maxCell = 200

// table writes rows as a Markdown table within budget runes; it returns
// the number of rows it wrote (at least one when there are any).
func table(b *strings.Builder, columns []string, rows [][]any, budget int) int {
	start := b.Len()
	b.WriteString("|")
	for _, c := range columns {
		b.WriteString(" " + cell(c) + " |")
	}
	b.WriteString("\n|")
	b.WriteString(strings.Repeat("---|", len(columns)))
	b.WriteString("\n")
	used := utf8.RuneCountInString(b.String()[start:])
	for i, r := range rows {
		var line strings.Builder
		line.WriteString("|")
		for _, v := range r {
			line.WriteString(" " + cell(format(v)) + " |")
		}
		line.WriteString("\n")
		n := utf8.RuneCountInString(line.String())
		if i > 0 && used+n > budget {
			return i
		}
		b.WriteString(line.String())
		used += n
	}
	return len(rows)
}

// format writes a value as the model should read it.
func format(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', 1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []byte:
		if utf8.Valid(x) {
			return string(x)
		}
		return fmt.Sprintf("<%d bytes>", len(x))
	case time.Time:
		return x.Format(time.RFC3339)
	}
	return fmt.Sprint(v)
}

// cell makes text fit one table cell.
func cell(s string) string {
	s = strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	if utf8.RuneCountInString(s) > maxCell {
		s = string([]rune(s)[:maxCell]) + "…"
	}
	return s
}
