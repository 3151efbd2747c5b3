package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/moteur/moteur/internal/pgtest"
)

// openPG opens a Store on schema of the database at url, closed when t
// ends.
func openPG(t testing.TB, url, schema string) *Postgres {
	t.Helper()
	s, err := OpenPostgres(context.Background(), PostgresConfig{URL: url, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// rawPG is a connection of its own to the database at url, in schema.
func rawPG(t testing.TB, url, schema string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize()
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func TestPostgresWrongPassword(t *testing.T) {
	url := pgtest.Database(t)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(url, ":"+cfg.Password+"@", ":not-the-password@", 1)
	if bad == url {
		t.Fatalf("%s has no password to replace", pgtest.EnvVar)
	}
	_, err = OpenPostgres(context.Background(), PostgresConfig{URL: bad})
	if err == nil {
		t.Fatal("opened with a wrong password")
	}
	t.Log(err)
	for _, want := range []string{"PostgreSQL refused the login (check the user and password in the database URL)",
		"password authentication failed", cfg.User} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "not-the-password") {
		t.Errorf("error %q shows the password", err)
	}
}

func TestPostgresUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Port 1 of the loopback: nothing listens there.
	_, err := OpenPostgres(ctx, PostgresConfig{URL: "postgres://moteur:secret@127.0.0.1:1/moteur?sslmode=disable&connect_timeout=5"})
	if err == nil || !strings.Contains(err.Error(), "cannot connect to PostgreSQL") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("open on a closed port: %v; want a connection error without the password", err)
	}
	for _, bad := range []string{"", "postgres://moteur@[::1/x", "not a url at all=%"} {
		if _, err := OpenPostgres(ctx, PostgresConfig{URL: bad}); err == nil {
			t.Errorf("URL %q accepted", bad)
		}
	}
}

func TestPostgresNewerSchemaRefused(t *testing.T) {
	url := pgtest.Database(t)
	s := openPG(t, url, "newer")
	if err := s.Append(context.Background(), notes("a", 1, 2)...); err != nil {
		t.Fatal(err)
	}
	must(t, s.Close())
	raw := rawPG(t, url, "newer")
	if _, err := raw.Exec(context.Background(), `INSERT INTO schema_migrations (version) VALUES (99)`); err != nil {
		t.Fatal(err)
	}
	_, err := OpenPostgres(context.Background(), PostgresConfig{URL: url, Schema: "newer"})
	want := fmt.Sprintf("database schema version 99 is newer than this Moteur (%d); upgrade Moteur", len(pgMigrations))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("open a newer schema: %v; want %q", err, want)
	}
	// Refused, and left as it was.
	var versions, events int
	if err := raw.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM schema_migrations), (SELECT count(*) FROM events)`).
		Scan(&versions, &events); err != nil {
		t.Fatal(err)
	}
	if versions != len(pgMigrations)+1 || events != 2 {
		t.Fatalf("after the refusal: %d versions, %d events", versions, events)
	}
}

func TestPostgresForeignSchemaRefused(t *testing.T) {
	url := pgtest.Database(t)
	raw := rawPG(t, url, "public")
	if _, err := raw.Exec(context.Background(), `CREATE SCHEMA theirs; CREATE TABLE theirs.sessions (id int)`); err != nil {
		t.Fatal(err)
	}
	_, err := OpenPostgres(context.Background(), PostgresConfig{URL: url, Schema: "theirs"})
	if err == nil || !strings.Contains(err.Error(), "schema theirs has tables but no schema_migrations: it is not Moteur's") {
		t.Fatalf("open a schema of another application: %v", err)
	}
}

// TestPostgresMigrationsAppliedOnce opens one new schema from many Stores at
// once: the advisory lock lets one migrate, and the others find it done.
func TestPostgresMigrationsAppliedOnce(t *testing.T) {
	url := pgtest.Database(t)
	const openers = 8
	var wg sync.WaitGroup
	errs := make([]error, openers)
	start := make(chan struct{})
	for i := range openers {
		wg.Go(func() {
			<-start
			s, err := OpenPostgres(context.Background(), PostgresConfig{URL: url, Schema: "racing"})
			if err == nil {
				err = s.Close()
			}
			errs[i] = err
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("opener %d: %v", i, err)
		}
	}
	var versions, distinct int
	if err := rawPG(t, url, "racing").QueryRow(context.Background(), `SELECT count(*), count(DISTINCT version) FROM schema_migrations`).
		Scan(&versions, &distinct); err != nil {
		t.Fatal(err)
	}
	if versions != len(pgMigrations) || distinct != len(pgMigrations) {
		t.Fatalf("%d migrations recorded (%d distinct), want %d", versions, distinct, len(pgMigrations))
	}
}

// TestPostgresConnectionLostMidAppend ends the server process of an append
// that has written its first event and waits to write its second: the
// append fails saying that the connection was lost and nothing stored, no
// event of it is left, and the session continues once connections work.
func TestPostgresConnectionLostMidAppend(t *testing.T) {
	url := pgtest.Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := openPG(t, url, "lost")
	must(t, s.Append(ctx, notes("d", 1, 2)...))

	// The blocker writes seq 4 without committing: the append of 3 and 4
	// inserts 3, then waits on the primary key for the blocker's outcome.
	blocker := rawPG(t, url, "lost")
	tx, err := blocker.Begin(ctx)
	must(t, err)
	defer rollbackTest(tx)
	if _, err := tx.Exec(ctx, `INSERT INTO events (session_id, seq, type, time, data) VALUES ('d', 4, 'x', 0, '{}')`); err != nil {
		t.Fatal(err)
	}
	appended := make(chan error, 1)
	go func() { appended <- s.Append(ctx, notes("d", 3, 4)...) }()

	admin := rawPG(t, url, "lost")
	victim := waitBlocked(ctx, t, admin, blocker, appended)
	var ended bool
	must(t, admin.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, victim).Scan(&ended))
	if !ended {
		t.Fatalf("backend %d not ended", victim)
	}
	err = <-appended
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "session d: append: the connection to PostgreSQL was lost before the commit; nothing of this append was stored") {
		t.Fatalf("append whose connection was ended: %v", err)
	}
	rollbackTest(tx)

	// Nothing half-written: seq 3, written before the wait, went with the
	// transaction.
	evs, err := s.Load(ctx, "d")
	must(t, err)
	info, err := s.Info(ctx, "d")
	must(t, err)
	if len(evs) != 2 || info.LastSeq != 2 || info.Events != 2 {
		t.Fatalf("after the lost append: %d events, %+v", len(evs), info)
	}
	// The pool drops the dead connection: the session goes on.
	must(t, s.Append(ctx, notes("d", 3, 4)...))
	if evs, err := s.Load(ctx, "d"); err != nil || len(evs) != 4 {
		t.Fatalf("after the retry: %d events, %v", len(evs), err)
	}
}

// TestPostgresDamagedRowsAreErrors: a gap or an event that no longer
// decodes is an error naming the seq, never skipped.
func TestPostgresDamagedRowsAreErrors(t *testing.T) {
	url := pgtest.Database(t)
	ctx := context.Background()
	s := openPG(t, url, "damaged")
	must(t, s.Append(ctx, notes("gap", 1, 3)...))
	must(t, s.Append(ctx, notes("bad", 1, 3)...))
	raw := rawPG(t, url, "damaged")
	if _, err := raw.Exec(ctx, `DELETE FROM events WHERE session_id = 'gap' AND seq = 2;
		UPDATE events SET data = 'not json' WHERE session_id = 'bad' AND seq = 2`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, "gap"); err == nil || !strings.Contains(err.Error(), "jump from seq 1 to 3") {
		t.Errorf("load with a gap: %v", err)
	}
	if _, err := s.Heads(ctx, "gap"); err == nil || !strings.Contains(err.Error(), "jump from seq 1 to 3") {
		t.Errorf("heads with a gap: %v", err)
	}
	if _, err := s.Load(ctx, "bad"); err == nil || !strings.Contains(err.Error(), "stored event seq 2 does not decode") {
		t.Errorf("load of an undecodable event: %v", err)
	}
	if _, err := s.Fork(ctx, "bad", 3, "copy"); err == nil || !strings.Contains(err.Error(), "stored event seq 2 does not decode") {
		t.Errorf("fork of an undecodable event: %v", err)
	}
}

// waitBlocked returns the pid of the Store's backend once it waits for a
// lock that blocker holds; it fails t if the call whose outcome done
// delivers returns first.
func waitBlocked(ctx context.Context, t *testing.T, admin, blocker *pgx.Conn, done <-chan error) int {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var pid int
		err := admin.QueryRow(ctx, `SELECT pid FROM pg_stat_activity
			WHERE datname = current_database() AND application_name = 'moteur' AND wait_event_type = 'Lock'
				AND $1 = ANY (pg_blocking_pids(pid))`, blocker.PgConn().PID()).Scan(&pid)
		switch {
		case err == nil:
			return pid
		case !errors.Is(err, pgx.ErrNoRows):
			t.Fatal(err)
		}
		select {
		case err := <-done:
			t.Fatalf("the call returned before it waited on the blocker: %v", err)
		case <-ctx.Done():
			t.Fatal("the call never waited on the blocker")
		case <-tick.C:
		}
	}
}

// TestPostgresTakeoverDuringAppend: an append checks the lease in its own
// transaction, with the lease row locked. A takeover that is under way
// when the old holder appends makes the append wait, and once committed,
// refuses it: the append never acts on the lease row as it was before.
func TestPostgresTakeoverDuringAppend(t *testing.T) {
	url := pgtest.Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := openPG(t, url, "takeover")
	l, err := s.Acquire(ctx, "r")
	must(t, err)
	defer l.Release()
	must(t, s.Append(ctx, notes("r", 1, 1)...))

	// Another replica takes the lease over (as Acquire does once it
	// expired), and has not committed yet.
	thief := rawPG(t, url, "takeover")
	tx, err := thief.Begin(ctx)
	must(t, err)
	defer rollbackTest(tx)
	if _, err := tx.Exec(ctx, `UPDATE leases SET host = 'thief.invalid', pid = 4343, token = nextval('lease_tokens')
		WHERE session_id = 'r'`); err != nil {
		t.Fatal(err)
	}
	appended := make(chan error, 1)
	go func() { appended <- s.Append(ctx, notes("r", 2, 2)...) }()
	waitBlocked(ctx, t, rawPG(t, url, "takeover"), thief, appended)
	must(t, tx.Commit(ctx))
	err = <-appended
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "was taken over by pid 4343 on host thief.invalid") {
		t.Fatalf("append through a lease taken over during it: %v", err)
	}
	if evs, err := s.Load(ctx, "r"); err != nil || len(evs) != 1 {
		t.Fatalf("after the refused append: %d events, %v", len(evs), err)
	}
}

// TestPostgresClosedStoreErrs: a closed Store refuses every call with an
// error, and never panics.
func TestPostgresClosedStoreErrs(t *testing.T) {
	url := pgtest.Database(t)
	s := openPG(t, url, "closed")
	ctx := context.Background()
	must(t, s.Append(ctx, notes("c", 1, 1)...))
	must(t, s.Close())
	if err := s.Append(ctx, notes("c", 2, 2)...); err == nil {
		t.Error("append after close")
	}
	if _, err := s.Load(ctx, "c"); err == nil {
		t.Error("load after close")
	}
	if _, err := s.Acquire(ctx, "c"); err == nil {
		t.Error("acquire after close")
	}
	if _, err := s.List(ctx, ListOptions{}); err == nil {
		t.Error("list after close")
	}
	must(t, s.Close())
}

func rollbackTest(tx pgx.Tx) { _ = tx.Rollback(context.Background()) }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestPostgresCancelledContext: a call whose context is done fails with
// the context's error, not as if the server were gone, and stores nothing.
func TestPostgresCancelledContext(t *testing.T) {
	url := pgtest.Database(t)
	s := openPG(t, url, "cancelled")
	must(t, s.Append(context.Background(), notes("c", 1, 1)...))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Append(ctx, notes("c", 2, 2)...)
	if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "connection to PostgreSQL was lost") {
		t.Fatalf("append with a cancelled context: %v", err)
	}
	if evs, err := s.Load(context.Background(), "c"); err != nil || len(evs) != 1 {
		t.Fatalf("after the cancelled append: %d events, %v", len(evs), err)
	}
}
