package data

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrRefused is a statement the database refused to compile because it
// does more than read.
var ErrRefused = errors.New("refused")

// ErrTimeout is a query stopped at its deadline.
var ErrTimeout = errors.New("time limit reached")

// answer is a query's result as the model will see it.
type answer struct {
	columns []string
	rows    [][]any
	// total is the number of rows the query returned, counted past the
	// shown ones; partial means counting stopped at the deadline.
	total   int
	partial bool
	elapsed time.Duration
}

// query runs one statement within timeout, keeping the first maxRows rows
// and counting the others.
func (ds *dataset) query(ctx context.Context, stmt string, maxRows int, timeout time.Duration) (answer, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	ds.guard.take() // what an earlier call left, if anything
	rows, err := ds.conn.QueryContext(ctx, stmt)
	if err != nil {
		return answer{}, ds.explain(ctx, err, timeout)
	}
	defer rows.Close()
	a := answer{}
	if a.columns, err = rows.Columns(); err != nil {
		return answer{}, ds.explain(ctx, err, timeout)
	}
	for rows.Next() {
		a.total++
		if len(a.rows) >= maxRows {
			continue // counted, not shown
		}
		vals := make([]any, len(a.columns))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return answer{}, ds.explain(ctx, err, timeout)
		}
		a.rows = append(a.rows, vals)
	}
	a.elapsed = time.Since(start)
	if err := rows.Err(); err != nil {
		err = ds.explain(ctx, err, timeout)
		if !errors.Is(err, ErrTimeout) || len(a.rows) == 0 {
			return answer{}, err
		}
		// The rows shown are right; only their count is unknown.
		a.partial = true
	}
	return a, nil
}

// explain turns a failure into what the model can act on.
func (ds *dataset) explain(ctx context.Context, err error, timeout time.Duration) error {
	var se *sqlite.Error
	isCode := func(code int) bool { return errors.As(err, &se) && se.Code()&0xff == code }
	if ctx.Err() != nil || isCode(sqlite3.SQLITE_INTERRUPT) {
		return fmt.Errorf("%w: the query was stopped after %s; make it cheaper (filter, aggregate, LIMIT) or check a recursive CTE ends", ErrTimeout, timeout)
	}
	// Refused functions fail as plain errors: what the guard recorded
	// tells them apart.
	if what := ds.guard.take(); what != "" || isCode(sqlite3.SQLITE_AUTH) {
		if what == "" {
			what = "an operation that is not reading"
		}
		return fmt.Errorf("%w: data_analysis only reads: it runs one SELECT (WITH … SELECT allowed) on table %s, and this SQL asks for %s", ErrRefused, TableName, what)
	}
	switch {
	case isCode(sqlite3.SQLITE_READONLY):
		return fmt.Errorf("%w: data_analysis only reads: it runs one SELECT on table %s", ErrRefused, TableName)
	case errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone):
		ds.broken = true
		return fmt.Errorf("the database of this document was lost; call again to reload it: %w", err)
	}
	return fmt.Errorf("the SQL failed: %w. The table is %s, with columns %s", err, TableName, ds.info.columnList())
}

func (in info) columnList() string {
	names := make([]string, len(in.columns))
	for i, c := range in.columns {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}
