package analyze

import (
	"unicode"
	"unicode/utf8"
)

// A chunk is what the default analysis reads between separators: one word,
// or a compound of words joined by single joiners ('_', '-', '.'), such as
// "err_4012" or "x-request-id". This file reads chunks, strips French
// elisions and emits the terms of a chunk when it ends.

// openPart starts a part at the next word rune unless one is open, first
// writing down the joiner that links it to the previous part.
func (a *analyzer) openPart() {
	if a.inWord {
		return
	}
	if a.joiner != 0 {
		a.chunk = append(a.chunk, a.joiner)
		a.joiner = 0
	}
	a.start, a.inWord = len(a.chunk), true
}

func (a *analyzer) closePart() {
	if a.inWord {
		a.parts = append(a.parts, span{a.start, len(a.chunk)})
		a.inWord = false
	}
}

// putJoiner reads a joiner: it links the part before to the one after, if
// any; a leading or doubled joiner separates.
func (a *analyzer) putJoiner(c byte) {
	if !a.inWord {
		a.flush()
		return
	}
	a.closePart()
	a.joiner = c
}

// putApostrophe reads an apostrophe: after a French elided word at the start
// of a chunk ("l'", "qu'", "jusqu'") it drops that word; otherwise it
// separates ("aujourd'hui", "don't").
func (a *analyzer) putApostrophe() {
	if a.inWord && len(a.parts) == 0 && isElision(a.chunk) {
		a.clearChunk()
		return
	}
	a.flush()
}

// isElision reports whether w is a French word that elides its vowel before
// an apostrophe.
func isElision(w []byte) bool {
	switch string(w) {
	case "l", "d", "j", "qu", "n", "s", "c", "t", "m", "jusqu", "lorsqu", "puisqu":
		return true
	}
	return false
}

// flush ends the chunk and emits its terms: for a compound, the compound
// then its parts; for a word, the word.
func (a *analyzer) flush() {
	a.closePart()
	a.joiner = 0 // a trailing joiner joins nothing
	if len(a.parts) == 0 {
		return
	}
	if len(a.parts) > 1 {
		a.emitCompound()
	}
	for _, p := range a.parts {
		a.emitWord(a.chunk[p.start:p.end])
	}
	a.clearChunk()
}

// emitCompound emits the chunk as one term unless it is made only of
// insignificant parts ("est-ce", "e.g"), which would be noise. The twin,
// which filters too, emits the same.
func (a *analyzer) emitCompound() {
	if a.filter && !a.anySignificantPart() {
		return
	}
	a.emit(a.chunk)
	if a.twin != nil {
		a.twin.emit(a.chunk)
	}
}

func (a *analyzer) anySignificantPart() bool {
	for _, p := range a.parts {
		w := a.chunk[p.start:p.end]
		if !loneLetter(w) && !isStopWord(w) {
			return true
		}
	}
	return false
}

// emitWord emits the term of one folded word, if it has one, and the
// twin's term of it. It may stem w in place.
func (a *analyzer) emitWord(w []byte) {
	if t := a.twin; t != nil {
		t.words++
		t.word = append(t.word[:0], w...) // its stemmer may change it in place
		if term, ok := t.wordTerm(t.word); ok {
			t.emit(term)
		}
	}
	a.words++
	if term, ok := a.wordTerm(w); ok {
		a.emit(term)
	}
}

// wordTerm is the term of one folded word, if it has one. It may stem w
// in place.
func (a *analyzer) wordTerm(w []byte) ([]byte, bool) {
	if !a.filter {
		return w, true
	}
	if loneLetter(w) || isStopWord(w) {
		return nil, false
	}
	switch {
	case a.snowball:
		if a.stemmer != nil && snowballStemmable(w) {
			w = a.snowballStem(w)
			if isStopWord(w) {
				return nil, false
			}
		} else if a.stemmer == nil && stemmable(w) {
			// A language without a Snowball stemmer, or an unknown one:
			// the light stemmer, which is harmless in any Latin-script
			// language and scored better than no stemming on three of
			// kb/beir's four sets (man-i18n nDCG@10 +0.012) and the same
			// on the fourth.
			w = stem(w)
			if isStopWord(w) {
				return nil, false
			}
		}
	case stemmable(w):
		w = stem(w)
		if isStopWord(w) {
			return nil, false
		}
	}
	return w, true
}

// loneLetter reports whether w is a single cased letter: in Latin, Greek or
// Cyrillic one letter is rarely a word, while a digit or a CJK character
// can be one.
func loneLetter(w []byte) bool {
	if len(w) == 1 {
		return asciiClass[w[0]] == classLetter
	}
	r, n := utf8.DecodeRune(w)
	if n != len(w) || !unicode.IsLetter(r) {
		return false
	}
	return unicode.IsLower(r) || unicode.IsUpper(r) || unicode.IsTitle(r)
}
