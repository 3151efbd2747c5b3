// Package bench owns Moteur's side-by-side benchmarks: Moteur's keyword
// search, ingestion and agent loop measured against the engines people
// would pick instead (bleve with BM25 and its English analyzer, C SQLite
// running Moteur's own FTS5 statement on Moteur's own file, eino's ReAct
// agent), on the same passages, queries and scripts. It is a module of its
// own so that none of the peers enters Moteur's build.
//
// The search engines and the loops are safe for concurrent use; the
// benchmarks run one at a time.
package bench
