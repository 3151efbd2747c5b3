package analyze

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Options select the analysis.
type Options struct {
	// Raw keeps only case folding and splitting, exactly as FTS5's unicode61
	// tokenizer with remove_diacritics 0 splits (for the "analysis off"
	// comparison); everything else is off.
	Raw bool
	// Snowball replaces the light stemmer (stem.go) by the Snowball stemmer
	// of Language (snowball.go); the words of a language without one, or of
	// an unknown language (""), by the light stemmer. Folding, elisions,
	// identifiers and stop words are the default analysis's.
	Snowball bool
	// Language is the language of the text, for Snowball.
	Language Language
}

// Tokenizer is the FTS5 tokenize option for columns that store Join(Terms):
// unicode61 with the compound joiners as token characters, so that every
// term is exactly one FTS5 token. Diacritics are already folded by the
// analysis, hence remove_diacritics 0.
const Tokenizer = "unicode61 remove_diacritics 0 tokenchars '-_.'"

// Terms returns the analysed terms of text in order, duplicates kept (BM25
// needs term frequencies); nil when there are none.
func Terms(text string, opt Options) []string {
	a := getAnalyzer(opt, true)
	defer putAnalyzer(a)
	a.run(text)
	return a.terms()
}

// Join joins terms with single spaces, which is what FTS5 stores.
func Join(terms []string) string { return strings.Join(terms, " ") }

// QueryTerms is Terms with duplicates removed, first occurrences kept in
// order. If the analysis removes every term of a text that has words (a
// query of only stop words, "to be or not to be"), it falls back to the
// folded words without stop-word removal, stemming or length filter, so
// that a query never becomes empty when it had words.
func QueryTerms(text string, opt Options) []string {
	a := getAnalyzer(opt, true)
	defer putAnalyzer(a)
	a.run(text)
	if len(a.ends) == 0 && a.words > 0 {
		a.reset(false)
		a.run(text)
	}
	return dedupe(a.terms())
}

func dedupe(terms []string) []string {
	seen := make(map[string]struct{}, len(terms))
	out := terms[:0]
	for _, t := range terms {
		if _, dup := seen[t]; !dup {
			seen[t] = struct{}{}
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// span is a part of a compound: chunk[start:end].
type span struct{ start, end int }

// analyzer holds the state of one analysis and the buffers it reuses.
type analyzer struct {
	raw    bool
	filter bool // drop stop words and lone letters, stem; off for the query fallback
	// snowball selects the Snowball analysis, stemming with stemmer (nil
	// for a language without one).
	snowball bool
	stemmer  func(string, bool) string
	stems    *stemCache
	stemBuf  []byte // the Snowball stem of the word being emitted

	buf  []byte // the emitted terms, back to back
	ends []int  // where each term ends in buf
	// words counts the words seen, emitted or not, for the query fallback.
	words int

	// The chunk being read: a word, or the parts of a compound with their
	// joiners, folded.
	chunk  []byte
	parts  []span // closed parts
	start  int    // start of the open part, when inWord
	inWord bool   // the last rune read was a word rune
	joiner byte   // joiner read after the last part and not yet followed by a word rune

	// twin, when set, receives the terms of its own analysis of the same
	// words (TermsAndQueryTerms), word holding the copy it stems.
	twin *analyzer
	word []byte
}

var pool = sync.Pool{New: func() any { return new(analyzer) }}

func getAnalyzer(opt Options, filter bool) *analyzer {
	a := pool.Get().(*analyzer)
	a.raw, a.twin = opt.Raw, nil
	a.snowball, a.stemmer, a.stems = opt.Snowball, nil, nil
	if opt.Snowball {
		a.stemmer, a.stems = snowballStemmers[opt.Language], stemCaches[opt.Language]
	}
	a.reset(filter)
	return a
}

// putAnalyzer returns a to the pool unless it grew big on a huge text, whose
// buffers are not worth keeping.
func putAnalyzer(a *analyzer) {
	const maxKept = 1 << 20
	if cap(a.buf) <= maxKept && cap(a.chunk) <= maxKept {
		pool.Put(a)
	}
}

func (a *analyzer) reset(filter bool) {
	a.filter = filter
	a.buf, a.ends, a.words = a.buf[:0], a.ends[:0], 0
	a.clearChunk()
}

func (a *analyzer) clearChunk() {
	a.chunk, a.parts = a.chunk[:0], a.parts[:0]
	a.inWord, a.joiner = false, 0
}

// run analyses text, appending its terms.
func (a *analyzer) run(text string) {
	if a.raw {
		a.runRaw(text)
	} else {
		a.runDefault(text)
	}
}

// terms returns the emitted terms as substrings of one string: one
// allocation for all their bytes.
func (a *analyzer) terms() []string {
	if len(a.ends) == 0 {
		return nil
	}
	s := string(a.buf)
	out := make([]string, len(a.ends))
	start := 0
	for i, end := range a.ends {
		out[i] = s[start:end]
		start = end
	}
	return out
}

func (a *analyzer) emit(term []byte) {
	a.buf = append(a.buf, term...)
	a.ends = append(a.ends, len(a.buf))
}

// runRaw splits text as unicode61 does: runs of token runes, lower-cased,
// continued (never started) by the diacritics it knows.
func (a *analyzer) runRaw(text string) {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			if asciiClass[c]&(classLetter|classDigit) != 0 {
				a.chunk = append(a.chunk, asciiLower(c))
				a.inWord = true
			} else {
				a.endRawToken()
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if r != utf8.RuneError && (isTokenRune(r) || a.inWord && isDiacritic(r)) {
			a.chunk = utf8.AppendRune(a.chunk, rawLower(r))
			a.inWord = true
		} else {
			a.endRawToken()
		}
	}
	a.endRawToken()
}

func (a *analyzer) endRawToken() {
	if a.inWord {
		a.words++
		a.emit(a.chunk)
		a.clearChunk()
	}
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// runDefault folds text rune by rune and feeds the folded runes to the
// chunk reader.
func (a *analyzer) runDefault(text string) {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			a.putASCII(c)
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if r == utf8.RuneError && n == 1 {
			a.flush() // an invalid byte separates words
			continue
		}
		if s, ok := foldString(r); ok {
			for _, d := range s {
				a.put(d)
			}
			continue
		}
		a.put(unicode.ToLower(r))
	}
	a.flush()
}

// put reads one folded rune.
func (a *analyzer) put(r rune) {
	if r < utf8.RuneSelf {
		a.putASCII(byte(r))
		return
	}
	if !isWordRune(r) {
		a.flush()
		return
	}
	a.openPart()
	a.chunk = utf8.AppendRune(a.chunk, r)
}

// isWordRune reports whether the default analysis reads r (folded, not
// ASCII) as part of a word: a letter, number or private-use rune, as Go's
// Unicode tables say, that unicode61 also takes as a token character (so
// that a term is never split again when FTS5 stores it).
func isWordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)) && isTokenRune(r)
}

