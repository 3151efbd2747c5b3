package agentstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/sidetable"
)

// ErrBadRow reports a stored agent this Moteur cannot read (its config is
// not valid JSON, or no longer valid): the error names the agent's id so
// that it can be fixed or removed.
var ErrBadRow = errors.New("stored agent cannot be read")

// Create stores a new agent. An empty ID gets NewID's; the name is
// required and unique (ErrExists); the config gets EnsureDefaults and must
// pass Validate (the *agentconfig.FieldError is returned, wrapped); a
// built-in agent's id, as id or name, is refused (ErrBuiltin).
func (s *Store) Create(ctx context.Context, a agentconfig.Agent) (agentconfig.Agent, error) {
	a, err := prepare(a)
	if err != nil {
		return agentconfig.Agent{}, err
	}
	if err := refuseBuiltin(a); err != nil {
		return agentconfig.Agent{}, err
	}
	if a.ID == "" {
		if a.ID, err = s.newID(); err != nil {
			return agentconfig.Agent{}, fmt.Errorf("create %s: %w", describe(a), err)
		}
		if !validID(a.ID) || agentconfig.IsBuiltinID(a.ID) {
			return agentconfig.Agent{}, fmt.Errorf("create %s: NewID gave an unusable id %q", describe(a), a.ID)
		}
	}
	cfg, err := json.Marshal(a.Config)
	if err != nil {
		return agentconfig.Agent{}, fmt.Errorf("create %s: %w", describe(a), err)
	}
	now := s.now().UTC()
	a.Created, a.Updated = now, now
	err = s.db.Write(ctx, func(tx sidetable.Tx) error {
		var taken int
		// An id equal to another agent's name would hide that agent from
		// Resolve by name.
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM agents WHERE id = ? OR name = ?`, a.ID, a.ID).Scan(&taken); err != nil {
			return err
		}
		if taken > 0 {
			return fmt.Errorf("agent id %s: %w (as an id or a name)", a.ID, ErrExists)
		}
		if err := nameFree(ctx, tx, a); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO agents (id, name, description, config, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?)`, a.ID, a.Name, a.Description, string(cfg), now.UnixNano(), now.UnixNano())
		return err
	})
	if err != nil {
		return agentconfig.Agent{}, s.opErr("create "+describe(a), err)
	}
	return a, nil
}

