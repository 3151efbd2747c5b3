package session_test

import (
	"path/filepath"
	"testing"

	"github.com/moteur/moteur/session"
	"github.com/moteur/moteur/session/sessiontest"
)

func TestSQLiteConformance(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) sessiontest.Opener {
		path := filepath.Join(t.TempDir(), "data", "moteur.db")
		return func(t *testing.T, p sessiontest.Process) session.Store {
			s, err := session.OpenSQLite(t.Context(), session.SQLiteConfig{
				Path: path, Host: p.Host, PID: p.PID, Now: p.Now, LeaseTTL: p.LeaseTTL})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	})
}
