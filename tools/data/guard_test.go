package data

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOnlyOneReadOnlySelectRuns(t *testing.T) {
	h := newHarness(t, Config{})
	h.docs.add("d1", "a.csv", []byte("id,name\n1,ann\n2,bob\n3,cy\n"))
	attached := filepath.Join(t.TempDir(), "other.db")
	count := func() string {
		return single(t, h.sql("d1", "SELECT COUNT(*) || ':' || group_concat(name) FROM dataset"))
	}
	before := count()
	for _, c := range []struct{ sql, want string }{
		// The authorizer names what it refused: SQLite compiled the
		// statement and asked.
		{"DELETE FROM dataset", "DELETE (writing to dataset)"},
		{"delete from dataset where id > 0", "DELETE (writing to dataset)"},
		{"INSERT INTO dataset VALUES (4, 'eve')", "INSERT (writing to dataset)"},
		{"UPDATE dataset SET name = 'x'", "UPDATE (writing to dataset)"},
		{"WITH x AS (SELECT 1) DELETE FROM dataset", "DELETE (writing to dataset)"},
		{"CREATE TABLE t (a)", "a change of the schema"},
		{"CREATE TEMP VIEW v AS SELECT 1", "a change of the schema"},
		{"DROP TABLE dataset", "a change of the schema"},
		{"ALTER TABLE dataset RENAME TO x", "ALTER TABLE"},
		{"ATTACH DATABASE '" + attached + "' AS other", "ATTACH"},
		{"PRAGMA query_only = 0", "PRAGMA query_only"},
		{"PRAGMA table_info(dataset)", "PRAGMA table_info"},
		{"BEGIN", "a transaction statement"},
		{"SELECT load_extension('x')", "load_extension()"},
		// Several statements are refused before any runs.
		{"SELECT 1; DELETE FROM dataset", "only one SQL statement"},
		{"SELECT 1; SELECT 2", "only one SQL statement"},
		{"SELECT 1) ; DELETE FROM dataset; SELECT (1", "only one SQL statement"},
		{"", "the SQL is empty"},
		{" ; -- nothing", "the SQL is empty"},
	} {
		msg := h.refused("d1", c.sql)
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q lacks %q", c.sql, msg, c.want)
		}
		if strings.HasPrefix(c.want, "DELETE") && !strings.Contains(msg, "only reads") {
			t.Errorf("%s: %q does not say what is allowed", c.sql, msg)
		}
	}
	if _, err := os.Stat(attached); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ATTACH created %s: %v", attached, err)
	}
	if after := count(); after != before {
		t.Errorf("data changed: %s, then %s", before, after)
	}
	// What looks like several statements but is one still runs.
	for _, q := range []string{
		"SELECT 'a;b' FROM dataset LIMIT 1;",
		"SELECT name FROM dataset -- the end; really\n;",
		"SELECT \"name\" /* ; */ FROM dataset LIMIT 1",
		"WITH t AS (SELECT name FROM dataset) SELECT name FROM t LIMIT 1",
	} {
		h.sql("d1", q)
	}
}

// The connection refuses writes even without the authorizer: query_only
// is a second wall.
func TestQueryOnlyWithoutAuthorizer(t *testing.T) {
	h := newHarness(t, Config{})
	h.docs.add("d1", "a.csv", []byte("id\n1\n"))
	_, err := h.set.with(context.Background(), "d1", func(_ Document, ds *dataset) error {
		if err := removeAuthorizer(ds); err != nil {
			return err
		}
		_, err := ds.conn.ExecContext(context.Background(), "DELETE FROM dataset")
		if err == nil || !strings.Contains(err.Error(), "readonly") {
			t.Errorf("DELETE without the authorizer: %v, want a read-only error", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestQueryThatRunsForeverEndsAtTheDeadline(t *testing.T) {
	h := newHarness(t, Config{Timeout: 300 * time.Millisecond})
	h.docs.add("d1", "a.csv", []byte("id\n1\n2\n"))
	h.sql("d1", "SELECT 1") // loaded before the clock matters
	start := time.Now()
	msg := h.refused("d1", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the query ran %s past a 300 ms limit", took)
	}
	if !strings.Contains(msg, ErrTimeout.Error()) {
		t.Errorf("message %q does not name the time limit", msg)
	}
	// A query that streams forever shows its first rows and says the
	// count is unknown.
	out := h.sql("d1", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c")
	if !strings.Contains(out, "counting stopped at the time limit") || !strings.Contains(out, "| 200 |") {
		t.Errorf("streaming query:\n%s", out[len(out)-300:])
	}
	// The connection survived the interruptions.
	if got := single(t, h.sql("d1", "SELECT SUM(id) FROM dataset")); got != "3" {
		t.Errorf("after the timeout, SUM(id) = %s", got)
	}
}

func TestSingleStatement(t *testing.T) {
	for _, c := range []struct {
		in, want string
		err      bool
	}{
		{"SELECT 1", "SELECT 1", false},
		{"SELECT 1;  ", "SELECT 1", false},
		{"SELECT ';'", "SELECT ';'", false},
		{"SELECT 'it''s;'", "SELECT 'it''s;'", false},
		{"SELECT [a;b] FROM t", "SELECT [a;b] FROM t", false},
		{"SELECT 1; /* c */ -- d", "SELECT 1", false},
		{"SELECT 1;SELECT 2", "", true},
		{"SELECT 1 /* ; */; x", "", true},
		{"-- only\n", "", true},
	} {
		got, err := singleStatement(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("singleStatement(%q) = %q, %v", c.in, got, err)
		}
	}
	if _, err := singleStatement("SELECT 1; SELECT 2"); err == nil || errors.Is(err, ErrRefused) {
		t.Errorf("two statements: %v", err)
	}
}
