package apikey

import (
	"context"
	"database/sql"

	"github.com/moteur/moteur/sidetable"
)

// CopyTo copies every key of s — revoked ones too, so that an audit naming
// a key still finds its name — into dst as stored: the same id, name, hash,
// scope and times. A key dst already has (by id) is left as it is, so that
// a copy that stopped half-way can be run again. copied counts the keys
// added. The secrets are never known: their hashes travel.
func (s *Store) CopyTo(ctx context.Context, dst *Store) (copied int, err error) {
	const cols = `id, name, sha256, bases, agents, wait, created_at, revoked_at`
	return sidetable.Copy(ctx, s.db, dst.db, `SELECT `+cols+` FROM api_keys ORDER BY id`,
		`INSERT INTO api_keys (`+cols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		func() []any {
			var id, name, bases, agents string
			var hash []byte
			var wait bool
			var created int64
			var revoked sql.NullInt64
			return []any{&id, &name, &hash, &bases, &agents, &wait, &created, &revoked}
		})
}
