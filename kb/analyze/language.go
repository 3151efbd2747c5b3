package analyze

import (
	"unicode"
	"unicode/utf8"

	"github.com/abadojack/whatlanggo"
	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"
)

// Language is the ISO 639-1 code of a text's language ("fr", "en", "de"),
// or "" when it is not known.
type Language string

// Languages whose Snowball stemmer the Snowball analysis uses.
const (
	English   Language = "en"
	French    Language = "fr"
	Spanish   Language = "es"
	Russian   Language = "ru"
	Swedish   Language = "sv"
	Norwegian Language = "no"
	Hungarian Language = "hu"
)

// snowballStemmers are the stemmers of github.com/kljensen/snowball, by
// language. Their second argument is false so that they leave their own stop
// words alone: stop words are this package's business (stopwords.go).
var snowballStemmers = map[Language]func(string, bool) string{
	English:   english.Stem,
	French:    french.Stem,
	Spanish:   spanish.Stem,
	Russian:   russian.Stem,
	Swedish:   swedish.Stem,
	Norwegian: norwegian.Stem,
	Hungarian: hungarian.Stem,
}

// HasStemmer reports whether the Snowball analysis stems words of lang with
// a Snowball stemmer; the words of any other language get the light stemmer.
func HasStemmer(lang Language) bool { return snowballStemmers[lang] != nil }

// DetectPrefix bounds the text language detection reads: the first KiB
// of a document tell its language as well as the whole, and detection
// counts every trigram it reads.
const DetectPrefix = 1 << 10

// Detect returns the language of text by its letter trigrams, "" when the
// text is too short or too mixed to tell (fewer than minDetectLetters
// letters, or no language clearly ahead). It reads only the first KiB.
func Detect(text string) Language { return detect(text, whatlanggo.Options{}, minDetectLetters) }

// DetectAmong is Detect choosing only among langs: a query of a few words
// is too short to tell among eighty languages, but among the two or three
// of the documents it searches the closest is usually right. It returns ""
// when none of langs is known to the detector.
func DetectAmong(text string, langs []Language) Language {
	wl := map[whatlanggo.Lang]bool{}
	for _, l := range langs {
		for _, wlang := range detectorLangs[l] {
			wl[wlang] = true
		}
	}
	if len(wl) == 0 {
		return ""
	}
	// With a single candidate the detector answers it for any text in its
	// script, which is the right answer: it is the documents' language.
	return detect(text, whatlanggo.Options{Whitelist: wl}, minAmongLetters)
}

// detectorLangs maps a Language to the detector's languages it stands for.
var detectorLangs = func() map[Language][]whatlanggo.Lang {
	m := map[Language][]whatlanggo.Lang{}
	for l := whatlanggo.Afr; l <= whatlanggo.Zul; l++ {
		code := Language(l.Iso6391())
		if code == "nb" || code == "nn" {
			code = Norwegian
		}
		if code != "" {
			m[code] = append(m[code], l)
		}
	}
	return m
}()

func detect(text string, opt whatlanggo.Options, minLetters int) Language {
	if len(text) > DetectPrefix {
		cut := DetectPrefix
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	if countLetters(text) < minLetters {
		return ""
	}
	info := detectInfo(text, opt)
	if info.Lang < 0 || info.Confidence < minConfidence {
		return ""
	}
	switch code := Language(info.Lang.Iso6391()); code {
	case "nb", "nn": // Bokmål and Nynorsk share Snowball's Norwegian stemmer
		return Norwegian
	default:
		return code
	}
}

// minDetectLetters is the shortest text, in letters, whose language Detect
// guesses: below it trigram counts are noise.
const minDetectLetters = 12

// minAmongLetters is the shortest text DetectAmong guesses the language
// of: choosing among a few languages needs fewer trigrams.
const minAmongLetters = 4

// minConfidence is whatlanggo's confidence below which two languages are
// too close to choose between.
const minConfidence = 0.1

func countLetters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}
