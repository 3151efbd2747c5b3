package beir

// Doc is a document of the corpus.
type Doc struct{ ID, Title, Text string }

// Query is a test query.
type Query struct{ ID, Text string }

// Set is a loaded test set.
type Set struct {
	Corpus []Doc
	// Queries are those with at least one judgement in Qrels, in file order.
	Queries []Query
	// Qrels maps query ID → corpus ID → graded relevance (> 0 relevant).
	Qrels map[string]map[string]int
}
