package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/i18n"
)

// database is where sessions, custom agents and API keys live (the data
// directory's moteur.db, or the PostgreSQL server the environment or the
// user's configuration names).
func (c *cli) database() (app.Database, error) {
	db, err := app.DatabaseFrom(c.env)
	if err != nil {
		return app.Database{}, failure(err)
	}
	return db, nil
}

// withAgents runs fn with the custom agents open (withStore).
func (c *cli) withAgents(ctx context.Context, create bool, fn func(*agentstore.Store) error) error {
	return withStore(ctx, c, create, func(ctx context.Context, db app.Database) (*agentstore.Store, error) {
		return db.Agents(ctx)
	}, fn)
}

// withStore runs fn with a store of Moteur's database, opened by open and
// closed after fn. When create is false and no database exists yet, fn
// gets the zero store (nil): a command that only reads does not create the
// file.
func withStore[S io.Closer](ctx context.Context, c *cli, create bool, open func(context.Context, app.Database) (S, error), fn func(S) error) error {
	db, err := c.database()
	if err != nil {
		return err
	}
	if !create && !db.Exists() {
		var none S
		return fn(none)
	}
	s, err := open(ctx, db)
	if err != nil {
		return failure(err)
	}
	return errors.Join(fn(s), s.Close())
}

// resolveAgent finds ref among the built-in and stored agents (a nil
// store holds none).
func resolveAgent(ctx context.Context, s *agentstore.Store, ref string, l i18n.Lang) (agentconfig.Agent, error) {
	if s != nil {
		a, err := s.Resolve(ctx, ref, l)
		return a, agentError(l, err)
	}
	if a, err := agentconfig.BuiltinByID(ref, l); err == nil {
		return a, nil
	}
	builtins, err := agentconfig.Builtins(l)
	if err != nil {
		return agentconfig.Agent{}, failure(err)
	}
	for _, a := range builtins {
		if strings.EqualFold(a.Name, strings.TrimSpace(ref)) {
			return a, nil
		}
	}
	return agentconfig.Agent{}, agentError(l, fmt.Errorf(i18n.Tr(l, "agent %q: %w"), ref, agentstore.ErrNotFound))
}

// allAgents lists the built-in agents, then the stored ones.
func allAgents(ctx context.Context, s *agentstore.Store, l i18n.Lang) ([]agentconfig.Agent, error) {
	if s != nil {
		all, err := s.All(ctx, l)
		return all, agentError(l, err)
	}
	return agentconfig.Builtins(l)
}

// agentError maps the agent store's errors to exit statuses: an agent
// that does not exist, exists already, is built in, or is invalid is the
// user's mistake (2); the rest a failure. An unknown agent's message says
// how to see the others.
func agentError(l i18n.Lang, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, agentstore.ErrNotFound):
		return &statusError{code: exitUsage, err: fmt.Errorf(i18n.Tr(l, "%w (moteur agents list shows them)"), err)}
	case errors.Is(err, agentstore.ErrBadRow):
		return failure(fmt.Errorf(i18n.Tr(l, "%w (fix it, or remove it with moteur agents rm ID --yes)"), err))
	case errors.Is(err, agentstore.ErrExists), errors.Is(err, agentstore.ErrBuiltin), errors.Is(err, agentconfig.ErrInvalid):
		return &statusError{code: exitUsage, err: err}
	}
	return failure(err)
}

// agentKind is the kind column of moteur agents list.
func agentKind(a agentconfig.Agent) string {
	if a.Builtin {
		return "builtin"
	}
	return "custom"
}
