// Package extractive is a provider.Provider that needs no model: it answers
// a quick-answer request by quoting, from the passages the request carries,
// the sentences that share the most words with the question, each followed
// by its citation. It is what the quick-answer pipeline falls back on when
// no model is configured, and it never touches the network.
//
// The package also owns the format in which that pipeline hands passages to
// a model (FormatSources, FormatPrompt) and reads them back (ParsePrompt),
// so that writer and reader share one definition:
//
//	<sources>
//	<source id="c1" title="Document title" headings="Section > Sub">
//	passage text…
//	</source>
//	</sources>
//
//	Question: the user's question
//
// Attribute values escape &, ", CR and LF as XML character references; a
// passage escapes "</source" by putting a backslash after its "<" (and one
// more into what already looks escaped), so any text round-trips.
package extractive
