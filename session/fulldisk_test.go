package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/internal/testenv"
)

// The state these tests are about: in WAL mode the main file is brought up
// to date only by checkpoints, and a checkpoint writes page 1 (which holds
// the new page count) before the pages that grow the file. One that meets a
// full disk leaves the main file shorter than its header counts while the
// WAL still holds every page: the database is whole and must open.

// bigNote is an event of about size bytes whose content names it, so that a
// page that came back wrong shows.
func bigNote(id string, seq uint64, size int) event.Event {
	e := note(id, seq)
	p := e.Payload.(event.ToolResultPayload)
	p.Content = fmt.Sprintf("%s #%d ", id, seq) + strings.Repeat(fmt.Sprintf("%s.%d;", id, seq), size/8)
	e.Payload = p
	return e
}

// mainFile describes the main file against its header: its size and what
// its header counts (0 when the header does not say).
func mainFile(t *testing.T, path string) (size, counted int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 100 {
		return int64(len(data)), 0
	}
	be32 := func(i int) int64 {
		return int64(data[i])<<24 | int64(data[i+1])<<16 | int64(data[i+2])<<8 | int64(data[i+3])
	}
	pageSize := be32(16) >> 16
	if pageSize == 1 {
		pageSize = 65536
	}
	if be32(24) != be32(92) {
		return int64(len(data)), 0
	}
	return int64(len(data)), be32(28) * pageSize
}

// wantShortWithWAL fails unless path is in the state of the finding: a main
// file shorter than its header counts, and a WAL beside it.
func wantShortWithWAL(t *testing.T, path string) {
	t.Helper()
	size, counted := mainFile(t, path)
	wal, err := os.Stat(path + "-wal")
	if err != nil || wal.Size() == 0 {
		t.Fatalf("no WAL beside %s (%v): the test does not make the state it means to", path, err)
	}
	if size >= counted {
		t.Fatalf("main file of %d bytes, its header counts %d: not short, the test does not make the state it means to", size, counted)
	}
	t.Logf("main file %d bytes, its header counts %d; WAL %d bytes", size, counted, wal.Size())
}

// isFull reports whether err is SQLite's "database or disk is full".
func isFull(err error) bool {
	se := (*sqlite.Error)(nil)
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL
}

// wantLoads fails unless every session of want loads exactly as appended.
func wantLoads(t *testing.T, s *SQLite, want map[string][]event.Event) {
	t.Helper()
	for id, evs := range want {
		got, err := s.Load(context.Background(), id)
		if err != nil {
			t.Fatalf("session %s: %v", id, err)
		}
		if len(got) != len(evs) {
			t.Fatalf("session %s: %d events loaded, %d appended", id, len(got), len(evs))
		}
		for i := range evs {
			if !reflect.DeepEqual(got[i], evs[i]) {
				t.Fatalf("session %s: event %d loaded as\n%+v\nappended as\n%+v", id, i, got[i], evs[i])
			}
		}
	}
}

// mountTmpfs mounts a tmpfs of size bytes on a new directory, unmounted
// when the test ends. It needs root (and mount(8)): without, the test is
// skipped, except under CI=true, where a skip would hide that it never ran.
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	cannot := func(why string) {
		t.Helper()
		testenv.Missing(t, "the full-disk test cannot run: "+why)
	}
	if os.Geteuid() != 0 {
		cannot(fmt.Sprintf("mounting a small tmpfs to fill needs root, and this runs as uid %d", os.Geteuid()))
	}
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0700,nosuid,nodev", size),
		"tmpfs", dir).CombinedOutput()
	if err != nil {
		cannot(fmt.Sprintf("mount a tmpfs on %s: %v: %s", dir, err, bytes.TrimSpace(out)))
	}
	// Registered after t.TempDir, so it runs before the directory is
	// removed, and after the stores opened later are closed.
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("unmount the tmpfs on %s: %v: %s; detaching it", dir, err, bytes.TrimSpace(out))
			_ = exec.Command("umount", "-l", dir).Run()
		}
	})
	return dir
}

