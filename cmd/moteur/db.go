package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/config"
)

func (c *cli) dbCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "db",
		Short: c.tr("Move Moteur's data between databases"),
		Args:  c.noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(c.dbMigrateCmd())
	return cmd
}

type dbMigrateFlags struct {
	from, to string
	json     bool
}

func (c *cli) dbMigrateCmd() *cobra.Command {
	f := &dbMigrateFlags{}
	cmd := &cobra.Command{
		Use:   "migrate --to postgres://…",
		Short: c.tr("Copy the sessions, audit heads, agents and API keys of one database into another"),
		Long: c.tr("Copy the sessions (events, audit heads, forks, latest snapshot), custom agents and API keys of\n" +
			"--from (default: the data directory's moteur.db) into --to (default: $MOTEUR_DATABASE_URL), then check\n" +
			"that --to holds each session whole and verify each audit log against the heads it now holds.\n" +
			"Run it again after an interruption: what --to holds already is kept. Knowledge bases stay in the\n" +
			"SQLite file; pending permission requests are not copied."),
		Args: c.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return c.dbMigrate(cmd.Context(), f) },
	}
	cmd.Flags().StringVar(&f.from, "from", "", c.tr("the database to copy from: sqlite:PATH, a path or postgres://… (default: the data directory's moteur.db)"))
	cmd.Flags().StringVar(&f.to, "to", "", c.tr("the database to copy into (default: $MOTEUR_DATABASE_URL)"))
	cmd.Flags().BoolVar(&f.json, "json", false, c.tr("print the report as a JSON object"))
	return cmd
}

// migrateJSON is the --json report of db migrate.
type migrateJSON struct {
	From          string `json:"from"`
	To            string `json:"to"`
	Sessions      int    `json:"sessions"`
	Copied        int    `json:"copied"`
	Skipped       int    `json:"skipped"`
	Events        int    `json:"events"`
	AuditVerified int    `json:"audit_verified"`
	Agents        int    `json:"agents"`
	Keys          int    `json:"keys"`
}

func (c *cli) dbMigrate(ctx context.Context, f *dbMigrateFlags) error {
	home, err := app.DataDir(c.env)
	if err != nil {
		return failure(err)
	}
	from, err := c.migrateEnd("--from", f.from, home)
	if err != nil {
		return err
	}
	if f.to == "" {
		f.to = c.env(config.DatabaseEnv)
	}
	if f.to == "" {
		return usageErrorf("%s", c.tr("db migrate: say where to copy to with --to postgres://… (or set $MOTEUR_DATABASE_URL)"))
	}
	to, err := c.migrateEnd("--to", f.to, home)
	if err != nil {
		return err
	}
	if from.URL == to.URL || from.SQLitePath() != "" && from.SQLitePath() == to.SQLitePath() {
		return usageErrorf("%s", c.trf("db migrate: --from and --to are the same database (%s)", from))
	}
	progress := func(r app.MigrateReport, total int) {
		if !f.json {
			fmt.Fprintf(c.stderr, "\r%s", c.trf("sessions: %d of %d (%d events copied)", r.Sessions, total, r.Events))
		}
	}
	rep, err := app.MigrateDatabase(ctx, c.env, from, to, progress)
	if !f.json && rep.Sessions > 0 {
		fmt.Fprintln(c.stderr)
	}
	if err != nil {
		return failure(err)
	}
	if f.json {
		return c.writeJSON(migrateJSON{From: from.String(), To: to.String(), Sessions: rep.Sessions, Copied: rep.Copied,
			Skipped: rep.Skipped, Events: rep.Events, AuditVerified: rep.AuditVerified, Agents: rep.Agents, Keys: rep.Keys})
	}
	_, err = fmt.Fprintln(c.stdout, c.trf("copied %d sessions (%d events; %d already there), %d agents and %d API keys from %s to %s; %d audit logs verified against %s",
		rep.Copied, rep.Events, rep.Skipped, rep.Agents, rep.Keys, from, to, rep.AuditVerified, to))
	return err
}

// migrateEnd is the database a --from or --to value names.
func (c *cli) migrateEnd(flag, value, home string) (app.Database, error) {
	d, err := config.ParseDatabase(value)
	if err != nil {
		return app.Database{}, usageErrorf("%s: %v", flag, err)
	}
	return app.Database{Home: home, Database: d}, nil
}
