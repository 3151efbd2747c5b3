package mcp

import (
	"slices"
	"strings"
	"unicode"
)

// searchIndex ranks a snapshot's tools for discover_mcp_tools' search
// mode. Words are compared lower-cased, split at punctuation and at
// camelCase humps, with a plural "s" dropped, so that "listIssues",
// "list_issues" and "list issues" meet.
type searchIndex struct {
	docs []searchDoc
}

type searchDoc struct {
	t        *mcpTool
	nameLow  string   // the server's tool name, lower case
	name     []string // words of the server, the tool name and its title
	desc     []string // words of the description
	nameSet  map[string]bool
	descSet  map[string]bool
	combined string // name words joined, for a phrase match
}

// Scores: a query word met in the name counts most; the description
// counts, less; an exact name, or the query as one phrase in the name,
// puts the tool first.
const (
	scoreExactName  = 20
	scorePhrase     = 6
	scoreNameWord   = 6
	scoreNamePrefix = 3
	scoreDescWord   = 2
	scoreDescPrefix = 1
	minPrefix       = 3
)

func newSearchIndex(ts []*mcpTool) *searchIndex {
	ix := &searchIndex{docs: make([]searchDoc, len(ts))}
	for i, t := range ts {
		name := searchWords(t.server + " " + t.def.Name + " " + toolTitle(t.def))
		desc := searchWords(t.def.Description)
		ix.docs[i] = searchDoc{t: t, nameLow: strings.ToLower(t.def.Name), name: name, desc: desc,
			nameSet: wordSet(name), descSet: wordSet(desc), combined: " " + strings.Join(searchWords(t.def.Name), " ") + " "}
	}
	return ix
}

type searchHit struct {
	t     *mcpTool
	score int
}

// search returns the tools the query meets, best first (ties by name),
// restricted to one server when server is not empty.
func (ix *searchIndex) search(query, server string) []searchHit {
	q := searchWords(query)
	if len(q) == 0 {
		return nil
	}
	qLow := strings.ToLower(strings.TrimSpace(query))
	phrase := " " + strings.Join(q, " ") + " "
	var hits []searchHit
	for i := range ix.docs {
		d := &ix.docs[i]
		if server != "" && d.t.server != server {
			continue
		}
		score := d.score(q)
		if score == 0 {
			continue
		}
		if d.nameLow == qLow {
			score += scoreExactName
		}
		if len(q) > 1 && strings.Contains(d.combined, phrase) {
			score += scorePhrase
		}
		hits = append(hits, searchHit{t: d.t, score: score})
	}
	slices.SortFunc(hits, func(a, b searchHit) int {
		if a.score != b.score {
			return b.score - a.score
		}
		return strings.Compare(a.t.name, b.t.name)
	})
	return hits
}

func (d *searchDoc) score(q []string) int {
	total := 0
	for _, w := range q {
		switch {
		case d.nameSet[w]:
			total += scoreNameWord
		case len(w) >= minPrefix && hasPrefixWord(d.name, w):
			total += scoreNamePrefix
		}
		switch {
		case d.descSet[w]:
			total += scoreDescWord
		case len(w) > minPrefix && hasPrefixWord(d.desc, w):
			total += scoreDescPrefix
		}
	}
	return total
}

func hasPrefixWord(ws []string, p string) bool {
	for _, w := range ws {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// stopWords carry no meaning in a tool search.
var stopWords = map[string]bool{"a": true, "an": true, "the": true, "of": true, "to": true, "and": true,
	"or": true, "for": true, "in": true, "on": true, "with": true, "is": true, "it": true, "this": true, "that": true}

// searchWords splits s into normalised words.
func searchWords(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) == 0 {
			return
		}
		w := searchStem(strings.ToLower(string(cur)))
		cur = cur[:0]
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	var prev rune
	for _, c := range s {
		switch {
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			if unicode.IsUpper(c) && unicode.IsLower(prev) {
				flush() // camelCase hump
			}
			cur = append(cur, c)
		default:
			flush()
		}
		prev = c
	}
	flush()
	return out
}

// searchStem drops a plural "s": issues → issue, repos → repo, but not "ss".
func searchStem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

func wordSet(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
