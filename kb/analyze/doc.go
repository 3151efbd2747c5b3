// Package analyze turns text into index terms for French and English: it owns
// the analysis chain that indexing and querying share, so that a query meets
// the documents that say the same thing with other inflections, accents,
// capitals or elisions.
//
// # Default analysis
//
// Terms runs, in order:
//
//  1. Case and accent folding, rune by rune: Unicode lower case, then the
//     compatibility decomposition (NFKD) with every combining mark dropped
//     ("Éléphant" → "elephant", "ﬁ" → "fi", full-width "ＡＢ" → "ab"), plus
//     œ→oe, æ→ae, ß→ss, ø→o, đ→d, ł→l, ı→i, ς→σ, and ’ ʼ → '. Decomposition
//     is limited to the Latin, Greek, Cyrillic, Armenian and Hebrew blocks,
//     letterlike forms, Latin ligatures and full-width ASCII: kana, Hangul
//     and the other scripts are only lower-cased, so "ガ" stays "ガ".
//  2. Splitting, as SQLite's unicode61 tokenizer splits: a word is a run of
//     letters (L*), numbers (N*) and private-use runes (Co) that unicode61
//     also takes as token characters; everything else separates words.
//     Emoji and symbols are separators; a CJK run is one word, as is.
//  3. French elision: a word l, d, j, qu, n, s, c, t, m, jusqu, lorsqu or
//     puisqu followed by an apostrophe (' or ’) is dropped, so "l'équipe"
//     gives "equipe". Any other apostrophe separates words.
//  4. Identifiers: words joined by single '_', '-' or '.' characters form a
//     compound ("ERR_4012", "x-request-id", "v1.2.3", "10.0.0.1"). A
//     compound yields the whole compound, folded but not stemmed
//     ("err_4012"), then each of its parts analysed as an ordinary word
//     ("err", "4012"). A joiner that is doubled, leading or trailing is a
//     separator. The compound itself is dropped when every part is a stop
//     word or a lone letter ("est-ce", "e.g"), never its surviving parts.
//  5. Stop words: 171 English and 218 French function words (many of them
//     forms of avoir and être), folded (stopwords.go), are dropped. So is a term of one rune when that rune
//     is a cased letter ("a", "x"); digits ("7") and letters of uncased
//     scripts ("日") are kept.
//  6. Light stemming of words made only of ASCII letters and at least four
//     bytes long (stem.go): plurals, English -ing/-ed, French -ement,
//     -ation, -er, a final e and a final y. Words with digits are never
//     stemmed. A stem that is a stop word is dropped ("others" → "other").
//     Compounds are not stemmed: "max_retries" stays as typed.
//
// # Snowball analysis
//
// With Options.Snowball, step 6 is replaced: a word made only of letters
// and at least three bytes long is stemmed by the Snowball stemmer of
// Options.Language (github.com/kljensen/snowball: English, French, Spanish,
// Russian, Swedish, Norwegian, Hungarian), after folding, repeated to a
// fixed point (snowball.go); a word of any other language, or of an unknown
// one, is not stemmed. Steps 1 to 5 are unchanged, so identifiers stay
// whole. Detect tells a document's language from its first KiB
// (github.com/abadojack/whatlanggo); QueryTermsIn analyses a query in its
// own language and in its documents' (language.go). The default analysis is
// untouched: the indexes built with it hold its terms.
//
// # Raw analysis
//
// With Options.Raw, only steps 1 (lower case only, as unicode61 does it) and 2
// run, and they reproduce the unicode61 tokenizer with remove_diacritics 0:
// the tokens FTS5 itself would index, for the "analysis off" comparison.
//
// # Storing terms in FTS5
//
// Terms are stored space-separated (Join) in FTS5 columns declared with
// Tokenizer, which keeps the joiners of compounds inside tokens; under that
// tokenizer every term is exactly one FTS5 token. Under a plain unicode61
// tokenizer a compound would be re-split into its parts, which still match
// but lose the compound.
//
// # Idempotence
//
// Every term is a fixed point of the analysis: Terms(t) is [t] for a plain
// term and [t, its parts...] for a compound. Hence QueryTerms(Join(q)) == q
// for q = QueryTerms(x), and Terms(Join(Terms(x))) has the same set of
// distinct terms as Terms(x); it is equal to Terms(x) exactly when Terms(x)
// has no compound (a compound's parts are emitted again on re-analysis).
// Raw analysis is idempotent: Terms(Join(r)) == r for r = Terms(x, Raw).
//
// Snowball terms are fixed points too, in the language they were made in.
//
// Invalid UTF-8 bytes are separators; raw analysis matches unicode61 only on
// valid UTF-8.
//
// # Concurrency
//
// Every function is safe for concurrent use: analyses draw their buffers
// from a pool, and the Snowball stems are cached per language behind a
// read-write lock.
package analyze
