package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"

	_ "github.com/mattn/go-sqlite3" // C SQLite, as "sqlite3"
	_ "modernc.org/sqlite"          // Moteur's pure-Go SQLite, as "sqlite"

	"github.com/moteur/moteur/kb/analyze"
)

// SQLite drivers of the FTS5 engines.
const (
	DriverC      = "sqlite3" // github.com/mattn/go-sqlite3, cgo
	DriverPureGo = "sqlite"  // modernc.org/sqlite, Moteur's
)

// ErrNoFTS5 means the C SQLite was built without FTS5: build the
// benchmarks with -tags sqlite_fts5 (run.sh does).
var ErrNoFTS5 = errors.New("this C SQLite has no FTS5 (build with -tags sqlite_fts5)")

// FTS5Search runs Moteur's own keyword statement for a raw base (kb's
// ftsTop: the OR of the terms, bm25() with weights 1, 1, 1, the top k by
// score then rowid) on Moteur's own file, through one SQLite driver: the
// same statement on the same file, so that the C and the pure-Go SQLite
// differ only by the library.
type FTS5Search struct {
	db   *sql.DB
	stmt *sql.Stmt
	k    int
}

// OpenFTS5Search opens the database at path with driver, for reading
// only, for searches of base's FTS5 table that return k rows.
func OpenFTS5Search(ctx context.Context, driver, path, base string, k int) (*FTS5Search, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath()
	switch driver {
	case DriverC:
		dsn += "?_busy_timeout=30000&_query_only=1"
	case DriverPureGo:
		dsn += "?_pragma=busy_timeout(30000)&_pragma=query_only(1)"
	default:
		return nil, fmt.Errorf("fts5: unknown driver %q", driver)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("fts5 %s: %w", driver, err)
	}
	var row int64
	if err := db.QueryRowContext(ctx, `SELECT rowid FROM kbs WHERE name = ? AND analyzer = 'raw'`, base).Scan(&row); err != nil {
		db.Close()
		return nil, fmt.Errorf("fts5 %s: raw base %s: %w", driver, base, err)
	}
	t := fmt.Sprintf("kb_fts_%d", row)
	stmt, err := db.PrepareContext(ctx, fmt.Sprintf(
		`SELECT rowid, bm25(%s, 1, 1, 1) AS r FROM %s WHERE %s MATCH ? ORDER BY r, rowid LIMIT ?`, t, t, t))
	if err != nil {
		db.Close()
		if strings.Contains(err.Error(), "no such module: fts5") {
			return nil, ErrNoFTS5
		}
		return nil, fmt.Errorf("fts5 %s: %w", driver, err)
	}
	return &FTS5Search{db: db, stmt: stmt, k: k}, nil
}

// Search returns the number of rows the statement gives for query,
// analysed as Moteur analyses a raw base's queries.
func (s *FTS5Search) Search(ctx context.Context, query string) (int, error) {
	rows, err := s.rows(ctx, query)
	return len(rows), err
}

// rows returns the rowids the statement gives for query, best first.
func (s *FTS5Search) rows(ctx context.Context, query string) ([]int64, error) {
	terms := analyze.QueryTerms(query, analyze.Options{Raw: true})
	if len(terms) == 0 {
		return nil, nil
	}
	rows, err := s.stmt.QueryContext(ctx, MatchQuery(terms), s.k)
	if err != nil {
		return nil, fmt.Errorf("fts5 search: %w", err)
	}
	defer rows.Close()
	out := make([]int64, 0, s.k)
	for rows.Next() {
		var row int64
		var score float64
		if err := rows.Scan(&row, &score); err != nil {
			return out, fmt.Errorf("fts5 search: %w", err)
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// Close closes the database.
func (s *FTS5Search) Close() error { return errors.Join(s.stmt.Close(), s.db.Close()) }

// MatchQuery is kb's FTS5 expression of terms: OR-ed, each quoted so that
// no text is read as FTS5 syntax.
func MatchQuery(terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " OR ")
}
