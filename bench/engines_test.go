package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/moteur/moteur/bench/corpus"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/kb/retrieval"
)

// searcher is one keyword search engine over a corpus's passages.
type searcher interface {
	Search(ctx context.Context, query string) (int, error)
	Close() error
}

// Engines in the order run.sh pairs them: Moteur, then what it is
// compared with.
var engineNames = []string{"moteur", "bleve", "moteur-raw", "fts5-purego", "fts5-c"}

// corpora are built once per process (and cached on disk across them).
var corpora sync.Map // root/n → *corpus.Corpus

func loadCorpus(tb testing.TB, root string, n int) *corpus.Corpus {
	tb.Helper()
	key := fmt.Sprintf("%s/%d", root, n)
	if c, ok := corpora.Load(key); ok {
		return c.(*corpus.Corpus)
	}
	c, err := corpus.Load(root, n, corpus.Sources{})
	if err != nil {
		tb.Fatal(err)
	}
	corpora.Store(key, c)
	return c
}

// openEngine opens engine name over corpus c, building (or reusing) the
// index it needs. An engine this build cannot run skips tb.
func openEngine(tb testing.TB, name string, c *corpus.Corpus) searcher {
	tb.Helper()
	ctx := context.Background()
	var s searcher
	var err error
	defaults := retrieval.Settings{}.WithDefaults()
	switch name {
	case "moteur", "moteur-raw":
		var db string
		if db, err = MoteurDB(ctx, c); err == nil {
			base := BaseDocs
			if name == "moteur-raw" {
				base = BaseRaw
			}
			s, err = OpenMoteurSearch(ctx, db, base, kb.ModeKeyword)
		}
	case "fts5-purego", "fts5-c":
		var db string
		if db, err = MoteurDB(ctx, c); err == nil {
			driver := DriverPureGo
			if name == "fts5-c" {
				driver = DriverC
			}
			s, err = OpenFTS5Search(ctx, driver, db, BaseRaw, defaults.TopK)
		}
	case "bleve":
		var path string
		if path, err = BleveIndex(c); err == nil {
			s, err = OpenBleveSearch(path, defaults.Limit)
		}
	default:
		err = fmt.Errorf("no engine %q", name)
	}
	if errors.Is(err, ErrNoFTS5) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TestEnginesSearchTheCorpus builds every engine over a small corpus and
// checks that each finds passages for nearly all of the corpus's queries:
// a benchmark of an engine that answers nothing would measure nothing.
func TestEnginesSearchTheCorpus(t *testing.T) {
	c := loadCorpus(t, t.TempDir(), 300)
	if len(c.Queries) < 10 {
		t.Fatalf("%d queries: too few to tell", len(c.Queries))
	}
	for _, name := range engineNames {
		t.Run(name, func(t *testing.T) {
			s := openEngine(t, name, c)
			found := 0
			for _, q := range c.Queries {
				n, err := s.Search(context.Background(), q)
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				if n > 0 {
					found++
				}
			}
			// Every query comes from a document of the corpus; a rare one
			// may be only stop words for an analyzer, or cut by Moteur's
			// thresholds.
			if found*10 < len(c.Queries)*9 {
				t.Errorf("%s found passages for %d of %d queries", name, found, len(c.Queries))
			}
		})
	}
}

// TestSQLitesAgree checks that the C and the pure-Go SQLite return the same
// rows for every query: the anchor compares two libraries, not two plans.
func TestSQLitesAgree(t *testing.T) {
	c := loadCorpus(t, t.TempDir(), 300)
	ctx := context.Background()
	db, err := MoteurDB(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	rowsOf := func(driver string) [][]int64 {
		s, err := OpenFTS5Search(ctx, driver, db, BaseRaw, 30)
		if errors.Is(err, ErrNoFTS5) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var out [][]int64
		for _, q := range c.Queries {
			rows, err := s.rows(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rows)
		}
		return out
	}
	cgo, pure := rowsOf(DriverC), rowsOf(DriverPureGo)
	some := 0
	for i := range pure {
		some += len(pure[i])
		if fmt.Sprint(pure[i]) != fmt.Sprint(cgo[i]) {
			t.Errorf("%q: pure Go %v, C %v", c.Queries[i], pure[i], cgo[i])
		}
	}
	if some == 0 {
		t.Fatal("no query found any row: nothing was compared")
	}
}
