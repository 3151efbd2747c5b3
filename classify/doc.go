// Package classify detects classified content: protection markings in text
// (French, EU, NATO and TLP markings, plus an organisation's own) and
// classified locations in a project tree (path globs).
//
// It only detects. What happens to classified content (refusing a model,
// masking, asking someone) is policy and belongs to the callers; nothing here
// blocks, logs or rewrites anything. Detection leans towards finding
// markings: a missed marking can let classified text reach a model it must
// not reach, while a false alarm costs a confirmation.
//
// A Classifier is immutable once built and safe for concurrent use.
//
// # Built-in markings
//
// Documents print protection markings in upper case, so the built-in
// markings are upper-case only (TLP labels excepted: they are tags, written
// "TLP:RED" as well as "tlp:red"). Upper case is what separates a marking
// from prose: "le secret professionnel" or "Top secret recipe" are not
// markings, "SECRET" is.
//
// Letters: an E in a marking may carry any accent (É, È, Ê, Ë) or none, and
// may be followed by combining accents (text extracted from PDFs is often
// decomposed), so "SPÉCIAL", "SPECIAL" and "SPE\u0301CIAL" are the same word.
//
// Words: a marking word must be a whole word: not preceded or followed by a
// letter, a digit, a combining mark or "_" ("DRH", "SECRETS", "SECRET_KEY"
// and "client_secret" contain no marking word).
//
// Multi-word markings (DIFFUSION RESTREINTE, SPÉCIAL FRANCE, CONFIDENTIEL
// DÉFENSE, SECRET DÉFENSE, TRÈS SECRET DÉFENSE, TRÈS SECRET, the EU and NATO
// markings) match anywhere in upper case. Between their words, any run of
// spaces, tabs and Unicode spaces (non-breaking U+00A0, narrow U+202F, …)
// is accepted, with at most one hyphen ("SECRET-DÉFENSE") and at most one
// line break: stamps are often stacked ("CONFIDENTIEL" over "DÉFENSE") and
// text is hard-wrapped, and a blank line still separates. Missing such a
// marking costs more than the rare all-caps false alarm this admits.
//
// The bare level words SECRET, CONFIDENTIEL and DR are ordinary words too
// ("SECRET_KEY", "la DR Nord", an all-caps heading), so they count only in a
// marking position.
//
// # Marking position
//
// A bare level word (SECRET, CONFIDENTIEL, DR) is in a marking position when
// it is in upper case, is a whole word, and is one of:
//
//  1. Banner: on its line, nothing but decorations precede it, and a tail
//     follows it (see below). "SECRET", "** SECRET **", "| DR |", "# SECRET",
//     "SECRET – SPÉCIAL FRANCE", "DR – NE PAS DIFFUSER", "DR –".
//  2. Bracketed: it follows "[" or "(" (spaces allowed) that does not
//     itself follow a word (so not "env[SECRET]"), and a tail follows it up
//     to the matching "]" or ")". "[SECRET]", "(DR)", "( DR )",
//     "[SECRET – SPÉCIAL FRANCE]".
//  3. Labelled: it follows a label, in any case and as a whole word:
//     "Classification", "Niveau", "Marking", "Marquage", "Mention" or
//     "Protection" (so "Niveau de classification", "Niveau de protection"),
//     then a separator made of spaces, decorations, ":" or "=" with at least
//     one character that is not a space. Anything may follow.
//     "Classification : SECRET", "Niveau : DR", "| Classification | SECRET |",
//     "classification=CONFIDENTIEL". "au niveau DR" (no separator) is prose.
//
// Decorations are spaces (not line breaks), "-", "–", "—", "*", "|", "#",
// ">", "/", "~" and "•": the characters banners, Markdown and quoting put
// around a marking. "=" and ":" are not decorations, so "SECRET=" and
// "SECRET:" (a variable, a key) are not banners.
//
// A tail, after the word and up to the end of the line (or of the bracket),
// is one of: nothing but decorations; decorations then another multi-word
// marking ("SECRET SPÉCIAL FRANCE"); or decorations including a separator
// ("-", "–", "—", "|", "/") then text with no lower-case letter, a caveat
// in upper case ("SECRET – SPÉCIAL FRANCE", "DR – NE PAS DIFFUSER"). A
// mixed-case tail ("DR – Direction régionale", a glossary line) is prose.
//
// EU markings: RESTREINT UE / EU RESTRICTED, CONFIDENTIEL UE / EU
// CONFIDENTIAL, SECRET UE / EU SECRET, TRÈS SECRET UE / EU TOP SECRET.
// NATO markings: NATO RESTRICTED, NATO CONFIDENTIAL, NATO SECRET, COSMIC TOP
// SECRET; NATO UNCLASSIFIED is not a classification and does not match.
//
// TLP: "TLP:RED", "TLP:AMBER" and "TLP:AMBER+STRICT", in any case, with
// optional spaces around the colon. TLP:GREEN and TLP:CLEAR (or WHITE) allow
// sharing and do not match.
//
// # Cost
//
// Text makes one pass over the text, looking closer only at word starts whose
// first two bytes could begin a marking (an upper-case C, D, E, N, R, S or
// T followed by an upper-case ASCII letter or the first byte of É, È, Ê, Ë,
// or "tl" in any case). Every closer
// look is bounded or scans text no other look scans again, so the whole
// stays linear.
package classify
