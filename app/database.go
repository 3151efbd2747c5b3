package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
	"github.com/moteur/moteur/websnap"
)

// Database is where the data of a data directory is kept: the sessions and
// their events, audit heads, leases, snapshots and approvals, the custom
// agents, the API keys and the web snapshots. By default it is the
// directory's moteur.db; $MOTEUR_DATABASE_URL or the user's database:
// section may choose another SQLite file or a PostgreSQL server, which
// several processes and hosts share (several moteur serve replicas).
//
// What stays in the data directory whatever the database: the audit logs,
// transcripts and checkpoints (files), and, in this version, the knowledge
// bases (KBPath).
type Database struct {
	// Home is the data directory.
	Home string
	config.Database
}

// DatabaseOf is the database of the data directory home, as env and the
// user's configuration file choose it (config.LoadDatabase).
func DatabaseOf(env func(string) string, home string) (Database, error) {
	d, err := config.LoadDatabase(config.LoadOptions{UserDir: userConfigDir(env), Getenv: env})
	if err != nil {
		return Database{}, err
	}
	return Database{Home: home, Database: d}, nil
}

// DatabaseFrom is DatabaseOf for a process that names only its
// environment: the data directory is DataDir(env).
func DatabaseFrom(env func(string) string) (Database, error) {
	home, err := DataDir(env)
	if err != nil {
		return Database{}, err
	}
	return DatabaseOf(env, home)
}

// file is the SQLite file of the database: the one URL names, else the
// data directory's moteur.db. On PostgreSQL it is the data directory's
// moteur.db, which holds the knowledge bases.
func (d Database) file() string {
	if p := d.SQLitePath(); p != "" {
		return p
	}
	return session.DefaultPath(d.Home)
}

// KBPath is the SQLite file of the knowledge bases: the database's file,
// or on PostgreSQL the data directory's moteur.db (knowledge bases are not
// on PostgreSQL in this version: KBNotice says so).
func (d Database) KBPath() string { return d.file() }

// KBNotice is what a user of PostgreSQL should know of the knowledge
// bases, in language l; "" on SQLite.
func (d Database) KBNotice(l i18n.Lang) string {
	if !d.Postgres() {
		return ""
	}
	return i18n.Trf(l, "knowledge bases stay in %s on this machine: only sessions, agents, API keys and web snapshots are on PostgreSQL (%s)",
		d.KBPath(), d.Redacted())
}

// pgURL is the PostgreSQL URL, "" on SQLite.
func (d Database) pgURL() string {
	if d.Postgres() {
		return d.URL
	}
	return ""
}

// OpenStore opens the session store, creating it if needed (the SQLite
// file, or Moteur's schema on PostgreSQL). Its errors name the database
// without its password.
func (d Database) OpenStore(ctx context.Context) (session.Store, error) {
	if d.Postgres() {
		st, err := session.OpenPostgres(ctx, session.PostgresConfig{URL: d.URL, LeaseTTL: d.LeaseTTL})
		if err != nil {
			return nil, fmt.Errorf("session store: %w", err)
		}
		return st, nil
	}
	st, err := session.OpenSQLite(ctx, session.SQLiteConfig{Path: d.file(), LeaseTTL: d.LeaseTTL})
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	return st, nil
}

// OpenExistingStore is OpenStore for what only reads or removes: where
// there is no SQLite file yet nothing is stored, so it returns a nil store
// rather than creating one. A PostgreSQL server is always opened: whether
// it holds sessions is for the store to say.
func (d Database) OpenExistingStore(ctx context.Context) (session.Store, error) {
	if !d.Exists() {
		return nil, nil
	}
	return d.OpenStore(ctx)
}

// Exists reports whether the database may hold something: false only for
// a SQLite file not created yet (a PostgreSQL server is asked by opening
// it).
func (d Database) Exists() bool {
	if d.Postgres() {
		return true
	}
	_, err := os.Stat(d.file())
	return !errors.Is(err, fs.ErrNotExist)
}

// Agents opens the custom agents.
func (d Database) Agents(ctx context.Context) (*agentstore.Store, error) {
	return agentstore.Open(ctx, agentstore.Config{Path: d.file(), URL: d.pgURL()})
}

// Keys opens the API keys.
func (d Database) Keys(ctx context.Context) (*apikey.Store, error) {
	return apikey.Open(ctx, apikey.Config{Path: d.file(), URL: d.pgURL()})
}

// Snapshots returns the web snapshots, opened on first use.
func (d Database) Snapshots() *websnap.Store {
	return websnap.New(websnap.Config{Path: d.file(), URL: d.pgURL()})
}

// String names the database for messages: the SQLite file, or the
// PostgreSQL URL without its password.
func (d Database) String() string {
	if d.Postgres() {
		return d.Redacted()
	}
	return d.file()
}
