package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

// DatabaseEnv names the variable that chooses the database; it wins over
// the user's file.
const DatabaseEnv = "MOTEUR_DATABASE_URL"

// LeaseTTLEnv names the variable that sets how long a session's lease
// lives without a heartbeat: how soon, after a process or replica dies,
// another may take its sessions over (on PostgreSQL, where no pid can be
// checked, this is the only way). A Go duration, 1s to 1h.
const LeaseTTLEnv = "MOTEUR_LEASE_TTL"

// FileDatabase is the database: section of a file: where Moteur keeps its
// sessions, agents, API keys and snapshots.
//
//	database:
//	  url: postgres://moteur@db.internal:5432/moteur?sslmode=verify-full
//
// The URL holds no password: a file ends up in backups, repositories and
// screenshots. PostgreSQL's own $PGPASSWORD or ~/.pgpass give it, or the
// whole URL goes in $MOTEUR_DATABASE_URL.
type FileDatabase struct {
	URL string `yaml:"url"`
}

// Database is where Moteur keeps its data. Only $MOTEUR_DATABASE_URL and
// the user's own file choose it: a project's would send the sessions of
// whoever opens it to a server of its choosing, so it is reported in
// Notices and ignored.
type Database struct {
	// URL is "" (the moteur.db file of the data directory), sqlite:PATH or
	// a path (that SQLite file), or postgres://… / postgresql://… .
	URL string
	// Source is where URL came from: "$MOTEUR_DATABASE_URL", a file, or ""
	// for the default.
	Source string
	// LeaseTTL is $MOTEUR_LEASE_TTL (0: the store's default, 30s).
	LeaseTTL time.Duration
}

// Postgres reports whether the database is a PostgreSQL server.
func (d Database) Postgres() bool { return isPostgresURL(d.URL) }

// SQLitePath is the SQLite file the URL names, "" for the data
// directory's moteur.db (and on PostgreSQL).
func (d Database) SQLitePath() string {
	if d.Postgres() {
		return ""
	}
	return strings.TrimPrefix(d.URL, "sqlite:")
}

// Redacted is the URL with its password masked, for messages.
func (d Database) Redacted() string { return redactURL(d.URL) }

// String names the database for messages, without its password.
func (d Database) String() string {
	if d.URL == "" {
		return "the embedded SQLite file"
	}
	return d.Redacted()
}

func isPostgresURL(u string) bool {
	return strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://")
}

// redactURL masks the password of a URL; a value that is not a URL is
// masked whole after its scheme, as it may hold anything.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	if i := strings.Index(raw, "://"); i >= 0 {
		return raw[:i+3] + "…"
	}
	return raw
}

// checkDatabaseURL says why a database URL cannot be used: a scheme other
// than sqlite: and postgres(ql)://, or a PostgreSQL URL that does not
// parse. The value is named with its password masked.
func checkDatabaseURL(raw string) error {
	switch {
	case raw == "", strings.HasPrefix(raw, "sqlite:"):
		return nil
	case isPostgresURL(raw):
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("%q is not a valid PostgreSQL URL (postgres://USER@HOST:PORT/DATABASE?sslmode=…)", redactURL(raw))
		}
		if u.Host == "" && u.Query().Get("host") == "" {
			return fmt.Errorf("%q names no server: want postgres://USER@HOST:PORT/DATABASE", u.Redacted())
		}
		return nil
	case strings.Contains(raw, "://") || (strings.Contains(raw, ":") && !strings.ContainsAny(raw[:strings.Index(raw, ":")], `/\.`)):
		return fmt.Errorf("%q: want postgres://USER@HOST:PORT/DATABASE (PostgreSQL), sqlite:PATH or a file path (SQLite), or nothing (the data directory's moteur.db)", redactURL(raw))
	}
	return nil // a path
}

// ParseDatabase is the database a URL names (sqlite:PATH, a path, or
// postgres://…; "" is the data directory's moteur.db), or the error
// checkDatabaseURL gives.
func ParseDatabase(raw string) (Database, error) {
	raw = strings.TrimSpace(raw)
	if err := checkDatabaseURL(raw); err != nil {
		return Database{}, err
	}
	return Database{URL: raw}, nil
}

// check validates the section of a file, which must hold no password.
func (d FileDatabase) check() (string, error) {
	if err := checkDatabaseURL(d.URL); err != nil {
		return "$.database.url", fmt.Errorf("database.url: %w", err)
	}
	if u, err := url.Parse(d.URL); err == nil && isPostgresURL(d.URL) {
		if _, has := u.User.Password(); has || u.Query().Has("password") {
			return "$.database.url", errors.New("database.url holds a password: a file ends up in backups and repositories; " +
				"give the password in $PGPASSWORD or ~/.pgpass, or the whole URL in $" + DatabaseEnv)
		}
	}
	return "", nil
}

// mergeDatabase takes the database: section of the file of layer l.
func (c *Config) mergeDatabase(l layer) {
	if l.f.Database.URL == "" {
		return
	}
	if l.project {
		c.notef("project config %s: database: is honoured only in your own configuration or $%s (it would choose where your sessions are stored); ignored", l.path, DatabaseEnv)
		return
	}
	c.Database.URL, c.Database.Source = l.f.Database.URL, l.path
}

// databaseFromEnv applies $MOTEUR_DATABASE_URL over the files'.
func (c *Config) databaseFromEnv(getenv func(string) string) error {
	if v := strings.TrimSpace(getenv(LeaseTTLEnv)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second || d > time.Hour {
			return fmt.Errorf("$%s %q: want a duration from 1s to 1h, such as 10s", LeaseTTLEnv, v)
		}
		c.Database.LeaseTTL = d
	}
	u := strings.TrimSpace(getenv(DatabaseEnv))
	if u == "" {
		return nil
	}
	if err := checkDatabaseURL(u); err != nil {
		return fmt.Errorf("$%s: %w", DatabaseEnv, err)
	}
	c.Database.URL, c.Database.Source = u, "$"+DatabaseEnv
	return nil
}

// LoadDatabase is the database that Load would choose, read from the
// environment and the user's file only (a project's never chooses it), for
// the commands that need the store and nothing else of the configuration.
// A user file that cannot be read is an error, as for Load.
func LoadDatabase(o LoadOptions) (Database, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c := &Config{}
	if path := userPath(o.UserDir); path != "" {
		if _, err := os.Lstat(path); err == nil {
			f, err := ReadFile(path)
			if err != nil {
				return Database{}, err
			}
			c.mergeDatabase(layer{path: path, f: f})
		}
	}
	if err := c.databaseFromEnv(getenv); err != nil {
		return Database{}, err
	}
	return c.Database, nil
}
