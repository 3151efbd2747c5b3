package websnap_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/internal/dbtest"
	"github.com/moteur/moteur/redact/redacttest"
	"github.com/moteur/moteur/tools/web"
	"github.com/moteur/moteur/websnap"
)

var now = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func newStore(t *testing.T, path string, max int) *websnap.Store {
	t.Helper()
	return newStoreOn(t, dbtest.Backend{Path: path}, max)
}

// newStoreOn is the store of the database b.
func newStoreOn(t *testing.T, b dbtest.Backend, max int) *websnap.Store {
	t.Helper()
	s := websnap.New(websnap.Config{Path: b.Path, URL: b.URL, Now: func() time.Time { return now }, MaxPerSession: max})
	t.Cleanup(func() { s.Close() })
	return s
}

func dbPath(t *testing.T) string { return filepath.Join(t.TempDir(), "moteur.db") }

func snap(path, text string) web.Snapshot {
	return web.Snapshot{Path: path, URL: "https://example.com/a", FinalURL: "https://example.com/b", Title: "A page",
		Format: "markdown", Text: text, Truncated: true, Fetched: now.Add(-time.Minute)}
}

func put(t *testing.T, s web.Snapshots, sn web.Snapshot) {
	t.Helper()
	if err := s.Put(context.Background(), sn); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, s web.Snapshots, path string) web.Snapshot {
	t.Helper()
	sn, err := s.Get(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

func missing(t *testing.T, s web.Snapshots, path string) {
	t.Helper()
	_, err := s.Get(context.Background(), path)
	if !errors.Is(err, web.ErrNoSnapshot) {
		t.Errorf("Get(%s) = %v, want an error wrapping web.ErrNoSnapshot", path, err)
	}
}

func TestPutGetSurvivesReopen(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStoreOn(t, bk, 0)
		want := snap("web://example.com/1.md", "# Title\n\nline two\nline three")
		put(t, s.Session("s1"), want)
		if got := get(t, s.Session("s1"), want.Path); got != want {
			t.Errorf("before reopening: got %+v\nwant %+v", got, want)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Session("s1").Get(context.Background(), want.Path); !errors.Is(err, websnap.ErrClosed) {
			t.Errorf("Get after Close = %v, want ErrClosed", err)
		}
		again := newStoreOn(t, bk, 0)
		if got := get(t, again.Session("s1"), want.Path); got != want {
			t.Errorf("after reopening: got %+v\nwant %+v", got, want)
		}
	})
}

func TestPutReplacesSamePath(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStoreOn(t, bk, 0).Session("s1")
		put(t, s, snap("web://example.com/1.md", "old text"))
		put(t, s, snap("web://example.com/1.md", "new text"))
		if got := get(t, s, "web://example.com/1.md").Text; got != "new text" {
			t.Errorf("text %q after a second Put, want the new one", got)
		}
	})
}

func TestCapDropsTheOldest(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		s := newStoreOn(t, bk, 3).Session("s1")
		for i := 1; i <= 3; i++ {
			put(t, s, snap(fmt.Sprintf("web://example.com/%d.md", i), fmt.Sprint("text ", i)))
		}
		// Put again, 1 becomes the newest: 2 is now the oldest.
		put(t, s, snap("web://example.com/1.md", "text 1 again"))
		for i := 1; i <= 3; i++ {
			get(t, s, fmt.Sprintf("web://example.com/%d.md", i)) // all three kept at the cap
		}
		put(t, s, snap("web://example.com/4.md", "text 4"))
		missing(t, s, "web://example.com/2.md")
		for _, i := range []int{1, 3, 4} {
			get(t, s, fmt.Sprintf("web://example.com/%d.md", i))
		}
		put(t, s, snap("web://example.com/5.md", "text 5"))
		missing(t, s, "web://example.com/3.md")
		if got := get(t, s, "web://example.com/1.md").Text; got != "text 1 again" {
			t.Errorf("snapshot 1: %q", got)
		}
	})
}

