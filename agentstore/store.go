// Package agentstore owns the custom agents stored in Moteur's database
// file (moteur.db): their table, its migrations (versioned apart from the
// session and knowledge-base schemas, in agent_migrations), and the rules
// that keep them usable — a unique name, a valid config, ids and names
// that never shadow a built-in agent. Resolve and All put the built-in
// agents of package agentconfig and the stored ones side by side.
//
// Concurrency: a *SQLite is safe for use by many goroutines; several
// processes may open the same file at once (WAL, a busy timeout, one
// immediate transaction per write, each migration applied exactly once).
package agentstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", no cgo

	"github.com/moteur/moteur/session"
)

// Sentinel errors, wrapped by errors that name the agent.
var (
	ErrNotFound = errors.New("no such agent")
	ErrExists   = errors.New("agent already exists")
	ErrBuiltin  = errors.New("built-in agent")
)

// Config configures a store. Zero values are defaults.
type Config struct {
	// Path is Moteur's database file (session.DefaultPath), created if
	// missing.
	Path string
	// Now tells the time of Created and Updated; nil means time.Now.
	Now func() time.Time
	// NewID names a new agent; nil means "ag-" and 16 random hex digits.
	NewID func() (string, error)
}

// SQLite holds the custom agents of one database file.
type SQLite struct {
	path  string
	w     *sql.DB // the one writing connection of this process
	r     *sql.DB // read-only connections
	now   func() time.Time
	newID func() (string, error)
}

// busyTimeout is how long a statement waits for another process's
// transaction on the same file.
const busyTimeout = 10 * time.Second

// Open opens the agents of the database at cfg.Path. The session store
// creates and checks the file first (a corrupt file, another application's
// or a newer Moteur's is refused, untouched); this package then adds its
// own table.
func Open(ctx context.Context, cfg Config) (*SQLite, error) {
	if cfg.Path == "" {
		return nil, errors.New("open agents: no database path")
	}
	path, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("open agents %s: %w", cfg.Path, err)
	}
	ss, err := session.OpenSQLite(ctx, session.SQLiteConfig{Path: path})
	if err != nil {
		return nil, fmt.Errorf("open agents: %w", err)
	}
	if err := ss.Close(); err != nil {
		return nil, fmt.Errorf("open agents: %w", err)
	}
	s := &SQLite{path: path, now: cfg.Now, newID: cfg.NewID}
	if s.now == nil {
		s.now = time.Now
	}
	if s.newID == nil {
		s.newID = randomID
	}
	base := "file:" + (&url.URL{Path: path}).EscapedPath() +
		fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=synchronous(FULL)", busyTimeout.Milliseconds())
	if s.w, err = sql.Open("sqlite", base+"&_pragma=journal_mode(WAL)&_txlock=immediate"); err != nil {
		return nil, fmt.Errorf("open agents %s: %w", path, err)
	}
	s.w.SetMaxOpenConns(1)
	s.w.SetConnMaxIdleTime(0)
	if err := s.migrate(ctx); err != nil {
		s.w.Close()
		return nil, err
	}
	if s.r, err = sql.Open("sqlite", base+"&_pragma=query_only(1)"); err != nil {
		s.w.Close()
		return nil, fmt.Errorf("open agents %s: %w", path, err)
	}
	s.r.SetMaxOpenConns(4)
	return s, nil
}

// Close closes the database.
func (s *SQLite) Close() error {
	if err := errors.Join(s.r.Close(), s.w.Close()); err != nil {
		return fmt.Errorf("close agents %s: %w", s.path, err)
	}
	return nil
}

// Path is the database file.
func (s *SQLite) Path() string { return s.path }

func randomID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("agent id: %w", err)
	}
	return "ag-" + hex.EncodeToString(b[:]), nil
}
