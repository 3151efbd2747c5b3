package session_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/moteur/moteur/internal/pgtest"
	"github.com/moteur/moteur/session"
	"github.com/moteur/moteur/session/sessiontest"
)

// TestPostgresConformance runs the conformance suite on one new database,
// each subtest in a schema of its own (cheaper than a database each).
func TestPostgresConformance(t *testing.T) {
	url := pgtest.Database(t)
	var n atomic.Int64
	sessiontest.RunWith(t, sessiontest.Options{NoPIDCheck: true, Fencing: true}, func(t *testing.T) sessiontest.Opener {
		schema := fmt.Sprintf("conformance_%d", n.Add(1))
		return func(t *testing.T, p sessiontest.Process) session.Store {
			s, err := session.OpenPostgres(t.Context(), session.PostgresConfig{URL: url, Schema: schema,
				Host: p.Host, PID: p.PID, Now: p.Now, LeaseTTL: p.LeaseTTL})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
