// Package kb owns knowledge bases: documents parsed (kb/parse), cut into
// chunks (kb/chunk), indexed for keyword search (BM25 exactly as SQLite
// FTS5's bm25() computes it, over terms from kb/analyze: a Moteur base's
// term frequencies in kb_terms, read into an inverted index in memory per
// generation and searched with MaxScore top-k pruning; a raw base's FTS5
// table) and, when an embedding model is configured, for
// semantic search (float32 vectors, exact cosine scan); and the search that
// seed 000 gives search_knowledge: hybrid by weighted Reciprocal Rank
// Fusion, per-base mode fallbacks, thresholds, rerank, MMR.
//
// Knowledge bases live in the same SQLite file as sessions. Every change to
// a document (ingest, re-ingest, removal) is one transaction: a reader sees
// the whole old document or the whole new one, never half of either.
//
// A Store is safe for concurrent use. Writes of one process go through one
// connection; between processes SQLite's write lock orders them. Vectors,
// the keyword index and each base's sums are cached in memory per base and
// reloaded when the base's generation (bumped by every committed change)
// moves.
package kb
