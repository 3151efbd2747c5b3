// Package agentstore owns the custom agents stored in Moteur's database
// (the moteur.db file, or PostgreSQL beside the sessions): their table, its
// migrations (versioned apart from the session and knowledge-base schemas,
// in agent_migrations), and the rules
// that keep them usable — a unique name, a valid config, ids and names
// that never shadow a built-in agent. Resolve and All put the built-in
// agents of package agentconfig and the stored ones side by side.
//
// Concurrency: a *Store is safe for use by many goroutines; several
// processes, on one host or several, may open the same database at once
// (package sidetable: one serialised transaction per write, each migration
// applied exactly once).
package agentstore

import (
	"context"
	"crypto/rand"
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
	// missing. It is ignored when URL is set.
	Path string
	// URL, when set, is the PostgreSQL database the agents live in, beside
	// the sessions (session.DefaultSchema).
	URL string
	// Now tells the time of Created and Updated; nil means time.Now.
	Now func() time.Time
	// NewID names a new agent; nil means "ag-" and 16 random hex digits.
	NewID func() (string, error)
}

// Store holds the custom agents of one database file.
type Store struct {
	db    *sidetable.DB
	now   func() time.Time
	newID func() (string, error)
}

// Open opens the agents of the database at cfg.Path. The session store
// creates and checks the file first (a corrupt file, another application's
// or a newer Moteur's is refused, untouched); this package then adds its
// own table.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	db, err := sidetable.Open(ctx, sidetable.Config{Path: cfg.Path, URL: cfg.URL, What: "agents", Table: "agent_migrations",
		Migrations: migrations, PostgresMigrations: pgMigrations, Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, now: cfg.Now, newID: cfg.NewID}
	if s.now == nil {
		s.now = time.Now
	}
	if s.newID == nil {
		s.newID = randomID
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the database for messages: the file, or the PostgreSQL URL
// without its password.
func (s *Store) Path() string { return s.db.Name }

func randomID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("agent id: %w", err)
	}
	return "ag-" + hex.EncodeToString(b[:]), nil
}
