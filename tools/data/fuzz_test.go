package data

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// FuzzNormalizeName checks that any header gives a name the model can write
// unquoted, and that normalising a name again keeps it.
func FuzzNormalizeName(f *testing.F) {
	for _, s := range []string{"", "Name", "Chiffre d'affaires (€)", "2024", "select", "__sheet_name", "été", "a\x00b", "ǅ", "_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		name := normalizeName(header, 7)
		if name == "" || unicode.IsDigit([]rune(name)[0]) || reserved[name] {
			t.Fatalf("normalizeName(%q) = %q", header, name)
		}
		for _, r := range name {
			if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				t.Fatalf("normalizeName(%q) = %q holds %q", header, name, r)
			}
		}
		if again := normalizeName(name, 7); again != name {
			t.Fatalf("normalizeName(%q) = %q, then %q", header, name, again)
		}
	})
}

var identifier = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_]*$`)

// FuzzLoadCSV checks that any text either loads, with distinct valid column
// names and every row, or fails with an error; it never panics.
func FuzzLoadCSV(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n", "a;b\n1,5;x\n", "\xef\xbb\xbfx\n1\n", "a\tb\n1\t2\t3\n", "\"a\"\"\",b\n\"1\n2\",3\n",
		",,\n,,\n", "a\n", "", "Date\n31/01/2024\n01/31/2024\n", "n\n007\n1e5\n-0\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseDelimited("fuzz.csv", data, 0)
		if err != nil {
			return
		}
		ds, err := openDataset(context.Background(), p)
		if err != nil && strings.Contains(err.Error(), "columns, more than") {
			return
		}
		if err != nil {
			t.Fatalf("parsed but not loaded: %v", err)
		}
		defer ds.close()
		seen := map[string]bool{}
		for _, c := range ds.info.columns {
			if !identifier.MatchString(c.name) || seen[c.name] {
				t.Fatalf("column name %q (all: %s)", c.name, ds.info.columnList())
			}
			seen[c.name] = true
		}
		a, err := ds.query(context.Background(), "SELECT COUNT(*) FROM "+TableName, 10, DefaultTimeout)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(a.rows[0][0]); got != fmt.Sprint(ds.info.rows) {
			t.Fatalf("table has %s rows, the document %d", got, ds.info.rows)
		}
		if !strings.Contains(describeTable(Document{}, ds.info), TableName) {
			t.Fatal("schema does not name the table")
		}
	})
}
