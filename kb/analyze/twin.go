package analyze

// TermsAndQueryTerms returns Terms(text, opt) and QueryTerms(text,
// Options{}) — what ingestion stores of a chunk: its index terms and the
// default analysis's distinct terms — reading text once: the folding and
// splitting are the same, only the stemming of each word differs, and
// they are most of an analysis's cost. A raw opt splits differently: it is
// two analyses.
func TermsAndQueryTerms(text string, opt Options) (terms, query []string) {
	if opt.Raw {
		return Terms(text, opt), QueryTerms(text, Options{})
	}
	a := getAnalyzer(opt, true)
	defer putAnalyzer(a)
	q := getAnalyzer(Options{}, true)
	defer putAnalyzer(q)
	a.twin = q
	a.run(text)
	a.twin = nil
	terms = a.terms()
	if len(q.ends) == 0 && q.words > 0 { // QueryTerms' fallback
		q.reset(false)
		q.run(text)
	}
	return terms, dedupe(q.terms())
}