// TestOpenAfterFullDisk fills a small tmpfs until an append fails with
// SQLITE_FULL, then reopens the database, still full and after space is
// freed: it opens, every acknowledged event loads intact, and once there is
// room again appends work and a checkpoint makes the main file whole.
func TestOpenAfterFullDisk(t *testing.T) {
	dir := mountTmpfs(t, 2<<20)
	ctx := context.Background()
	// Room to give back once the disk is full: enough for a checkpoint to
	// copy the whole database into the main file.
	ballast := filepath.Join(dir, "ballast")
	if err := os.WriteFile(ballast, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "moteur.db")
	want := map[string][]event.Event{}
	ids := []string{"alpha", "beta", "gamma"}
	// appendOne appends the next event of a session and keeps it if the
	// store acknowledged it; it returns the store's error.
	appendOne := func(s *SQLite, i int) error {
		id := ids[i%len(ids)]
		e := bigNote(id, uint64(len(want[id])+1), 1000+i%7*300)
		err := s.Append(ctx, e)
		if err == nil {
			want[id] = append(want[id], e)
		}
		return err
	}

	s, err := OpenSQLite(ctx, SQLiteConfig{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() }) // before the unmount, if the test fails early
	var full error
	appended := 0
	for i := 0; full == nil; i++ {
		if i == 10000 {
			t.Fatalf("%d appends on a tmpfs of 2 MiB and none failed", i)
		}
		if err := appendOne(s, i); err != nil {
			full = err
		} else {
			appended++
		}
	}
	if !isFull(full) {
		t.Fatalf("after %d appends: %v, want SQLITE_FULL", appended, full)
	}
	t.Logf("after %d appends: %v", appended, full)
	// The checkpoint of the last connection to close meets the full disk
	// too; the data stays in the WAL.
	if err := s.Close(); err != nil {
		t.Logf("close on a full disk: %v", err)
	}
	wantShortWithWAL(t, path)

	t.Run("still full", func(t *testing.T) {
		s, err := OpenSQLite(ctx, SQLiteConfig{Path: path})
		if err != nil {
			t.Fatalf("a database whose WAL holds its pages, on a full disk: %v", err)
		}
		defer s.Close()
		wantLoads(t, s, want)
		// The disk is still full: an append may fail, but never
		// half-succeed; what it acknowledges must load.
		err = appendOne(s, appended)
		if err != nil && !isFull(err) {
			t.Fatalf("append on a full disk: %v, want SQLITE_FULL", err)
		}
		t.Logf("append on the still full disk: %v", err)
		wantLoads(t, s, want)
	})

	t.Run("space freed", func(t *testing.T) {
		if err := os.Remove(ballast); err != nil {
			t.Fatal(err)
		}
		s, err := OpenSQLite(ctx, SQLiteConfig{Path: path})
		if err != nil {
			t.Fatalf("after freeing space: %v", err)
		}
		defer s.Close()
		wantLoads(t, s, want)
		for i := range 6 {
			if err := appendOne(s, appended+1+i); err != nil {
				t.Fatalf("append after freeing space: %v", err)
			}
		}
		wantLoads(t, s, want)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		// With room, the checkpoint at close made the main file whole.
		if size, counted := mainFile(t, path); size < counted {
			t.Errorf("after a close with room: main file %d bytes, its header counts %d", size, counted)
		}
		wantLoads(t, openTest(t, path), want)
	})
}

// crashCopy copies a live database's main file and WAL, as a process killed
// now would leave them (every commit is in the WAL, fsynced), without the
// -shm file, as after a reboot: SQLite rebuilds it from the WAL.
func crashCopy(t *testing.T, from, to string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(from + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to+suffix, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// shortWithWAL makes, without a full disk, the state a checkpoint that ran
// out of room leaves, and returns the appended events: a crash copy of a
// live database whose main file is then replaced by the first pages of the
// same database fully checkpointed. A checkpoint writes pages in ascending
// order, so the first of them are exactly what it had written when the
// next write failed; the WAL is left as it was. cut says where the main
// file ends, given its page size and the checkpointed page count.
func shortWithWAL(t *testing.T, path string, cut func(pageSize, pages int64) int64) map[string][]event.Event {
	t.Helper()
	ctx := context.Background()
	live := filepath.Join(t.TempDir(), "live.db")
	s := openTest(t, live)
	want := map[string][]event.Event{}
	for i := range 8 {
		id := fmt.Sprintf("s%d", i)
		var evs []event.Event
		for seq := uint64(1); seq <= 12; seq++ {
			evs = append(evs, bigNote(id, seq, 700))
		}
		if err := s.Append(ctx, evs...); err != nil {
			t.Fatal(err)
		}
		want[id] = evs
	}
	crashCopy(t, live, path)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// What a checkpoint of the crash copy writes, made by one with room.
	whole := filepath.Join(t.TempDir(), "whole.db")
	crashCopy(t, path, whole)
	db := rawDB(t, whole)
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	var pageSize, pages int64
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	db.Close()
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != pages*pageSize {
		t.Fatalf("checkpointed file of %d bytes, %d pages of %d", len(data), pages, pageSize)
	}
	// A checkpoint only adds to the main file: it never cuts it below
	// what it was.
	if before, _ := mainFile(t, path); before > cut(pageSize, pages) {
		t.Fatalf("the crash copy's main file has %d bytes, more than the %d of the cut", before, cut(pageSize, pages))
	}
	if err := os.WriteFile(path, data[:cut(pageSize, pages)], 0o600); err != nil {
		t.Fatal(err)
	}
	wantShortWithWAL(t, path)
	return want
}

// TestOpenShortMainFileWithWAL is the full disk without a tmpfs: the main
// file is cut where a checkpoint stopped, its WAL holds the rest, and the
// database opens, loads every event, takes new ones and, closed, is whole.
func TestOpenShortMainFileWithWAL(t *testing.T) {
	cases := map[string]func(pageSize, pages int64) int64{
		// No room to grow the file: page 1, rewritten in place, is all
		// the checkpoint wrote (the finding: 4096 bytes).
		"page 1 only": func(ps, _ int64) int64 { return ps },
		"all but one": func(ps, n int64) int64 { return (n - 1) * ps },
		// A write cut in the middle of a page.
		"torn page": func(ps, n int64) int64 { return n/2*ps + ps/3 },
	}
	for name, cut := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "moteur.db")
			want := shortWithWAL(t, path, cut)
			s, err := OpenSQLite(context.Background(), SQLiteConfig{Path: path})
			if err != nil {
				t.Fatalf("a database whose WAL holds its pages: %v", err)
			}
			wantLoads(t, s, want)
			e := bigNote("s0", uint64(len(want["s0"])+1), 700)
			if err := s.Append(context.Background(), e); err != nil {
				t.Fatal(err)
			}
			want["s0"] = append(want["s0"], e)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if size, counted := mainFile(t, path); size < counted {
				t.Errorf("after close: main file %d bytes, its header counts %d", size, counted)
			}
			s = openTest(t, path)
			wantLoads(t, s, want)
		})
	}
}

