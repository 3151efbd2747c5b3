package analyze

import (
	"cmp"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
	_ "unsafe" // go:linkname: the detector's trigram profiles

	"github.com/abadojack/whatlanggo"
)

// Language detection is whatlanggo's algorithm, computed another way. The
// detector ranks the text's trigrams by frequency, then, for each language
// of the text's script, adds up the rank distances of the language's 300
// profile trigrams: a map lookup for each of them, some 14,000 for a Latin
// text whatever its length, and a string allocated per trigram of the
// text. That was a third of an ingestion's CPU (BenchmarkDetectInfo: 15
// times this computation's). Here the profiles are inverted once (trigram
// → the languages and ranks holding it) and shared read-only by every
// goroutine, so a text costs one lookup per distinct trigram of its own,
// keyed by one word; the sums, the ranks' ties and the confidence are the
// detector's, so the answer is the same (TestDetectMatchesWhatlanggo
// compares them). go:linkname reads the profiles, which the package does
// not export: a version that renamed them would not link, and one that
// emptied them falls back to the detector.

// The detector's profiles of the scripts it tells languages apart in,
// read from the package itself so that they cannot drift from its version.
var (
	//go:linkname latinProfiles github.com/abadojack/whatlanggo.latinLangs
	latinProfiles map[whatlanggo.Lang][]string
	//go:linkname cyrillicProfiles github.com/abadojack/whatlanggo.cyrillicLangs
	cyrillicProfiles map[whatlanggo.Lang][]string
)

// The detector's distance constants (its constants.go).
const (
	maxTrigramDistance = 300
	maxTotalDistance   = 90000
)

// trigramKey is a trigram's three runes packed in 21 bits each (the
// largest rune is below 1<<21): one word to hash, and keys order as the
// trigrams' strings do, rune by rune.
type trigramKey uint64

func packTrigram(r1, r2, r3 rune) trigramKey {
	return trigramKey(r1)<<42 | trigramKey(r2)<<21 | trigramKey(r3)
}

// profileHit is one language's profile holding a trigram at rank.
type profileHit struct {
	lang int32 // index in invertedProfiles.langs
	rank int32
}

// invertedProfiles is a script's profiles, inverted.
type invertedProfiles struct {
	langs []whatlanggo.Lang
	base  []int // each language's distance when no trigram matches
	hits  map[trigramKey][]profileHit
}

func invert(profiles map[whatlanggo.Lang][]string) *invertedProfiles {
	inv := &invertedProfiles{hits: map[trigramKey][]profileHit{}}
	for lang := range profiles {
		inv.langs = append(inv.langs, lang)
	}
	slices.Sort(inv.langs)
	inv.base = make([]int, len(inv.langs))
	for li, lang := range inv.langs {
		for rank, tg := range profiles[lang] {
			inv.base[li] += maxTrigramDistance
			var rs [3]rune
			n := 0
			for _, r := range tg {
				if n < 3 {
					rs[n] = r
				}
				n++
			}
			if n != 3 {
				continue // no text trigram matches it: it stays at the maximum
			}
			k := packTrigram(rs[0], rs[1], rs[2])
			inv.hits[k] = append(inv.hits[k], profileHit{int32(li), int32(rank)})
		}
	}
	return inv
}

var (
	invertOnce              sync.Once
	latinInv, cyrillicInv   *invertedProfiles
	invertedProfilesMissing bool
)

func invertedFor(script *unicode.RangeTable) *invertedProfiles {
	invertOnce.Do(func() {
		if len(latinProfiles) == 0 || len(cyrillicProfiles) == 0 {
			invertedProfilesMissing = true // a detector version without them
			return
		}
		latinInv, cyrillicInv = invert(latinProfiles), invert(cyrillicProfiles)
	})
	switch {
	case invertedProfilesMissing:
		return nil
	case script == unicode.Latin:
		return latinInv
	case script == unicode.Cyrillic:
		return cyrillicInv
	}
	return nil
}

// detectInfo is whatlanggo.DetectWithOptions, by the inverted profiles for
// the Latin and Cyrillic scripts (nearly every text Moteur indexes) and by
// the detector itself for the others.
func detectInfo(text string, opt whatlanggo.Options) whatlanggo.Info {
	script, ok := latinScript(text)
	if !ok {
		script = whatlanggo.DetectScript(text)
	}
	inv := invertedFor(script)
	if inv == nil {
		return whatlanggo.DetectWithOptions(text, opt)
	}
	lang, conf := inv.detect(text, opt)
	return whatlanggo.Info{Lang: lang, Script: script, Confidence: conf}
}