func TestCapIsPerSession(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		st := newStoreOn(t, bk, 2)
		a, b := st.Session("a"), st.Session("b")
		put(t, a, snap("web://example.com/1.md", "a1"))
		put(t, a, snap("web://example.com/2.md", "a2"))
		put(t, b, snap("web://example.com/3.md", "b3"))
		put(t, b, snap("web://example.com/4.md", "b4"))
		// Four rows in the file, two per session: none dropped.
		get(t, a, "web://example.com/1.md")
		get(t, b, "web://example.com/3.md")
	})
}

func TestSessionsAreApart(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		st := newStoreOn(t, bk, 0)
		a, b := st.Session("a"), st.Session("b")
		put(t, a, snap("web://example.com/shared.md", "a's text"))
		missing(t, b, "web://example.com/shared.md")
		put(t, b, snap("web://example.com/shared.md", "b's text"))
		if got := get(t, a, "web://example.com/shared.md").Text; got != "a's text" {
			t.Errorf("session a reads %q", got)
		}
		if got := get(t, b, "web://example.com/shared.md").Text; got != "b's text" {
			t.Errorf("session b reads %q", got)
		}
	})
}

func TestRemoveSessionRemovesOnlyThatSession(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		st := newStoreOn(t, bk, 0)
		a, b := st.Session("a"), st.Session("b")
		put(t, a, snap("web://example.com/1.md", "a1"))
		put(t, a, snap("web://example.com/2.md", "a2"))
		put(t, b, snap("web://example.com/1.md", "b1"))
		ctx := context.Background()
		if err := st.RemoveSession(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		missing(t, a, "web://example.com/1.md")
		missing(t, a, "web://example.com/2.md")
		if got := get(t, b, "web://example.com/1.md").Text; got != "b1" {
			t.Errorf("session b reads %q after removing a", got)
		}
		// A session with none, and a store that opens the file for it.
		if err := st.RemoveSession(ctx, "none"); err != nil {
			t.Errorf("removing a session without snapshots: %v", err)
		}
		st.Close()
		fresh := newStoreOn(t, bk, 0)
		if err := fresh.RemoveSession(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		missing(t, fresh.Session("b"), "web://example.com/1.md")
		if err := fresh.RemoveSession(ctx, ""); err == nil {
			t.Error("RemoveSession of an empty id: no error")
		}
	})
}

// storedBytes is all that b holds: on SQLite the database file and its
// WAL as they are on disk, on PostgreSQL every cell of the snapshots'
// table.
func storedBytes(t *testing.T, b dbtest.Backend) []byte {
	t.Helper()
	if !b.Postgres() {
		return fileBytes(t, b.Path)
	}
	rows, err := b.Raw(t).Query(`SELECT concat_ws(' ', seq, session_id, path, url, final_url, title, format, text, truncated, fetched_at, stored_at) FROM web_snapshots`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var all []byte
	for rows.Next() {
		var row string
		if err := rows.Scan(&row); err != nil {
			t.Fatal(err)
		}
		all = append(all, row...)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return all
}

// fileBytes is the database file and its WAL, as they are on disk.
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

func TestSecretsAreNotAtRest(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		st := newStoreOn(t, bk, 0)
		s := st.Session("s1")
		const canary = "Moteur-canary-7d1e9b2c"
		pem := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASD\n-----END PRIVATE KEY-----"
		text := "intro " + canary + "\naws " + redacttest.AWS + " here\n" + pem + "\nafter the key"
		sn := snap("web://example.com/secret.md", text)
		sn.Title = "keys " + redacttest.AWS
		sn.URL = "https://alice:s3cr3t-pw@example.com/x"
		put(t, s, sn)

		got := get(t, s, sn.Path)
		// The Put happened, masked, lines kept.
		if want := "intro " + canary + "\naws [REDACTED:aws_access_key] here\n[REDACTED:private_key]\n[REDACTED:private_key]\n[REDACTED:private_key]\n[REDACTED:private_key]\nafter the key"; got.Text != want {
			t.Errorf("stored text\n got %q\nwant %q", got.Text, want)
		}
		if strings.Contains(got.Title, redacttest.AWS) || strings.Contains(got.URL, "s3cr3t-pw") {
			t.Errorf("title %q, URL %q hold secrets", got.Title, got.URL)
		}
		raw := storedBytes(t, bk)
		// The canary proves these are the bytes the text went to.
		if !bytes.Contains(raw, []byte(canary)) {
			t.Fatal("the canary is in neither the database file nor its WAL: the bytes read are not the text's")
		}
		for _, secret := range []string{redacttest.AWS, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "BEGIN PRIVATE KEY", "s3cr3t-pw"} {
			if bytes.Contains(raw, []byte(secret)) {
				t.Errorf("%q is at rest in the database file or its WAL", secret)
			}
		}
	})
}

