package apikey

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/moteur/moteur/sidetable"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", no cgo
)

// Config configures a store. Zero values are defaults.
type Config struct {
	// Path is Moteur's database file (session.DefaultPath), created if
	// missing. It is ignored when URL is set.
	Path string
	// URL, when set, is the PostgreSQL database the keys live in, beside
	// the sessions (session.DefaultSchema).
	URL string
	// Now tells a key's creation time; nil means time.Now.
	Now func() time.Time
	// Rand draws ids and secrets; nil means crypto/rand.
	Rand io.Reader
}

// Store holds the API keys of one database file.
type Store struct {
	db   *sidetable.DB
	now  func() time.Time
	rand io.Reader
}

// Open opens the keys of the database at cfg.Path. The session store
// creates and checks the file first; this package adds its own table.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	db, err := sidetable.Open(ctx, sidetable.Config{Path: cfg.Path, URL: cfg.URL, What: "API keys", Table: "apikey_migrations",
		Migrations: migrations, PostgresMigrations: pgMigrations, Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, now: cfg.Now, rand: cfg.Rand}
	if s.now == nil {
		s.now = time.Now
	}
	if s.rand == nil {
		s.rand = rand.Reader
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Create makes a key named name with scope sc and returns its secret,
// which is not stored and cannot be shown again. A name taken by a key
// that works is ErrExists.
func (s *Store) Create(ctx context.Context, name string, sc Scope) (secret string, k Key, err error) {
	if err := checkName(name); err != nil {
		return "", Key{}, err
	}
	if err := checkScope(sc); err != nil {
		return "", Key{}, err
	}
	id, secret, err := newSecret(s.rand)
	if err != nil {
		return "", Key{}, fmt.Errorf("create API key %q: %w", name, err)
	}
	bases, _ := json.Marshal(nonNil(sc.Bases))
	agents, _ := json.Marshal(nonNil(sc.Agents))
	created := s.now().UTC()
	k = Key{ID: id, Name: name, Scope: Scope{Bases: clone(sc.Bases), Agents: clone(sc.Agents), Wait: sc.Wait}, Created: created}
	err = s.db.Write(ctx, func(tx sidetable.Tx) error {
		var taken int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM api_keys WHERE name = ? AND revoked_at IS NULL`, name).Scan(&taken); err != nil {
			return err
		}
		if taken > 0 {
			return fmt.Errorf("API key %q: %w (revoke it first)", name, ErrExists)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, name, sha256, bases, agents, wait, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, id, name, hash(secret), string(bases), string(agents), sc.Wait, created.UnixNano())
		return err
	})
	if err != nil {
		return "", Key{}, s.opErr(fmt.Sprintf("create API key %q", name), err)
	}
	return secret, k, nil
}

// dummyHash is compared when no key has the secret's id, so that an
// unknown id takes the time a wrong secret takes.
var dummyHash = hash("mk_0000000000000000_")

// Verify returns the key of secret. A malformed, unknown, wrong or revoked
// secret is ErrInvalid, with nothing said of which.
func (s *Store) Verify(ctx context.Context, secret string) (Key, error) {
	id, ok := parseSecret(secret)
	if !ok {
		return Key{}, ErrInvalid
	}
	var stored []byte
	var k Key
	var bases, agents string
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT id, name, sha256, bases, agents, wait, created_at
		FROM api_keys WHERE id = ? AND revoked_at IS NULL`, id).Scan(&k.ID, &k.Name, &stored, &bases, &agents, &k.Scope.Wait, &created)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		subtle.ConstantTimeCompare(dummyHash, hash(secret))
		return Key{}, ErrInvalid
	case err != nil:
		return Key{}, fmt.Errorf("verify API key in %s: %w", s.db.Name, err)
	}
	if subtle.ConstantTimeCompare(stored, hash(secret)) != 1 {
		return Key{}, ErrInvalid
	}
	if err := decodeScope(&k, bases, agents, created); err != nil {
		return Key{}, err
	}
	return k, nil
}

// List returns the keys that work, by name.
func (s *Store) List(ctx context.Context) ([]Key, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, name, bases, agents, wait, created_at
		FROM api_keys WHERE revoked_at IS NULL ORDER BY name, id`)
	if err != nil {
		return nil, fmt.Errorf("list API keys in %s: %w", s.db.Name, err)
	}
	defer rows.Close()
	var out []Key
	for rows.Next() {
		var k Key
		var bases, agents string
		var created int64
		if err := rows.Scan(&k.ID, &k.Name, &bases, &agents, &k.Scope.Wait, &created); err != nil {
			return nil, fmt.Errorf("list API keys in %s: %w", s.db.Name, err)
		}
		if err := decodeScope(&k, bases, agents, created); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list API keys in %s: %w", s.db.Name, err)
	}
	return out, nil
}

// Revoke stops the key named nameOrID (its id first, then its name) from
// working, at once and for every process.
func (s *Store) Revoke(ctx context.Context, nameOrID string) error {
	err := s.db.Write(ctx, func(tx sidetable.Tx) error {
		now := s.now().UTC().UnixNano()
		for _, column := range []string{"id", "name"} {
			res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = ? WHERE `+column+` = ? AND revoked_at IS NULL`, now, nameOrID)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n > 0 {
				return err
			}
		}
		return fmt.Errorf("API key %q: %w", nameOrID, ErrNotFound)
	})
	return s.opErr(fmt.Sprintf("revoke API key %q", nameOrID), err)
}

func decodeScope(k *Key, bases, agents string, created int64) error {
	if err := errors.Join(json.Unmarshal([]byte(bases), &k.Scope.Bases), json.Unmarshal([]byte(agents), &k.Scope.Agents)); err != nil {
		return fmt.Errorf("API key %s: its stored scope cannot be read (%v); revoke it", k.ID, err)
	}
	if len(k.Scope.Bases) == 0 {
		k.Scope.Bases = nil
	}
	if len(k.Scope.Agents) == 0 {
		k.Scope.Agents = nil
	}
	k.Created = time.Unix(0, created).UTC()
	return nil
}

func (s *Store) opErr(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrExists):
		return err
	}
	return fmt.Errorf("%s in %s: %w", what, s.db.Name, err)
}

func clone(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return append([]string(nil), s...)
}
