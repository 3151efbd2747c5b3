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
	"time"

	"github.com/moteur/moteur/sidetable"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", no cgo
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
	db    *sidetable.DB
	path  string
	w     *sql.DB // the one writing connection of this process
	r     *sql.DB // read-only connections
	now   func() time.Time
	newID func() (string, error)
}

// Open opens the agents of the database at cfg.Path. The session store
// creates and checks the file first (a corrupt file, another application's
// or a newer Moteur's is refused, untouched); this package then adds its
// own table.
func Open(ctx context.Context, cfg Config) (*SQLite, error) {
	db, err := sidetable.Open(ctx, sidetable.Config{Path: cfg.Path, What: "agents", Table: "agent_migrations", Migrations: migrations, Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	s := &SQLite{db: db, path: db.Path, w: db.W, r: db.R, now: cfg.Now, newID: cfg.NewID}
	if s.now == nil {
		s.now = time.Now
	}
	if s.newID == nil {
		s.newID = randomID
	}
	return s, nil
}

// Close closes the database.
func (s *SQLite) Close() error { return s.db.Close() }

// Path is the database file.
func (s *SQLite) Path() string { return s.path }

func randomID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("agent id: %w", err)
	}
	return "ag-" + hex.EncodeToString(b[:]), nil
}
