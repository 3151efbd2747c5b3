package kb

import (
	"strings"

	"github.com/moteur/moteur/kb/analyze"
	"github.com/moteur/moteur/kb/chunk"
)

// chunkRow is what a chunk's rows hold beyond the chunk itself, computed
// before the write transaction: analysis is most of an ingestion's CPU,
// and done on the workers it runs on every core while the one writer
// only executes statements.
type chunkRow struct {
	heads string // the heading path as stored
	terms string // the terms column: the default query analysis, joined
	index []byte // the kb_terms blob of an analysed base with a keyword index
}

// analyseChunks computes the rows of a document's chunks in base b, for a
// document in language lang whose title is as its keyword index reads it
// (indexText).
func analyseChunks(b Base, lang analyze.Language, title string, chunks []chunk.Chunk) []chunkRow {
	rows := make([]chunkRow, len(chunks))
	var enc termEncoder
	var titleTerms []string
	analysed := b.Keyword && b.Analyzer != AnalyzerRaw
	if analysed {
		titleTerms = strings.Fields(title) // indexText's terms, split back
	}
	var headTerms []string // of the previous chunk's heading path
	for i, c := range chunks {
		r := &rows[i]
		r.heads = headingPath(c.Headings)
		if !analysed {
			r.terms = analyze.Join(analyze.QueryTerms(c.Text, analyze.Options{}))
			continue
		}
		// The chunks of a section share its heading path: analysed once.
		if i == 0 || r.heads != rows[i-1].heads {
			headTerms = indexTerms(b, lang, r.heads)
		}
		// The index terms and the terms column in one reading of the text.
		bodyTerms, query := analyze.TermsAndQueryTerms(c.Text, analysis(b, lang))
		r.terms = analyze.Join(query)
		r.index = enc.encode(chunkTerms{titleTerms, headTerms, bodyTerms})
	}
	return rows
}
