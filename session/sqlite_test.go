package session

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
)

func openTest(t testing.TB, path string) *SQLite {
	t.Helper()
	s, err := OpenSQLite(context.Background(), SQLiteConfig{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func note(id string, seq uint64) event.Event {
	return event.Event{Seq: seq, Type: event.ToolResult, SessionID: id, Time: time.Unix(int64(seq), 0).UTC(),
		Payload: event.ToolResultPayload{CallID: "c", Name: "n", Content: fmt.Sprintf("%s #%d", id, seq)}}
}

func notes(id string, from, to uint64) []event.Event {
	var out []event.Event
	for s := from; s <= to; s++ {
		out = append(out, note(id, s))
	}
	return out
}

// rawDB opens the file without the Store, to look at it or damage it.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenCreatesPrivateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "moteur.db")
	s := openTest(t, path)
	if err := s.Append(context.Background(), note("x", 1)); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{filepath.Dir(path): 0o700, path: 0o600} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got&^want != 0 {
			t.Errorf("%s: mode %v, want at most %v", p, got, want)
		}
	}
	if DefaultPath("/h") != "/h/moteur.db" {
		t.Errorf("DefaultPath = %q", DefaultPath("/h"))
	}
	if _, err := OpenSQLite(context.Background(), SQLiteConfig{}); err == nil {
		t.Error("open without a path succeeded")
	}
}

func TestPathWithOddCharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir ?x=1#frag%20", "moteur.db")
	s := openTest(t, path)
	if err := s.Append(context.Background(), note("x", 1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not where asked: %v", err)
	}
	s = openTest(t, path)
	if evs, err := s.Load(context.Background(), "x"); err != nil || len(evs) != 1 {
		t.Fatalf("reopened: %d events, %v", len(evs), err)
	}
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, path)
	ctx := context.Background()
	if err := s.Append(ctx, notes("k", 1, 10)...); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Info(ctx, "k")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openTest(t, path)
	evs, err := s.Load(ctx, "k")
	if err != nil || len(evs) != 10 {
		t.Fatalf("reopened: %d events, %v", len(evs), err)
	}
	if after, _ := s.Info(ctx, "k"); after != before {
		t.Fatalf("info changed across reopen:\n%+v\n%+v", after, before)
	}
}

func TestMigrationsAppliedOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	// Processes racing to create the file apply each migration once.
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := OpenSQLite(context.Background(), SQLiteConfig{Path: path})
			if err == nil {
				err = s.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	read := func() []string {
		rows, err := rawDB(t, path).Query(`SELECT version, applied_at FROM schema_migrations ORDER BY version`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var v int
			var at string
			if err := rows.Scan(&v, &at); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d %s", v, at))
		}
		return out
	}
	first := read()
	if len(first) != len(migrations) {
		t.Fatalf("schema_migrations %v, want %d versions", first, len(migrations))
	}
	for i, row := range first {
		if !strings.HasPrefix(row, fmt.Sprint(i+1, " ")) {
			t.Fatalf("schema_migrations %v, want versions 1..%d", first, len(migrations))
		}
	}
	// A reopening an hour later would stamp a different applied_at.
	later, err := OpenSQLite(context.Background(), SQLiteConfig{Path: path, Now: func() time.Time { return time.Now().Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	later.Close()
	if again := read(); !reflect.DeepEqual(again, first) {
		t.Fatalf("reopening changed schema_migrations: %v, was %v", again, first)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, path)
	if err := s.Append(context.Background(), note("x", 1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	db := rawDB(t, path)
	newer := len(migrations) + 1
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 'later')`, newer); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenSQLite(context.Background(), SQLiteConfig{Path: path})
	want := fmt.Sprintf("database schema version %d is newer than this Moteur (%d); upgrade Moteur", newer, len(migrations))
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
		t.Fatalf("got %v, want an error naming %s and saying %q", err, path, want)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("opening a newer database modified it")
	}
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		t.Fatalf("opening a newer database wrote %d bytes of WAL", wal.Size())
	}
}

// wantCorrupt fails unless err is the clear error about the file.
func wantCorrupt(t *testing.T, err error, path string) {
	t.Helper()
	want := "database " + path + " is corrupt or not a Moteur database"
	t.Logf("error: %v", err)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

func TestGarbageFileRefused(t *testing.T) {
	dir := t.TempDir()
	garbage := bytes.Repeat([]byte("not a database, just bytes \x00\xff"), 300)
	cases := map[string][]byte{
		"garbage":     garbage,
		"tiny":        []byte("SQLite"),
		"magic only":  append([]byte(sqliteMagic), garbage...),
		"bad pages":   append(append([]byte(sqliteMagic), 0x10, 0x00, 1, 1, 0, 64, 32, 32), garbage...),
		"zero header": make([]byte, 4096),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".db")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := OpenSQLite(context.Background(), SQLiteConfig{Path: path})
			if err == nil {
				s.Close()
			}
			wantCorrupt(t, err, path)
			if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
				t.Fatal("opening a bad file modified it")
			}
		})
	}
}

func TestForeignDatabaseRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	db := rawDB(t, path)
	if _, err := db.Exec(`CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := OpenSQLite(context.Background(), SQLiteConfig{Path: path})
	wantCorrupt(t, err, path)

	path = filepath.Join(t.TempDir(), "app.db")
	db = rawDB(t, path)
	if _, err := db.Exec(`PRAGMA application_id = 42`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = OpenSQLite(context.Background(), SQLiteConfig{Path: path})
	wantCorrupt(t, err, path)
}

// bigDatabase writes a database of a few hundred pages and closes it, so that
// everything is in the main file.
func bigDatabase(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, path)
	ctx := context.Background()
	for i := range 20 {
		if err := s.Append(ctx, notes(fmt.Sprintf("s%02d", i), 1, 100)...); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("the WAL outlived Close: the test would not damage what it means to")
	}
	return path
}

// useAll reads everything through a Store; each error must be the clear one.
func useAll(t *testing.T, path string) (failed bool) {
	t.Helper()
	s, err := OpenSQLite(context.Background(), SQLiteConfig{Path: path})
	if err != nil {
		wantCorrupt(t, err, path)
		return true
	}
	defer s.Close()
	ctx := context.Background()
	check := func(err error) {
		if err != nil {
			wantCorrupt(t, err, path)
			failed = true
		}
	}
	p, err := s.List(ctx, ListOptions{Limit: 1000})
	check(err)
	for i := range 20 {
		id := fmt.Sprintf("s%02d", i)
		_, err := s.Load(ctx, id)
		if !errors.Is(err, ErrNotFound) {
			check(err)
		}
		check(s.Append(ctx, note(id, 101)))
	}
	_ = p
	return failed
}

func TestTruncatedFileRefused(t *testing.T) {
	path := bigDatabase(t)
	st, _ := os.Stat(path)
	if st.Size() < 64*1024 {
		t.Fatalf("database of %d bytes: too small to cut", st.Size())
	}
	if err := os.Truncate(path, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	_, err := OpenSQLite(context.Background(), SQLiteConfig{Path: path})
	wantCorrupt(t, err, path)
	if !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("error %q should say the file is truncated", err)
	}
}

func TestDamagedPagesReported(t *testing.T) {
	path := bigDatabase(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Overwrite pages 3… with garbage; the header and schema stay.
	for i := 2 * 4096; i < len(data); i++ {
		data[i] = byte(i*7 + 3)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if !useAll(t, path) {
		t.Fatal("a database with garbage pages read and wrote without an error")
	}
}

func TestUndecodableRowIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, path)
	ctx := context.Background()
	if err := s.Append(ctx, notes("bad", 1, 3)...); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	for _, tc := range []struct{ data, want string }{
		{`{"seq":2,"type":"ToolResult","payload":`, "seq 2 does not decode"},
		{`{"seq":2,"type":"ToolResult","payload":{"content":7}}`, "seq 2 does not decode"},
		{`{"seq":9,"type":"ToolResult","session_id":"bad","payload":{}}`, `seq 2 reads as session "bad" seq 9`},
	} {
		if _, err := db.Exec(`UPDATE events SET data = ? WHERE session_id = 'bad' AND seq = 2`, tc.data); err != nil {
			t.Fatal(err)
		}
		_, err := s.Load(ctx, "bad")
		if err == nil || !strings.Contains(err.Error(), "session bad") || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("got %v, want an error naming session bad and %q", err, tc.want)
		}
		if _, err := s.Fork(ctx, "bad", 3, "bad2"); err == nil {
			t.Fatal("fork copied an undecodable event")
		}
	}
}

func TestClosedStoreErrs(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "moteur.db"))
	ctx := context.Background()
	if err := s.Append(ctx, note("x", 1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.Append(ctx, note("x", 2)); err == nil {
		t.Error("append after close")
	}
	if _, err := s.Load(ctx, "x"); err == nil {
		t.Error("load after close")
	}
	if _, err := s.List(ctx, ListOptions{}); err == nil {
		t.Error("list after close")
	}
	if _, err := s.Acquire(ctx, "x"); err == nil {
		t.Error("acquire after close")
	}
}

func TestCancelledContext(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "moteur.db"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Append(ctx, note("x", 1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("append with a cancelled context: %v", err)
	}
	if _, err := s.Info(context.Background(), "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a cancelled append stored something: %v", err)
	}
}

// rawEvent must mirror event.Event field for field, or Fork would drop or
// reorder what json.Marshal(event.Event) writes.
func TestRawEventMirrorsEvent(t *testing.T) {
	et, rt := reflect.TypeFor[event.Event](), reflect.TypeFor[rawEvent]()
	if et.NumField() != rt.NumField() {
		t.Fatalf("event.Event has %d fields, rawEvent %d: update rawEvent", et.NumField(), rt.NumField())
	}
	for i := range et.NumField() {
		ef, rf := et.Field(i), rt.Field(i)
		if ef.Name != rf.Name || ef.Tag != rf.Tag || (ef.Name != "Payload" && ef.Type != rf.Type) {
			t.Errorf("field %d: event.Event has %s %s %q, rawEvent %s %s %q", i, ef.Name, ef.Type, ef.Tag, rf.Name, rf.Type, rf.Tag)
		}
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("CET", 3600))
	for _, e := range []event.Event{
		{Seq: 3, Type: event.UserMessage, SessionID: "a", Time: at, ParentCallID: "p",
			Payload: event.UserMessagePayload{Text: "<b>é\u2028</b> & \"q\""}},
		{Seq: 1, Type: "Future", SessionID: "a", Payload: json.RawMessage(`{"z":1,"a":[true,null]}`)},
		{Seq: 2, Type: event.TurnCompleted, SessionID: "a", Time: at},
	} {
		data, _ := json.Marshal(e)
		got, err := rewriteSessionID(data, "b")
		if err != nil {
			t.Fatal(err)
		}
		e.SessionID = "b"
		want, _ := json.Marshal(e)
		if !bytes.Equal(got, want) {
			t.Errorf("rewritten:\n got %s\nwant %s", got, want)
		}
	}
}

func TestTitleOf(t *testing.T) {
	long := strings.Repeat("a", 79) + " bcd"
	for in, want := range map[string]string{
		"":                               "",
		"  bonjour  ":                    "bonjour",
		"\n\n  ligne 1 \r\nligne 2":      "ligne 1",
		strings.Repeat("é", 81):          strings.Repeat("é", 79) + "…",
		long:                             strings.Repeat("a", 79) + "…",
		strings.Repeat("a", 78) + " bcd": strings.Repeat("a", 78) + "…",
	} {
		if got := titleOf(in); got != want {
			t.Errorf("titleOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGapIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, path)
	ctx := context.Background()
	if err := s.Append(ctx, notes("gap", 1, 4)...); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	if _, err := db.Exec(`DELETE FROM events WHERE session_id = 'gap' AND seq = ?`, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, "gap"); err == nil || !strings.Contains(err.Error(), "session gap: stored events jump from seq 1 to 3") {
		t.Fatalf("load of a log with a gap: %v", err)
	}
	if _, err := db.Exec(`DELETE FROM events WHERE session_id = 'gap' AND seq = ?`, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LoadFrom(ctx, "gap", 2); err == nil || !strings.Contains(err.Error(), "ends at seq 4") {
		t.Fatalf("load of a log cut short: %v", err)
	}
	if _, err := s.Fork(ctx, "gap", 3, "g2"); err == nil {
		t.Fatal("fork of a log with a gap succeeded")
	}
}
