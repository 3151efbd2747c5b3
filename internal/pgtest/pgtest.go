// Package pgtest gives tests a PostgreSQL database of their own on the
// server that $MOTEUR_TEST_POSTGRES names (a connection URL of a role that
// may create databases). Without the variable a test that needs one is
// skipped, saying so, except under CI=true, where it fails: .ci/run starts
// PostgreSQL and sets it, and a skip there would hide a test that never
// ran.
//
// Each database is new and empty, with a random name, and is dropped when
// the test ends: tests run in parallel and in several processes without
// seeing each other's data.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/moteur/moteur/internal/testenv"
)

// EnvVar names the server the tests use.
const EnvVar = "MOTEUR_TEST_POSTGRES"

// URL is $MOTEUR_TEST_POSTGRES; when it is unset, tb is skipped (failed
// under CI=true), saying how to set it.
func URL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv(EnvVar)
	if u == "" {
		testenv.Missing(tb, EnvVar+" is not set: set it to the URL of a PostgreSQL server whose role may create databases "+
			"(e.g. postgres://moteur:moteur@127.0.0.1:5432/postgres?sslmode=disable) to run the PostgreSQL tests")
	}
	return u
}

// Database creates a new, empty database on the server of
// $MOTEUR_TEST_POSTGRES, dropped when tb ends, and returns its URL: the
// variable's with the database name replaced. tb is skipped (failed under
// CI=true) without the variable, and fails when the server cannot be used.
func Database(tb testing.TB) string {
	tb.Helper()
	admin := URL(tb)
	cfg, err := pgx.ParseConfig(admin)
	if err != nil {
		tb.Fatalf("%s: %v", EnvVar, err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	name := "moteur_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		tb.Fatalf("%s: connect to %s@%s:%d/%s: %v", EnvVar, cfg.User, cfg.Host, cfg.Port, cfg.Database, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		tb.Fatalf("%s: create a test database: %v", EnvVar, err)
	}
	tb.Cleanup(func() { drop(tb, cfg, name) })
	return withDatabase(tb, admin, name)
}

// withDatabase is the connection string u naming the database name.
func withDatabase(tb testing.TB, u, name string) string {
	tb.Helper()
	if strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://") {
		pu, err := url.Parse(u)
		if err != nil {
			tb.Fatalf("%s: %v", EnvVar, err)
		}
		pu.Path, pu.RawPath = "/"+name, ""
		return pu.String()
	}
	return u + " dbname=" + name // key=value: the last one counts
}

// drop drops the test database, ending the sessions a test left open.
func drop(tb testing.TB, cfg *pgx.ConnConfig, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		tb.Errorf("%s: drop test database %s: %v", EnvVar, name, err)
		return
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		tb.Errorf("%s: drop test database %s: %v", EnvVar, name, err)
	}
}