func (a *analyzer) putASCII(c byte) {
	switch cl := asciiClass[c]; {
	case cl&(classLetter|classDigit) != 0:
		a.openPart()
		a.chunk = append(a.chunk, asciiLower(c))
	case cl == classJoiner:
		a.putJoiner(c)
	case cl == classApostrophe:
		a.putApostrophe()
	default:
		a.flush()
	}
}

// QueryTermsIn analyses a query for documents analysed with Snowball,
// docs counting them by language: in the query's own language, told by
// DetectAmong among the documents' languages, and in each language that
// holds at least a tenth of the documents; it returns the terms of all the
// analyses, duplicates removed, first occurrences kept in order. The query's
// words alone rarely tell its language, while the documents' are known; a
// language of a few documents only is left to the queries written in it,
// since its stems of every other query add noise (measured on kb/beir's
// sets). Languages without a Snowball stemmer, and "", share one analysis,
// by the light stemmer.
func QueryTermsIn(text string, docs map[Language]int) []string {
	total := 0
	langs := make([]Language, 0, len(docs))
	for lang, n := range docs {
		if n > 0 {
			total += n
			langs = append(langs, lang)
		}
	}
	// Map order must not choose the order of the terms.
	slices.Sort(langs)
	analyses := []Language{DetectAmong(text, langs)}
	for _, lang := range langs {
		if docs[lang]*majorShare >= total {
			analyses = append(analyses, lang)
		}
	}
	var out []string
	light := false // the light-stemmed analysis is done
	done := make(map[Language]bool, len(analyses))
	for _, lang := range analyses {
		if !HasStemmer(lang) {
			if light {
				continue
			}
			light, lang = true, ""
		}
		if done[lang] {
			continue
		}
		done[lang] = true
		out = append(out, QueryTerms(text, Options{Snowball: true, Language: lang})...)
	}
	return dedupe(out)
}

// majorShare: a language that holds at least 1/majorShare of the documents
// analyses every query.
const majorShare = 10
