package data

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// SheetColumn is the column that says which sheet of a workbook a row came
// from.
const SheetColumn = "__sheet_name"

// reserved are SQL keywords a column is likely to be named after; such a
// name gets a trailing underscore so that the model can write it without
// quotes.
var reserved = map[string]bool{
	"all": true, "and": true, "as": true, "asc": true, "between": true, "by": true, "case": true,
	"cast": true, "check": true, "collate": true, "column": true, "create": true, "cross": true,
	"default": true, "delete": true, "desc": true, "distinct": true, "drop": true, "else": true,
	"end": true, "except": true, "exists": true, "from": true, "group": true, "having": true,
	"in": true, "index": true, "inner": true, "insert": true, "intersect": true, "into": true,
	"is": true, "join": true, "key": true, "left": true, "like": true, "limit": true, "natural": true,
	"not": true, "null": true, "offset": true, "on": true, "or": true, "order": true, "outer": true,
	"primary": true, "references": true, "right": true, "select": true, "set": true, "table": true,
	"then": true, "to": true, "union": true, "unique": true, "update": true, "using": true,
	"values": true, "when": true, "where": true, "with": true,
}

// normalizeName turns a header into a column name the model can write
// unquoted: accents dropped, lowercase, every run of other characters
// than letters and digits made one "_", no leading digit, not a keyword.
// pos (1-based) names a column whose header has nothing left.
func normalizeName(header string, pos int) string {
	var b strings.Builder
	gap := false
	for _, r := range norm.NFD.String(header) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// A combining accent: "é" is "e" + U+0301.
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			gap = false
			b.WriteRune(unicode.ToLower(r))
		default:
			gap = true
		}
	}
	name := norm.NFC.String(b.String())
	switch {
	case name == "":
		return fmt.Sprintf("column_%d", pos)
	case unicode.IsDigit([]rune(name)[0]):
		return "c_" + name
	case reserved[name]:
		return name + "_"
	}
	return name
}

// namer gives the columns of one sheet distinct names; SheetColumn is
// taken from the start.
type namer struct {
	used map[string]bool
	// next is the next suffix to try for a base name, so that a thousand
	// "Total" headers do not try a million names.
	next map[string]int
}

func newNamer() *namer {
	return &namer{used: map[string]bool{SheetColumn: true}, next: map[string]int{}}
}

// name normalises header and makes it unique with a numeric suffix.
func (n *namer) name(header string, pos int) string {
	base := normalizeName(header, pos)
	name := base
	for n.used[name] {
		i := max(n.next[base], 2)
		n.next[base] = i + 1
		name = fmt.Sprintf("%s_%d", base, i)
	}
	n.used[name] = true
	return name
}
