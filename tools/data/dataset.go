package data

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Limits of the query connection: no database may be attached, a value
// cannot grow past what a result would ever show (zeroblob(1e9) would
// otherwise allocate a gigabyte), and SQL stays the size of a query.
const (
	maxValueBytes = 16 << 20
	maxSQLBytes   = 100 << 10
	// maxColumns is SQLite's default limit on a table's columns.
	maxColumns = 2000
)

// dataset is one document's in-memory database, holding the table dataset.
// Its single connection lives as long as it does: an in-memory database
// lives and dies with its connection.
type dataset struct {
	db    *sql.DB
	conn  *sql.Conn
	guard *guard
	info  info
	// broken marks a connection the driver gave up: the cache loads the
	// document again instead of reusing it.
	broken bool
}

// info describes the table for data_schema and for SQL errors.
type info struct {
	doc     string
	format  string
	rows    int
	columns []column
	sheets  []sheetInfo
	notes   []string
}

type sheetInfo struct {
	name string
	rows int
}

// openDataset loads the parsed document into a new in-memory database and
// locks it to reading.
func openDataset(ctx context.Context, p *parsed) (ds *dataset, err error) {
	f := newFrame(p)
	if len(f.columns) > maxColumns {
		return nil, fmt.Errorf("%s has %d columns, more than the %d the data tools load", p.name, len(f.columns), maxColumns)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, fmt.Errorf("open the in-memory database: %w", err)
	}
	// One connection: a second one would be another, empty database.
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("open the in-memory database: %w", err), db.Close())
	}
	ds = &dataset{db: db, conn: conn, guard: &guard{}}
	defer func() {
		if err != nil {
			err = errors.Join(err, ds.close())
			ds = nil
		}
	}()
	if err := insert(ctx, conn, f); err != nil {
		return nil, fmt.Errorf("load %s: %w", p.name, err)
	}
	if err := ds.lock(ctx); err != nil {
		return nil, fmt.Errorf("lock the database of %s: %w", p.name, err)
	}
	ds.info = info{doc: p.name, format: p.format, rows: f.count(), columns: f.columns, notes: f.notes}
	for _, s := range p.sheets {
		ds.info.sheets = append(ds.info.sheets, sheetInfo{name: s.name, rows: len(s.rows)})
	}
	return ds, nil
}

// lock makes the connection read-only for good: query_only refuses every
// write, and the authorizer, installed last, refuses at compile time
// everything that is not reading, PRAGMA query_only=0 included.
func (ds *dataset) lock(ctx context.Context) error {
	if _, err := ds.conn.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
		return err
	}
	for _, l := range []struct{ id, v int }{
		{sqlite3.SQLITE_LIMIT_ATTACHED, 0},
		{sqlite3.SQLITE_LIMIT_LENGTH, maxValueBytes},
		{sqlite3.SQLITE_LIMIT_SQL_LENGTH, maxSQLBytes},
	} {
		if _, err := sqlite.Limit(ds.conn, l.id, l.v); err != nil {
			return err
		}
	}
	return ds.conn.Raw(func(dc any) error {
		r, ok := dc.(sqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("the SQLite driver offers no authorizer")
		}
		return r.RegisterAuthorizer(ds.guard.authorize)
	})
}

// insert creates the table and fills it in one transaction, many rows per
// statement.
func insert(ctx context.Context, conn *sql.Conn, f *frame) error {
	defs := make([]string, len(f.columns))
	for i, c := range f.columns {
		defs[i] = quoteIdent(c.name) + " " + c.kind.sqlType()
	}
	if _, err := conn.ExecContext(ctx, "CREATE TABLE "+TableName+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	b := &batcher{ctx: ctx, tx: tx, width: len(f.columns)}
	// SQLite binds at most 32,766 parameters per statement.
	b.per = max(1, min(256, 32000/max(1, b.width)))
	if err := f.rows(b.add); err != nil {
		return errors.Join(err, b.close(), tx.Rollback())
	}
	if err := b.flush(); err != nil {
		return errors.Join(err, b.close(), tx.Rollback())
	}
	if err := b.close(); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}

// batcher gathers rows into multi-row INSERTs.
type batcher struct {
	ctx   context.Context
	tx    *sql.Tx
	width int
	per   int
	args  []any
	full  *sql.Stmt // the statement of a full batch, prepared once
}

func (b *batcher) add(vals []any) error {
	b.args = append(b.args, vals...)
	if len(b.args) == b.per*b.width {
		return b.flush()
	}
	return nil
}

func (b *batcher) flush() error {
	n := len(b.args) / b.width
	if n == 0 {
		return nil
	}
	var err error
	if n == b.per {
		if b.full == nil {
			if b.full, err = b.tx.PrepareContext(b.ctx, insertSQL(b.width, n)); err != nil {
				return err
			}
		}
		_, err = b.full.ExecContext(b.ctx, b.args...)
	} else {
		_, err = b.tx.ExecContext(b.ctx, insertSQL(b.width, n), b.args...)
	}
	b.args = b.args[:0]
	return err
}

func (b *batcher) close() error {
	if b.full == nil {
		return nil
	}
	return b.full.Close()
}

func insertSQL(width, rows int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", width), ",") + ")"
	return "INSERT INTO " + TableName + " VALUES " + strings.TrimSuffix(strings.Repeat(row+",", rows), ",")
}

// quoteIdent quotes a column name for SQL.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// close drops the database.
func (ds *dataset) close() error {
	var errs []error
	if ds.conn != nil {
		errs = append(errs, ds.conn.Close())
	}
	errs = append(errs, ds.db.Close())
	return errors.Join(errs...)
}
