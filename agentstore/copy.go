package agentstore

import (
	"context"

	"github.com/moteur/moteur/sidetable"
)

// CopyTo copies every stored agent of s into dst as stored: the same id,
// name, description, config and times. An agent dst already has (by id) is
// left as it is, so that a copy that stopped half-way can be run again;
// one whose name another agent of dst has is an error naming it. copied
// counts the agents added.
func (s *Store) CopyTo(ctx context.Context, dst *Store) (copied int, err error) {
	return sidetable.Copy(ctx, s.db, dst.db, `SELECT `+columns+` FROM agents ORDER BY id`,
		`INSERT INTO agents (`+columns+`) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		func() []any {
			var id, name, description, config string
			var created, updated int64
			return []any{&id, &name, &description, &config, &created, &updated}
		})
}