func TestNothingOpenedUntilUsed(t *testing.T) {
	path := dbPath(t)
	st := newStore(t, path, 0)
	s := st.Session("s1")
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("New and Session touched the file: %v", err)
	}
	put(t, s, snap("web://example.com/1.md", "x"))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the first Put did not create the file: %v", err)
	}
	// Closing a store never used is fine too.
	if err := websnap.New(websnap.Config{Path: dbPath(t)}).Close(); err != nil {
		t.Errorf("closing an unused store: %v", err)
	}
}

func TestUnopenablePathIsAClearError(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, path := range []string{filepath.Join(notDir, "moteur.db"), ""} {
		st := newStore(t, path, 0)
		sn := snap("web://example.com/1.md", "x")
		err := st.Session("s1").Put(ctx, sn)
		if err == nil {
			t.Fatalf("Put with the database at %q: no error", path)
		}
		if !strings.Contains(err.Error(), "web snapshots") || (path != "" && !strings.Contains(err.Error(), path)) {
			t.Errorf("Put with the database at %q: %v; want it to name the snapshots and the file", path, err)
		}
		if _, err := st.Session("s1").Get(ctx, sn.Path); err == nil || errors.Is(err, web.ErrNoSnapshot) {
			t.Errorf("Get with the database at %q: %v, want an open error, not a missing snapshot", path, err)
		}
		if err := st.RemoveSession(ctx, "s1"); err == nil {
			t.Errorf("RemoveSession with the database at %q: no error", path)
		}
	}
}

func TestBadArguments(t *testing.T) {
	path := dbPath(t)
	st := newStore(t, path, 0)
	ctx := context.Background()
	for _, c := range []struct {
		session, path string
	}{{"", "web://example.com/1.md"}, {"s1", ""}, {"s1", "web://"}, {"s1", "/etc/passwd"}} {
		if err := st.Session(c.session).Put(ctx, snap(c.path, "x")); err == nil {
			t.Errorf("Put(session %q, path %q): no error", c.session, c.path)
		}
		if _, err := st.Session(c.session).Get(ctx, c.path); err == nil || errors.Is(err, web.ErrNoSnapshot) {
			t.Errorf("Get(session %q, path %q) = %v, want an argument error", c.session, c.path, err)
		}
	}
	// Refused before the file was needed.
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bad arguments opened the file: %v", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	dbtest.Run(t, func(t *testing.T, bk dbtest.Backend) {
		st := newStoreOn(t, bk, 0)
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for g := range 8 {
			wg.Go(func() {
				s := st.Session(fmt.Sprint("s", g%2))
				for i := range 4 {
					sn := snap(fmt.Sprintf("web://example.com/%d-%d.md", g, i), fmt.Sprint("text ", g, i))
					if err := s.Put(context.Background(), sn); err != nil {
						errs <- err
						return
					}
					got, err := s.Get(context.Background(), sn.Path)
					if err != nil || got.Text != sn.Text {
						errs <- fmt.Errorf("get %s: %q, %v", sn.Path, got.Text, err)
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}
