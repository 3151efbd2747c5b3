package i18n

import (
	"fmt"
	"sync"
)

// The command line's texts (help, messages, errors) are written in English
// in the code, where they are read, and translated into French by the
// catalogues of the files named french_*.go: the English text is the key.
// A text with no French entry is shown in English; a test in each package
// that writes texts checks that none is missing, so one language per run
// holds.
//
// golang.org/x/text/message would do the lookup too, but its Printer
// formats numbers by locale ("1 234" in French): sizes, sequence numbers
// and counts that scripts read must print as Go prints them.

// frenchCatalogues are the French translations, one map per file; see
// french().
var frenchCatalogues []map[string]string

// addFrench registers a catalogue; called from the catalogue files' init.
func addFrench(m map[string]string) { frenchCatalogues = append(frenchCatalogues, m) }

// french merges the catalogues once, on first use.
var french = sync.OnceValue(func() map[string]string {
	all := make(map[string]string)
	for _, m := range frenchCatalogues {
		for en, fr := range m {
			all[en] = fr
		}
	}
	return all
})

// Tr returns the English text en in language l: en itself in English, its
// French translation in French (en when there is none).
func Tr(l Lang, en string) string {
	if l.Normalize() == EN {
		return en
	}
	if fr, ok := french()[en]; ok {
		return fr
	}
	return en
}

// Trf formats the translation of the English format en with args.
func Trf(l Lang, en string, args ...any) string {
	return fmt.Sprintf(Tr(l, en), args...)
}

// French reports the French translation of en, and whether there is one.
// Tests use it to check that every text is translated.
func French(en string) (string, bool) {
	fr, ok := french()[en]
	return fr, ok
}

// Conflicts lists the English texts that two catalogues translate
// differently: a text means one thing.
func Conflicts() []string {
	seen := make(map[string]string)
	var out []string
	for _, m := range frenchCatalogues {
		for en, fr := range m {
			if prev, ok := seen[en]; ok && prev != fr {
				out = append(out, en)
			}
			seen[en] = fr
		}
	}
	return out
}
