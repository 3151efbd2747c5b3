// Package websnap keeps the web snapshots of Moteur's sessions — the whole
// text of each page web_fetch read, under its web://HOST/ID.md path — in
// Moteur's database file, beside the sessions, so that a later turn of the
// session (in another process, as `moteur serve` opens the session anew
// each turn, or on another replica when the database is PostgreSQL) reads
// them again with read_file. It owns their table, its
// migrations (versioned apart, in websnap_migrations), the cap of
// snapshots per session and their masking: secrets in a snapshot are
// replaced by package redact's markers before it is stored, so that none
// is ever at rest in clear.
//
// The file is opened on first use, not by New: a turn that reads no page
// does not pay for opening it.
//
// Concurrency: a *Store and the web.Snapshots of its sessions are safe for
// use by many goroutines, and concurrent first uses open the database once;
// several processes, on one host or several, may use the same database at
// once (package sidetable: one serialised transaction per write).
package websnap

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/moteur/moteur/sidetable"
	"github.com/moteur/moteur/tools/web"
)

// DefaultMaxPerSession is how many snapshots a session keeps when
// Config.MaxPerSession is 0, as web.MemorySnapshots does.
const DefaultMaxPerSession = web.DefaultSnapshotCapacity

// ErrClosed is the error of a use of a closed Store.
var ErrClosed = errors.New("web snapshots: store closed")

// Config configures a Store. Zero values are defaults.
type Config struct {
	// Path is Moteur's database file (session.DefaultPath), created if
	// missing, on first use. It is ignored when URL is set.
	Path string
	// URL, when set, is the PostgreSQL database the snapshots live in,
	// beside the sessions (session.DefaultSchema).
	URL string
	// Now stamps the snapshots stored and the migrations; nil means
	// time.Now.
	Now func() time.Time
	// MaxPerSession is how many snapshots a session keeps, the oldest put
	// dropped first (0: DefaultMaxPerSession).
	MaxPerSession int
}

// Store holds the web snapshots of the sessions of one database file.
type Store struct {
	path string
	url  string
	now  func() time.Time
	max  int
	// openDB opens the file; tests count its calls.
	openDB func(context.Context, sidetable.Config) (*sidetable.DB, error)

	// mu guards db and closed. It is held while the file is opened, so
	// that concurrent first uses open it once; a failed open is not kept,
	// the next use tries again (the context of the first may have ended).
	mu     sync.Mutex
	db     *sidetable.DB
	closed bool
}

// New returns the store of the file at cfg.Path. It opens nothing: the
// file is opened, created and migrated by the first Put, Get or
// RemoveSession, whose error says why it cannot be.
func New(cfg Config) *Store {
	s := &Store{path: cfg.Path, url: cfg.URL, now: cfg.Now, max: cfg.MaxPerSession, openDB: sidetable.Open}
	if s.now == nil {
		s.now = time.Now
	}
	if s.max <= 0 {
		s.max = DefaultMaxPerSession
	}
	return s
}

// handle returns the open file, opening it on first use.
func (s *Store) handle(ctx context.Context) (*sidetable.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return nil, ErrClosed
	case s.db != nil:
		return s.db, nil
	}
	db, err := s.openDB(ctx, sidetable.Config{Path: s.path, URL: s.url, What: "web snapshots", Table: "websnap_migrations",
		Migrations: migrations, PostgresMigrations: pgMigrations, Now: s.now})
	if err != nil {
		return nil, err
	}
	s.db = db
	return db, nil
}

// Session returns the snapshots of the session id. It opens nothing.
func (s *Store) Session(id string) web.Snapshots { return &sessionSnapshots{s: s, id: id} }

// RemoveSession removes every snapshot of the session id, and only those;
// a session that has none is not an error.
func (s *Store) RemoveSession(ctx context.Context, id string) error {
	if id == "" {
		return errors.New("remove web snapshots: no session id")
	}
	db, err := s.handle(ctx)
	if err != nil {
		return fmt.Errorf("remove web snapshots of session %s: %w", id, err)
	}
	err = db.Write(ctx, func(tx sidetable.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM web_snapshots WHERE session_id = ?`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("remove web snapshots of session %s in %s: %w", id, db.Name, err)
	}
	return nil
}

// Close closes the file if it was opened. Every use afterwards is
// ErrClosed; closing again does nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	return err
}
