package kb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/moteur/moteur/kb/retrieval"
	"github.com/moteur/moteur/session"
)

// Config configures a Store. Zero values are defaults.
type Config struct {
	// Path is Moteur's database file (session.DefaultPath), created if
	// missing.
	Path string
	// Embedder turns texts into vectors; nil means no semantic index for
	// new bases and keyword search only.
	Embedder Embedder
	// Reranker scores candidates against the query; nil means no rerank.
	Reranker Reranker
	// Classify tells whether a file's path is classified (a path rule of
	// the configuration), and by which rule; nil classifies nothing. The
	// passages of a classified document are marked so, wherever they go.
	Classify func(path string) (rule string, classified bool)
	// Retrieval overrides the retrieval defaults (zero fields keep them).
	Retrieval retrieval.Settings
	// Now and NewID are seams for tests; nil means time.Now and random ids.
	Now   func() time.Time
	NewID func() string
}

// Embedder turns texts into vectors of one model.
type Embedder interface {
	Model() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Reranker scores each document's relevance to query, in the documents'
// order.
type Reranker interface {
	Model() string
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
}

// Store holds the knowledge bases of one database.
type Store struct {
	path      string
	w         *sql.DB // the one writing connection of this process
	r         *sql.DB // read-only connections
	embedder  Embedder
	reranker  Reranker
	classify  func(string) (string, bool)
	retrieval retrieval.Settings
	now       func() time.Time
	newID     func() string

	vecMu sync.Mutex
	vecs  map[string]*vectorSet // by base id

	kwMu sync.Mutex
	kws  map[string]*keywordIndex // by base id

	sumMu sync.Mutex
	sums  map[string]baseSums // by base id

	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt // read statements prepared once, by query text (hits_stmt.go)
}

// busyTimeout is how long a write waits for another process's transaction
// (an ingestion elsewhere commits one document at a time).
const busyTimeout = 30 * time.Second

// Open opens the knowledge bases of the database at cfg.Path. The session
// store creates and checks the file (a corrupt file, another application's
// or a newer Moteur's is refused, untouched); this package adds its own
// tables, versioned apart from the session schema.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	r := cfg.Retrieval.WithDefaults()
	if err := r.Validate(); err != nil {
		return nil, err
	}
	path, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("open knowledge bases %s: %w", cfg.Path, err)
	}
	ss, err := session.OpenSQLite(ctx, session.SQLiteConfig{Path: path})
	if err != nil {
		return nil, fmt.Errorf("open knowledge bases: %w", err)
	}
	if err := ss.Close(); err != nil {
		return nil, fmt.Errorf("open knowledge bases: %w", err)
	}
	s := &Store{path: path, embedder: cfg.Embedder, reranker: cfg.Reranker, retrieval: r, classify: cfg.Classify,
		now: cfg.Now, newID: cfg.NewID, vecs: map[string]*vectorSet{},
		kws: map[string]*keywordIndex{}, sums: map[string]baseSums{}, stmts: map[string]*sql.Stmt{}}
	if s.now == nil {
		s.now = time.Now
	}
	if s.newID == nil {
		s.newID = randomID
	}
	base := "file:" + (&url.URL{Path: path}).EscapedPath() +
		fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(FULL)", busyTimeout.Milliseconds())
	if s.w, err = sql.Open("sqlite", base+"&_pragma=journal_mode(WAL)&_txlock=immediate"); err != nil {
		return nil, fmt.Errorf("open knowledge bases %s: %w", path, err)
	}
	s.w.SetMaxOpenConns(1)
	s.w.SetConnMaxIdleTime(0)
	if err := s.migrate(ctx); err != nil {
		s.w.Close()
		return nil, err
	}
	if s.r, err = sql.Open("sqlite", base+"&_pragma=query_only(1)"); err != nil {
		s.w.Close()
		return nil, fmt.Errorf("open knowledge bases %s: %w", path, err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	s.r.SetMaxOpenConns(n)
	s.r.SetMaxIdleConns(n)
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error {
	s.stmtMu.Lock()
	var errs []error
	for _, st := range s.stmts {
		errs = append(errs, st.Close())
	}
	s.stmts = map[string]*sql.Stmt{}
	s.stmtMu.Unlock()
	if err := errors.Join(append(errs, s.r.Close(), s.w.Close())...); err != nil {
		return fmt.Errorf("close knowledge bases %s: %w", s.path, err)
	}
	return nil
}

// Retrieval returns the retrieval settings in force.
func (s *Store) Retrieval() retrieval.Settings { return s.retrieval }

func randomID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("kb: crypto/rand failed: %v", err)) // never on supported systems
	}
	return hex.EncodeToString(b[:])
}
