package analyze

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// The Snowball analysis stems each word with the Snowball stemmer of its
// text's language (language.go), after folding: a query typed without
// accents must meet the documents written with them, so the stemmer sees
// "securite" in both, never "sécurité" in one of them. The stems are those
// of the folded words, which the stemmer's accent rules see less of; what
// matters for matching is that every form reaches the same stem.
//
// A Snowball stem is not always a fixed point of its stemmer (stemming a
// stem again can remove one more suffix), so snowballStem repeats the
// stemmer until the word stops changing: a stored term analysed again gives
// itself, as in the default analysis.

// maxStemRounds bounds the repetition: every round that changes a word
// shortens it in practice, but no proof bounds a third-party stemmer.
const maxStemRounds = 4

// snowballStemmable reports whether a folded word is one the stemmers take:
// letters only (digits mark identifiers and numbers) and at least three
// bytes, the shortest word that has a suffix to remove.
func snowballStemmable(w []byte) bool {
	if len(w) < 3 {
		return false
	}
	for i := 0; i < len(w); {
		if c := w[i]; c < utf8.RuneSelf {
			if c < 'a' || c > 'z' {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(w[i:])
		if !unicode.IsLetter(r) {
			return false
		}
		i += n
	}
	return true
}

// snowballStem returns the stem of w by a.stemmer in a.stemBuf, from the
// cache of its language when it is there.
func (a *analyzer) snowballStem(w []byte) []byte {
	c := a.stems
	c.mu.RLock()
	stem, ok := c.m[string(w)]
	c.mu.RUnlock()
	if !ok {
		stem = fixedStem(a.stemmer, string(w))
		c.mu.Lock()
		if len(c.m) >= maxCachedStems {
			clear(c.m) // a new vocabulary: start again rather than grow
		}
		c.m[string(w)] = stem
		c.mu.Unlock()
	}
	a.stemBuf = append(a.stemBuf[:0], stem...)
	return a.stemBuf
}

// fixedStem is stemmer repeated on word to a fixed point. A stem holding a
// rune the analysis would fold or split ("é" from a rule that puts an accent
// back, an upper-case marker left over) is refused and word kept: every term
// must stay one folded FTS5 token.
func fixedStem(stemmer func(string, bool) string, word string) string {
	stem := word
	for range maxStemRounds {
		next := stemmer(stem, false)
		if next == stem || next == "" {
			break
		}
		stem = next
	}
	if !foldedWord(stem) {
		return word
	}
	return stem
}

// stemCache remembers the stems of one language's words. The Snowball
// stemmers allocate and run a dozen passes per word, twenty times the cost
// of the rest of the analysis; a text's words repeat, so most are stemmed
// once per process. Reads share the lock: analyses run on every core.
type stemCache struct {
	mu sync.RWMutex
	m  map[string]string
}

// maxCachedStems bounds a cache at a few MiB; a vocabulary past it is
// forgotten in one go.
const maxCachedStems = 1 << 16

var stemCaches = func() map[Language]*stemCache {
	m := make(map[Language]*stemCache, len(snowballStemmers))
	for lang := range snowballStemmers {
		m[lang] = &stemCache{m: map[string]string{}}
	}
	return m
}()

// foldedWord reports whether s is made of runes the folding leaves as they
// are and that the analysis reads as word runes.
func foldedWord(s string) bool {
	for _, r := range s {
		if r < utf8.RuneSelf {
			if r < 'a' || r > 'z' {
				return false
			}
			continue
		}
		if !isWordRune(r) || unicode.ToLower(r) != r {
			return false
		}
		if f, folds := foldString(r); folds && f != string(r) {
			return false
		}
	}
	return true
}