// unchanged fails if opening modified the database or its WAL.
func unchanged(t *testing.T, path string) func() {
	t.Helper()
	read := func(p string) []byte {
		data, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		return data
	}
	main, wal := read(path), read(path+"-wal")
	return func() {
		t.Helper()
		if !bytes.Equal(read(path), main) {
			t.Error("opening a refused database modified it")
		}
		if !bytes.Equal(read(path+"-wal"), wal) {
			t.Error("opening a refused database modified its WAL")
		}
	}
}

// TestShortAndCorruptRefused: taking the WAL into account does not let a
// really damaged file through; each is refused with the clear error, and
// left as it was.
func TestShortAndCorruptRefused(t *testing.T) {
	refused := func(t *testing.T, path string, says ...string) {
		t.Helper()
		check := unchanged(t, path)
		s, err := OpenSQLite(context.Background(), SQLiteConfig{Path: path})
		if err == nil {
			s.Close()
		}
		wantCorrupt(t, err, path)
		for _, w := range says {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q should say %q", err, w)
			}
		}
		check()
	}

	t.Run("truncated, no WAL", func(t *testing.T) {
		path := bigDatabase(t)
		st, _ := os.Stat(path)
		if err := os.Truncate(path, st.Size()/2); err != nil {
			t.Fatal(err)
		}
		refused(t, path, "truncated", "and it has no WAL")
	})

	// liveCopy is a crash copy of a database of a few hundred pages, all in
	// its main file but for the few of one more append, in its WAL.
	liveCopy := func(t *testing.T) string {
		big := bigDatabase(t)
		path := filepath.Join(t.TempDir(), "moteur.db")
		s := openTest(t, big)
		if err := s.Append(context.Background(), note("s00", 101)); err != nil {
			t.Fatal(err)
		}
		crashCopy(t, big, path)
		s.Close()
		return path
	}

	t.Run("truncated, the WAL holds other pages", func(t *testing.T) {
		path := liveCopy(t)
		st, _ := os.Stat(path)
		if err := os.Truncate(path, st.Size()/2); err != nil {
			t.Fatal(err)
		}
		wantShortWithWAL(t, path)
		refused(t, path, "truncated", "its WAL does not make up for")
	})

	t.Run("garbage pages, short, with a WAL", func(t *testing.T) {
		path := liveCopy(t)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Garbage over pages 3… of the first half, which one append
		// does not rewrite, and the last page cut off.
		for i := 2 * 4096; i < len(data)/2; i++ {
			data[i] = byte(i*7 + 3)
		}
		if err := os.WriteFile(path, data[:len(data)-4096], 0o600); err != nil {
			t.Fatal(err)
		}
		wantShortWithWAL(t, path)
		refused(t, path, "truncated", "its WAL does not make up for", "quick_check")
	})

	t.Run("truncated, garbage WAL", func(t *testing.T) {
		path := bigDatabase(t)
		st, _ := os.Stat(path)
		if err := os.Truncate(path, st.Size()/2); err != nil {
			t.Fatal(err)
		}
		wal := bytes.Repeat([]byte("not a WAL \x00\xff"), 5000)
		if err := os.WriteFile(path+"-wal", wal, 0o600); err != nil {
			t.Fatal(err)
		}
		refused(t, path, "truncated", "its WAL does not make up for")
	})

	t.Run("short, garbage in its WAL", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "moteur.db")
		shortWithWAL(t, path, func(ps, n int64) int64 { return (n - 1) * ps })
		// Damage the WAL's frames past its header: its pages no longer
		// pass their checksums, so they make up for nothing.
		data, err := os.ReadFile(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		for i := 32 + 24; i < len(data); i++ {
			data[i] = byte(i*7 + 3)
		}
		if err := os.WriteFile(path+"-wal", data, 0o600); err != nil {
			t.Fatal(err)
		}
		refused(t, path, "truncated", "its WAL does not make up for")
	})

	t.Run("not SQLite, with a WAL", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "moteur.db")
		if err := os.WriteFile(path, bytes.Repeat([]byte("plain text\n"), 1000), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+"-wal", make([]byte, 4096), 0o600); err != nil {
			t.Fatal(err)
		}
		refused(t, path, "not an SQLite file")
	})
}
