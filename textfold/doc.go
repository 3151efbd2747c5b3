// Package textfold folds text into the form a reader perceives, so that
// markings can be matched however the text spells them: encoded, invisible
// characters slipped in, letters swapped for look-alikes, emphasis around
// words, letters spaced out, line numbers in front of lines. It owns the
// folding and the map from folded text back to the original; it matches
// nothing itself (package classify does).
//
// Folded text is for matching only: it is never shown, stored or sent.
//
// # Steps
//
// Characters first, repeated until nothing changes (each step can expose
// work for another: "&#xFF21;" decodes to a fullwidth A, which NFKC turns
// into A):
//
//  1. Escapes decoded. HTML character references: numeric ("&#160;",
//     "&#xA0;", with or without the ";"), named with their ";" (every name
//     html.UnescapeString knows: "&nbsp;", "&Eacute;"), and the two legacy
//     names browsers accept without one ("&nbsp", "&amp"). Backslash escapes
//     of JSON, JavaScript, Python and C strings: \n \r \t \f \v \" \' \\ \/,
//     \uXXXX (surrogate pairs joined), \u{X…}, \UXXXXXXXX and \xHH. A
//     decoded "&" or "\" is read again with what follows, so "&amp;nbsp;"
//     and "\\u0041" decode all the way, and folding stays idempotent.
//  2. Invisible characters removed: format characters (Unicode category
//     Cf: zero-width space, joiners and non-joiner, soft hyphen, word
//     joiner, BOM, bidirectional controls, tag characters…), variation
//     selectors, the Hangul fillers, Khmer's invisible vowels, control
//     characters other than whitespace, ANSI escape sequences (terminal
//     colours: "\x1b[1m"), and the combining grapheme joiner unless it
//     separates combining marks (where NFKC itself puts it).
//  3. Unicode NFKC: fullwidth forms ("ＳＥＣＲＥＴ"), mathematical and
//     enclosed letters ("𝐒𝐄𝐂𝐑𝐄𝐓", "Ⓢ"), ligatures and compatibility spaces
//     become their plain letters; accents are composed ("E\u0301" is "É").
//  4. Look-alike letters mapped to Latin, by the table in confusables.go:
//     the Cyrillic, Greek, Cherokee and Lisu letters that look like Latin
//     ones (Cyrillic а е о р с у х ѕ і ј and А В Е К М Н О Р С Т Х…, Greek
//     Α Β Ε Ζ Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ and ο ν ρ…), plus ı (dotless i). Every
//     such letter is mapped, in any word: real Russian or Greek text folds
//     to Latin-looking nonsense ("СЕКРЕТНО" to "CEKPETHO"), which is no
//     marking, while a word disguised with look-alikes folds to what its
//     reader sees.
//
// Then structure, once:
//
//  5. Emphasis removed: a run of "*", "_", "~" and "`" touching a letter or
//     digit on either side goes ("**DIFFUSION**", "~~SECRET~~", "`DR`",
//     "DIFF**USION**"), except a run of "_" between two letters or digits
//     (snake_case: "SECRET_KEY" stays one word). A run between blanks
//     ("** SECRET **") stays: it decorates, it does not hide.
//  6. Line numbers removed: at the start of a line, any number of
//     "blanks, digits, then a tab, ':' or '-'" (read_file and cat -n write
//     "     1\t", grep -n "12:" and "12-"), so that a banner keeps its place
//     at the start of its line.
//  7. Spaced letters joined, blanks folded: two or more single upper-case
//     letters (a letter with neither a letter, a digit, a mark nor "_" on
//     either side) each separated from the next by exactly one blank are
//     joined ("S E C R E T" is "SECRET", "D I F F U S I O N   R E S T R E I
//     N T E" is "DIFFUSION RESTREINTE": a wider gap separates words). Lower
//     case is left spaced: "il y a" stays three words. Every other run of
//     blanks is one space, and every run of white space holding a line
//     break is one "\n", so blank lines and indentation vanish but lines
//     stay lines. A run of two blanks or more between two single letters
//     that are not joined stays two spaces ("A  B"), the one exception,
//     which keeps folding idempotent.
//
// Should the structure steps expose new escapes (a "*" removed from "\*n"),
// the whole is run again, at most a few times.
//
// # Guarantees
//
// Fold(Fold(s)) == Fold(s). Map gives, for every byte of the folded text,
// the span of the original it comes from; spans never go backwards, so a
// match in the folded text maps to one span of the original, which covers
// whatever was removed inside it. Invalid UTF-8 is carried through, never a
// reason to panic.
//
// Plain reports, in one quick pass, that folding would change nothing but
// runs of white space: a matcher that treats any such run as one separator
// can then read the original as it is, and skip the cost of folding. Inert
// is the same question for a case-sensitive matcher of words in capitals
// and of TLP labels: folding beside lower-case words and punctuation (the
// escapes of code's strings, "*p", "&x") cannot concern it. A Reading
// answers both in a pass its caller makes over the text anyway: shown the
// bytes Loud marks, or the fewer Look asks for when read a pair at a time.
//
// # Limits
//
// Accents on letters other than E are kept ("ŚECRET" stays), so that
// accented words a user's marking names still match; percent-encoding
// ("%20") is not decoded; lower-case letters spaced out are not joined;
// letters one per line are not joined.
package textfold
