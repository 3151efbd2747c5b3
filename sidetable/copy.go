package sidetable

import (
	"context"
	"fmt"
	"reflect"
)

// Copy copies the rows that query reads from src into dst with insert, in
// one write transaction of dst, and returns how many insert added. dest
// makes the scan destinations of one row — pointers, typed so that both
// back ends convert them (bool, int64, []byte, sql.NullInt64…) — whose
// values are then insert's arguments, in order. insert should end with ON
// CONFLICT DO NOTHING, so that a copy that stopped half-way can be run
// again. Both statements use ? placeholders.
func Copy(ctx context.Context, src, dst *DB, query, insert string, dest func() []any) (copied int, err error) {
	rows, err := src.QueryContext(ctx, query)
	if err != nil {
		return 0, fmt.Errorf("copy %s from %s: %w", src.what, src.Name, err)
	}
	var all [][]any
	for rows.Next() {
		d := dest()
		if err := rows.Scan(d...); err != nil {
			rows.Close()
			return 0, fmt.Errorf("copy %s from %s: %w", src.what, src.Name, err)
		}
		args := make([]any, len(d))
		for i, p := range d {
			args[i] = reflect.ValueOf(p).Elem().Interface()
		}
		all = append(all, args)
	}
	if err := rows.Close(); err != nil {
		return 0, fmt.Errorf("copy %s from %s: %w", src.what, src.Name, err)
	}
	err = dst.Write(ctx, func(tx Tx) error {
		for _, args := range all {
			res, err := tx.ExecContext(ctx, insert, args...)
			if err != nil {
				return fmt.Errorf("%v: %w", args[0], err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				copied++
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("copy %s to %s: %w", dst.what, dst.Name, err)
	}
	return copied, nil
}
