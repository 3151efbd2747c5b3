package kb

import (
	"context"
	"database/sql"
)

// hitsQuery reads the chunks whose rowids are the JSON array ?1, with
// their document and the rowid of their base (whose name and id the search
// knows: no join with kbs). Its text is the same for every search, so it
// is prepared once per store (prepared) instead of once per search: the
// parse and plan of a statement of two joins cost about 50 µs in the
// pure-Go SQLite, a tenth of a search of 10,000 passages.
const hitsQuery = `SELECT c.rowid, c.id, c.idx, c.kind, c.page, c.headings, c.text, c.terms, c.embedding,
	d.id, d.title, d.path, d.classified, c.kb
	FROM kb_chunks c JOIN kb_documents d ON d.rowid = c.doc
	WHERE c.rowid IN (SELECT value FROM json_each(?1))`

// prepared returns s's statement of query on the read connections,
// preparing it on first use; Close closes them. database/sql prepares it
// again on each connection as needed. Only a few fixed texts (constants of
// this package) are ever prepared.
func (s *Store) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	if st := s.stmts[query]; st != nil {
		return st, nil
	}
	st, err := s.r.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.stmts[query] = st
	return st, nil
}
