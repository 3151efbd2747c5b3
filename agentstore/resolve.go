package agentstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/i18n"
)

// Resolve finds the agent ref names: a built-in by id, then a stored agent
// by id, then a stored agent by name (ignoring case), then a built-in by
// its name in l (ignoring case). Ids first, so that a name can never hide
// an agent whose id is given.
func (s *Store) Resolve(ctx context.Context, ref string, l i18n.Lang) (agentconfig.Agent, error) {
	if strings.TrimSpace(ref) == "" {
		return agentconfig.Agent{}, fmt.Errorf("agent: no name or id given: %w", ErrNotFound)
	}
	if a, err := agentconfig.BuiltinByID(ref, l); err == nil {
		return a, nil
	}
	for _, column := range []string{"id", "name"} {
		a, err := s.getWhere(ctx, column, strings.TrimSpace(ref))
		if err == nil || !errors.Is(err, ErrNotFound) {
			return a, err
		}
	}
	builtins, err := agentconfig.Builtins(l)
	if err != nil {
		return agentconfig.Agent{}, err
	}
	for _, a := range builtins {
		if strings.EqualFold(a.Name, strings.TrimSpace(ref)) {
			return a, nil
		}
	}
	return agentconfig.Agent{}, fmt.Errorf("agent %q: %w", ref, ErrNotFound)
}

// All returns the built-in agents (named in l), then the stored ones by
// name.
func (s *Store) All(ctx context.Context, l i18n.Lang) ([]agentconfig.Agent, error) {
	out, err := agentconfig.Builtins(l)
	if err != nil {
		return nil, err
	}
	stored, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	return append(out, stored...), nil
}
