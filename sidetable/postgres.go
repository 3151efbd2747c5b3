package sidetable

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/moteur/moteur/session"
)

// openPostgres opens the package's tables on the PostgreSQL server of
// cfg.URL and migrates them.
func openPostgres(ctx context.Context, cfg Config) (*DB, error) {
	if cfg.Schema == "" {
		cfg.Schema = session.DefaultSchema
	}
	// The session store first: it refuses a wrong password, a server that
	// cannot be reached and a schema that is not Moteur's or is newer,
	// and creates the schema the package's tables go in.
	ss, err := session.OpenPostgres(ctx, session.PostgresConfig{URL: cfg.URL, Schema: cfg.Schema, MaxConns: 1})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.What, err)
	}
	name := ss.Name()
	if err := ss.Close(); err != nil {
		return nil, fmt.Errorf("open %s: %w", cfg.What, err)
	}
	cc, err := pgx.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("open %s: invalid PostgreSQL URL: %w", cfg.What, err)
	}
	cc.RuntimeParams["search_path"] = pgx.Identifier{cfg.Schema}.Sanitize()
	if cc.RuntimeParams["application_name"] == "" {
		cc.RuntimeParams["application_name"] = "moteur"
	}
	pool := stdlib.OpenDB(*cc)
	db := &DB{Name: name, W: pool, R: pool, what: cfg.What, postgres: true, lockKey: cfg.Schema + "." + cfg.Table}
	if err := migratePostgres(ctx, db, cfg); err != nil {
		pool.Close()
		return nil, session.PostgresErr(fmt.Sprintf("migrate %s in %s (schema %s)", cfg.What, name, cfg.Schema), err)
	}
	return db, nil
}

// migratePostgres brings the package's tables up to date in one
// transaction that holds the advisory lock of its writers: of several
// processes opening a new database at once, one migrates and the others,
// waiting on the lock, then find nothing left to do. DDL is transactional
// in PostgreSQL, so a migration that fails leaves nothing behind.
func migratePostgres(ctx context.Context, db *DB, cfg Config) error {
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, db.lockKey); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+cfg.Table+` (
		version integer NOT NULL PRIMARY KEY, applied_at text NOT NULL)`); err != nil {
		return err
	}
	version, err := schemaVersion(ctx, tx, cfg)
	if err != nil {
		return err
	}
	for v := version; v < len(cfg.PostgresMigrations); v++ {
		if err := applyMigration(ctx, tx, cfg, cfg.PostgresMigrations, v); err != nil {
			return err
		}
	}
	return tx.Commit()
}
