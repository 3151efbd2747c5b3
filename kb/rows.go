package kb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// queryAll runs a query on the read connections and scans every row.
func queryAll[T any](ctx context.Context, db *sql.DB, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// queryOne reads the one row of a query; no row is what ErrNotFound (the
// thing named what is not there).
func queryOne[T any](ctx context.Context, db *sql.DB, scan func(scanner) (T, error), what, query string, args ...any) (T, error) {
	v, err := scan(db.QueryRowContext(ctx, query, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("%s %w", what, ErrNotFound)
	}
	if err != nil {
		return v, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}
