package kb

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/moteur/moteur/kb/analyze"
)

// TestMigrationBackfillsTerms: a base stored before kb_terms existed gets
// its rows when the database is opened, the very rows its documents would
// get if ingested now, and searches on it rank as its FTS5 table does.
func TestMigrationBackfillsTerms(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	ctx := context.Background()
	s := openTest(t, Config{Path: path})
	mustCreate(t, s, "docs", CreateOptions{Analyzer: AnalyzerMoteur})
	mustCreate(t, s, "raw", CreateOptions{Analyzer: AnalyzerRaw})
	dir := zipfCorpus(t, 8)
	mustIngest(t, s, "docs", dir)
	mustIngest(t, s, "raw", dir)
	read := func(s *Store) map[int64][]byte {
		rows, err := s.r.QueryContext(ctx, `SELECT chunk, tf FROM kb_terms`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[int64][]byte{}
		for rows.Next() {
			var row int64
			var tf []byte
			if err := rows.Scan(&row, &tf); err != nil {
				t.Fatal(err)
			}
			out[row] = tf
		}
		return out
	}
	written := read(s)
	before, _ := s.Base(ctx, "docs")
	if len(written) != before.Chunks {
		t.Fatalf("%d kb_terms rows for %d chunks of the Moteur base (a raw base has none)", len(written), before.Chunks)
	}
	// Back to the schema before kb_terms, where every base had an FTS5
	// table and an fts5vocab table.
	for _, q := range []string{`DROP TABLE kb_terms`, `ALTER TABLE kb_documents DROP COLUMN language`, `DELETE FROM kb_migrations WHERE version > 2`,
		ftsDDL(ftsTable(before.rowid), AnalyzerMoteur),
		`CREATE VIRTUAL TABLE ` + vocabTable(before.rowid) + ` USING fts5vocab(` + ftsTable(before.rowid) + `, row)`} {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	s = openTest(t, Config{Path: path})
	if got := read(s); !reflect.DeepEqual(got, written) {
		t.Fatalf("backfilled %d rows, different from the %d written at ingestion", len(got), len(written))
	}
	tables := func(prefix string) (n int) {
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name LIKE ?`, prefix+"%").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := tables(ftsTable(before.rowid)); n != 0 {
		t.Fatalf("%d FTS5 tables of the Moteur base left after the backfill", n)
	}
	raw, _ := s.Base(ctx, "raw")
	if tables(ftsTable(raw.rowid)) == 0 {
		t.Fatal("the raw base's FTS5 table dropped")
	}
	if res := search(t, s, Query{Text: "serveur panne", Bases: []string{"raw"}, Mode: ModeKeyword}); len(res.Hits) == 0 {
		t.Fatal("the raw base finds nothing after the migration")
	}
	b, _ := s.Base(ctx, "docs")
	if b.generation <= before.generation {
		t.Fatalf("generation %d after the backfill, %d before: other processes would keep their caches", b.generation, before.generation)
	}
	ref := newReferenceFTS(t, s, b)
	ix, err := s.keywordIndex(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"serveur panne", "kalo mire sa", "congés payés"} {
		terms := ix.dropCommon(analyze.QueryTerms(q, analyze.Options{}))
		want := ref.top(t, terms, 100)
		if d := sameTop(ix.top(terms, 100), want); d != "" || len(want) == 0 {
			t.Fatalf("query %q after the backfill: %s (%d hits)", q, d, len(want))
		}
	}
}

// TestTermsRoundTrip: a row decodes to the frequencies it was encoded from,
// and a truncated row is an error, not a panic.
func TestTermsRoundTrip(t *testing.T) {
	ct := chunkTerms{{"titre", "doc"}, {"titre"}, {"corps", "titre", "corps", "été"}}
	blob := encodeTerms(ct)
	got := map[string][3]uint64{}
	total, err := decodeTerms(blob, func(term []byte, tf [3]uint64) { got[string(term)] = tf })
	if err != nil || total != 7 {
		t.Fatalf("total %d, %v", total, err)
	}
	want := map[string][3]uint64{"titre": {1, 1, 1}, "doc": {1, 0, 0}, "corps": {0, 0, 2}, "été": {0, 0, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %v, want %v", got, want)
	}
	for n := 1; n < len(blob); n++ {
		if _, err := decodeTerms(blob[:n], func([]byte, [3]uint64) {}); err == nil {
			// A cut that falls between two terms decodes fewer terms, which
			// only the row count can tell; every other cut must fail.
			if !cutBetweenTerms(blob, n) {
				t.Fatalf("a row cut at %d of %d bytes decoded", n, len(blob))
			}
		}
	}
	if _, err := decodeTerms(nil, func([]byte, [3]uint64) {}); err == nil {
		t.Fatal("an empty row decoded")
	}
}

// cutBetweenTerms reports whether blob[:n] ends exactly after a term's
// frequencies.
func cutBetweenTerms(blob []byte, n int) bool {
	_, pos := binary.Uvarint(blob)
	if pos == n {
		return true // the token count alone: a row without terms
	}
	for pos < len(blob) {
		l, k := binary.Uvarint(blob[pos:])
		pos += k + int(l)
		for range 3 {
			_, k := binary.Uvarint(blob[pos:])
			pos += k
		}
		if pos == n {
			return true
		}
	}
	return false
}
