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
// # Folding
//
// Text is matched in the form a reader perceives (package textfold): HTML
// and backslash escapes decoded, invisible characters removed, NFKC
// (fullwidth and mathematical letters), Cyrillic, Greek and other
// look-alike letters read as Latin, Markdown emphasis removed, the line
// numbers of read_file, cat -n and grep -n removed, capitals spaced out
// joined, white space folded. So "SEC\u200bRET", "ＳＥＣＲＥＴ", "SЕCRЕT" (a
// Cyrillic Е), "S E C R E T", "**DIFFUSION** **RESTREINTE**",
// "DIFFUSION&nbsp;RESTREINTE" and "     1\tDR" (a numbered line) are read as
// SECRET, DIFFUSION RESTREINTE and DR, in a prompt, a file, a command's
// output or a passage alike. Text is read as it is first; only when it holds
// no marking as it is, and folding could change something a marking is made
// of (a capital, a digit, a letter of TLP, RED or AMBER, a character outside
// ASCII: textfold.Inert), is it read folded. Prose and code (whose escapes
// and "*p" sit beside lower-case words) are read once, the rules below
// treating any run of white space as folding would. The organisation's
// markings are matched on the text as it is, then on its folded form with
// line breaks read as spaces, unless the text every match of the marking
// starts with ("PROJET" for "PROJET ALPHA") is nowhere in the text and
// folding cannot make it: the text is plain but for its white space
// (textfold.Plain), or inert and that start is made of capitals, digits,
// "-" and ":" (which inert text keeps as they are).
//
// # Built-in markings
//
// Documents print protection markings in upper case, so the built-in
// markings are upper-case only (TLP labels with a ":" or "-" excepted: they
// are tags, written "TLP:RED" as well as "tlp:red"). Upper case is what
// separates a marking from prose: "le secret professionnel" or "Top secret
// recipe" are not markings, "SECRET" is. Rules.CaseInsensitive lifts this
// for organisations whose stamps are in mixed case ("Diffusion
// Restreinte"), accepting that prose such as "un lieu très secret" is then
// classified too.
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
// white space is accepted (spaces, tabs, Unicode spaces, line breaks and
// blank lines: stamps are stacked, text is hard-wrapped), with at most one
// hyphen ("SECRET-DÉFENSE"), or nothing at all: "DIFFUSIONRESTREINTE"
// still reads as the marking, and is what removing an invisible separator
// leaves. Missing such a marking costs more than the rare all-caps false
// alarm this admits.
//
// The bare level words SECRET, CONFIDENTIEL and DR are ordinary words too
// ("SECRET_KEY", "la DR Nord", an all-caps heading), so they count only in a
// marking position. A "DR" alone on its line (a document's header, a
// stamp) is one.
//
// # Marking position
//
// A bare level word (SECRET, CONFIDENTIEL, DR) is in a marking position when
// it is in upper case (any case with CaseInsensitive), is a whole word, and
// is one of:
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
// NATO markings: NATO, OTAN, NATO/OTAN or OTAN/NATO followed by RESTRICTED,
// CONFIDENTIAL, CONFIDENTIEL or SECRET; SECRET OTAN and CONFIDENTIEL OTAN;
// COSMIC TOP SECRET and COSMIC TRÈS SECRET. NATO UNCLASSIFIED is not a
// classification and does not match.
//
// TLP: "TLP", a separator, then RED, AMBER or AMBER+STRICT. With a ":" or a
// hyphen in the separator ("TLP:RED", "TLP : RED", "TLP-RED", "TLP:\nRED",
// "tlp:amber") any case matches; with white space only or nothing ("TLP
// RED", "TLPRED"), upper case only, so that "the tlp red team" in prose is
// left alone. TLP:GREEN and TLP:CLEAR (or WHITE) allow sharing and do not
// match.
//
// # Cost
//
// Text makes one pass over the text, reading it a pair of bytes at a time
// and stopping only where a marking may start (the first two letters of a
// marking's first word, the second may be the first byte of É, È, Ê, Ë,
// or "tl" in any case; in any case with CaseInsensitive) or where
// textfold must look to tell whether folding could matter (a
// textfold.Reading, shown what textfold.Look asks for). Only when it found
// nothing and folding could matter does it fold and read the folded text.
// Every closer look is bounded or scans text no other look scans again,
// so the whole stays linear.
package classify
