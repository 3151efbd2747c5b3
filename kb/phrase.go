package kb

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// A query made only of stop words ("to be or not to be", "le du en") has
// no term the keyword index holds: the analysis leaves stop words out of
// it. Rather than answer nothing, the search then looks in the passages'
// text for those that hold every word of the query, those that hold them
// as a phrase first — a scan of the base's passages, which the result's
// warning says.

// phraseScanWarning is the warning of a search answered by phraseScan.
const phraseScanWarning = "every word of the query is a stop word (or too short), which the keyword index leaves out: " +
	"the passages' text was scanned for those holding all its words instead, as a phrase first (every passage of the base read: slower); " +
	"add a word that says what to look for"

// phraseScan returns the base's top k passages whose text holds every word
// of the query, case ignored, best first: the most occurrences of the
// words as a phrase (in order, separated by spaces or punctuation only),
// then the shortest passage.
func (s *Store) phraseScan(ctx context.Context, b Base, query string, k int) ([]scored, error) {
	words := strings.FieldsFunc(strings.ToLower(query), notWordRune)
	if len(words) == 0 {
		return nil, nil
	}
	// SQLite's lower() folds ASCII only: the first word narrows the scan
	// in SQL when it is ASCII, and every passage is read otherwise.
	first := words[0]
	if !isASCII(first) {
		first = ""
	}
	rows, err := s.r.QueryContext(ctx, `SELECT rowid, text FROM kb_chunks WHERE kb = ? AND instr(lower(text), ?) > 0`, b.rowid, first)
	if err != nil {
		return nil, fmt.Errorf("phrase scan of %s: %w", b.Name, err)
	}
	defer rows.Close()
	var out []scored
	for rows.Next() {
		var row int64
		var text string
		if err := rows.Scan(&row, &text); err != nil {
			return nil, fmt.Errorf("phrase scan of %s: %w", b.Name, err)
		}
		tw := strings.FieldsFunc(strings.ToLower(text), notWordRune)
		if holdsAll(tw, words) {
			// Phrases first, then denser passages.
			out = append(out, scored{row: row, raw: 1 + float64(phraseCount(tw, words)) + 1/float64(1+len(text))})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("phrase scan of %s: %w", b.Name, err)
	}
	slices.SortFunc(out, func(a, b scored) int {
		if c := cmp.Compare(b.raw, a.raw); c != 0 {
			return c
		}
		return cmp.Compare(a.row, b.row)
	})
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '\'' }

// holdsAll reports whether every word stands in text.
func holdsAll(text, words []string) bool {
	for _, w := range words {
		if !slices.Contains(text, w) {
			return false
		}
	}
	return true
}

// phraseCount counts the places where words stand in text, in order.
func phraseCount(text, words []string) int {
	n := 0
	for i := 0; i+len(words) <= len(text); i++ {
		match := true
		for j, w := range words {
			if text[i+j] != w {
				match = false
				break
			}
		}
		if match {
			n++
		}
	}
	return n
}