// latinScript is whatlanggo.DetectScript for a text whose only script is
// Latin (ok), without trying two dozen scripts' tables on every rune:
// unicode.Latin when it has a Latin letter, nil when it has none. A text
// with a rune of another script is not ok, and left to the detector.
func latinScript(text string) (script *unicode.RangeTable, ok bool) {
	latin := false
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf:
			latin = latin || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
		case unicode.Is(unicode.Latin, r):
			latin = true
		case !isStopChar(r) && inAnyScript(r):
			return nil, false
		}
	}
	if latin {
		return unicode.Latin, true
	}
	return nil, true
}

// inAnyScript reports whether r is in a script of whatlanggo.Scripts (its
// Hiragana and Katakana are those of its own table for Japanese).
func inAnyScript(r rune) bool {
	for table := range whatlanggo.Scripts {
		if unicode.Is(table, r) {
			return true
		}
	}
	return false
}

// trigramCount is a trigram of a text and how often it occurs.
type trigramCount struct {
	k trigramKey
	n int
}

func (inv *invertedProfiles) detect(text string, opt whatlanggo.Options) (whatlanggo.Lang, float64) {
	counts := countTrigrams(text)
	// The detector's ranks: by count, most frequent first, and among equal
	// counts the greater trigram first (it sorts up by count then by string
	// and numbers from the end; runes order as their UTF-8 strings do).
	tgs := make([]trigramCount, 0, len(counts))
	for k, n := range counts {
		tgs = append(tgs, trigramCount{k, n})
	}
	slices.SortFunc(tgs, func(a, b trigramCount) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return cmp.Compare(b.k, a.k)
	})
	dist := slices.Clone(inv.base)
	for pos, tg := range tgs {
		for _, h := range inv.hits[tg.k] {
			dist[h.lang] -= maxTrigramDistance - abs(pos-int(h.rank))
		}
	}
	type langDistance struct {
		lang whatlanggo.Lang
		dist int
	}
	var ds []langDistance
	for li, lang := range inv.langs {
		if len(opt.Whitelist) != 0 {
			if _, ok := opt.Whitelist[lang]; !ok {
				continue
			}
		} else if _, ok := opt.Blacklist[lang]; ok {
			continue
		}
		ds = append(ds, langDistance{lang, dist[li]})
	}
	switch len(ds) {
	case 0:
		return -1, 0
	case 1:
		return ds[0].lang, 1
	}
	// calculateConfidence of the detector.
	slices.SortStableFunc(ds, func(a, b langDistance) int { return cmp.Compare(a.dist, b.dist) })
	score1 := maxTotalDistance - ds[0].dist
	score2 := maxTotalDistance - ds[1].dist
	switch {
	case score1 == 0:
		return -1, 0
	case score2 == 0:
		// The detector divides integers here (its 500.0 is an untyped
		// constant made int): any score below 500 is no confidence.
		return ds[0].lang, min(float64(score1/500), 1)
	}
	rate := float64(score1-score2) / float64(score2)
	confidentRate := 12.0/float64(len(counts)) + 0.05
	if rate > confidentRate {
		return ds[0].lang, 1
	}
	return ds[0].lang, rate / confidentRate
}

// countTrigrams is the detector's count: stop characters (spaces,
// punctuation, symbols, digits) as spaces, runes lowered, a space after
// the text and before it, and no trigram of a space between two spaces or
// a space beside one.
func countTrigrams(text string) map[trigramKey]int {
	counts := make(map[trigramKey]int, len(text)/2)
	r1, r2, first := ' ', ' ', true
	step := func(r3 rune) {
		if first {
			r2, first = r3, false
			return
		}
		if r2 != ' ' || (r1 != ' ' && r3 != ' ') {
			counts[packTrigram(r1, r2, r3)]++
		}
		r1, r2 = r2, r3
	}
	for _, r := range text {
		if isStopChar(r) {
			r = ' '
		}
		step(unicode.ToLower(r))
	}
	step(' ')
	return counts
}

// isStopChar is the detector's: space, punctuation, symbol or digit.
func isStopChar(r rune) bool {
	return unicode.IsSymbol(r) || unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsDigit(r)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