// Update replaces the stored agent of a.ID: its name (still unique),
// description and config, as Create checks them. Created is kept.
func (s *Store) Update(ctx context.Context, a agentconfig.Agent) (agentconfig.Agent, error) {
	if a.ID == "" {
		return agentconfig.Agent{}, fmt.Errorf("update %s: %w", describe(a), fieldError("id", "required"))
	}
	if agentconfig.IsBuiltinID(a.ID) {
		return agentconfig.Agent{}, fmt.Errorf("agent %s: %w: it cannot be changed; create an agent from it instead", a.ID, ErrBuiltin)
	}
	a, err := prepare(a)
	if err != nil {
		return agentconfig.Agent{}, err
	}
	if err := refuseBuiltin(a); err != nil {
		return agentconfig.Agent{}, err
	}
	cfg, err := json.Marshal(a.Config)
	if err != nil {
		return agentconfig.Agent{}, fmt.Errorf("update %s: %w", describe(a), err)
	}
	now := s.now().UTC()
	a.Updated = now
	err = s.db.Write(ctx, func(tx sidetable.Tx) error {
		var created int64
		err := tx.QueryRowContext(ctx, `SELECT created_at FROM agents WHERE id = ?`, a.ID).Scan(&created)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("agent %s: %w", a.ID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		a.Created = time.Unix(0, created).UTC()
		if err := nameFree(ctx, tx, a); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE agents SET name = ?, description = ?, config = ?, updated_at = ? WHERE id = ?`,
			a.Name, a.Description, string(cfg), now.UnixNano(), a.ID)
		return err
	})
	if err != nil {
		return agentconfig.Agent{}, s.opErr("update "+describe(a), err)
	}
	return a, nil
}

// Delete removes a stored agent.
func (s *Store) Delete(ctx context.Context, id string) error {
	if agentconfig.IsBuiltinID(id) {
		return fmt.Errorf("agent %s: %w: it cannot be removed", id, ErrBuiltin)
	}
	err := s.db.Write(ctx, func(tx sidetable.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM agents WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("agent %q: %w", id, ErrNotFound)
		}
		return nil
	})
	return s.opErr("remove agent "+id, err)
}

// Get returns the stored agent of id (built-ins are not stored: see
// Resolve).
func (s *Store) Get(ctx context.Context, id string) (agentconfig.Agent, error) {
	return s.getWhere(ctx, "id", id)
}

// List returns the stored agents by name (case-insensitive), then id.
func (s *Store) List(ctx context.Context) ([]agentconfig.Agent, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+columns+` FROM agents ORDER BY lower(name), id`)
	if err != nil {
		return nil, fmt.Errorf("list agents in %s: %w", s.db.Name, err)
	}
	defer rows.Close()
	var out []agentconfig.Agent
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, fmt.Errorf("list agents in %s: %w", s.db.Name, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list agents in %s: %w", s.db.Name, err)
	}
	return out, nil
}

const columns = `id, name, description, config, created_at, updated_at`

// getWhere reads one agent by id or by name (the column's collation
// ignores case: NOCASE on SQLite, nocase on PostgreSQL).
func (s *Store) getWhere(ctx context.Context, column, v string) (agentconfig.Agent, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+columns+` FROM agents WHERE `+column+` = ?`, v)
	a, err := scanAgent(row)
	if errors.Is(err, sql.ErrNoRows) {
		return agentconfig.Agent{}, fmt.Errorf("agent %q: %w", v, ErrNotFound)
	}
	if err != nil {
		return agentconfig.Agent{}, fmt.Errorf("read agent %q in %s: %w", v, s.db.Name, err)
	}
	return a, nil
}

type scanner interface{ Scan(dest ...any) error }

// scanAgent decodes one row. The config is decoded leniently (a newer
// Moteur may have added fields) but must be JSON and pass Validate.
func scanAgent(sc scanner) (agentconfig.Agent, error) {
	var a agentconfig.Agent
	var cfg string
	var created, updated int64
	if err := sc.Scan(&a.ID, &a.Name, &a.Description, &cfg, &created, &updated); err != nil {
		return a, err
	}
	if err := json.Unmarshal([]byte(cfg), &a.Config); err != nil {
		return agentconfig.Agent{}, fmt.Errorf("agent %s: %w: its config is not valid JSON (%v)", a.ID, ErrBadRow, err)
	}
	a.Config.EnsureDefaults()
	if err := a.Config.Validate(); err != nil {
		return agentconfig.Agent{}, fmt.Errorf("agent %s: %w: %w", a.ID, ErrBadRow, err)
	}
	a.Created, a.Updated = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	return a, nil
}

// refuseBuiltin keeps built-in ids for the built-ins: as a stored id they
// would be shadowed, as a name Resolve would never reach the agent.
func refuseBuiltin(a agentconfig.Agent) error {
	switch {
	case a.ID != "" && agentconfig.IsBuiltinID(a.ID):
		return fmt.Errorf("agent id %s: %w: choose another id", a.ID, ErrBuiltin)
	case agentconfig.IsBuiltinID(a.Name):
		return fmt.Errorf("agent name %q: %w id: choose another name", a.Name, ErrBuiltin)
	}
	return nil
}

// nameFree checks, inside the writing transaction, that no other agent has
// a's name (ignoring case) or has it as id (Resolve tries ids first).
func nameFree(ctx context.Context, tx sidetable.Tx, a agentconfig.Agent) error {
	var other string
	err := tx.QueryRowContext(ctx, `SELECT id FROM agents WHERE (name = ? OR id = ?) AND id != ? LIMIT 1`,
		a.Name, a.Name, a.ID).Scan(&other)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("agent name %q: %w (agent %s)", a.Name, ErrExists, other)
}

// opErr names the file for a database failure; errors of this package's
// own rules already say everything.
func (s *Store) opErr(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrExists), errors.Is(err, ErrBuiltin):
		return err
	}
	return fmt.Errorf("%s in %s: %w", what, s.db.Name, err)
}
