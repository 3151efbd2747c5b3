// Package beir reads a retrieval test set in the BEIR layout and scores
// rankings: nDCG@k, recall@k, MRR@k. It owns the file format and the
// metrics, so that every retrieval experiment of the knowledge bases is
// measured the same way; how documents are ranked is the caller's business.
//
// A set is a directory holding:
//
//	corpus.jsonl    one JSON object per line: {"_id", "title", "text"}
//	queries.jsonl   one JSON object per line: {"_id", "text"}
//	qrels/test.tsv  a header line "query-id\tcorpus-id\tscore", then one
//	                judgement per line, score an integer (> 0: relevant)
//
// Other JSON fields (BEIR's "metadata") are ignored; blank lines are skipped.
package beir
