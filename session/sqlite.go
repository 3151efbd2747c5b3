package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// SQLiteConfig configures the SQLite back end.
type SQLiteConfig struct {
	// Path is the database file; it is created (0600), with its directory
	// (0700), if missing.
	Path string
	// LeaseTTL is how long a lease lives without a heartbeat; 0 means 30s.
	LeaseTTL time.Duration
	// Now tells the time of leases, snapshots and permission requests;
	// nil means time.Now (a seam for tests).
	Now func() time.Time
	// Host and PID identify this process in leases; "" and 0 mean
	// os.Hostname() and os.Getpid() (seams for tests).
	Host string
	PID  int

	// synchronous is the SQLite synchronous pragma; "" means FULL. Only
	// the benchmarks change it, to measure what durability costs.
	synchronous string
}

// DefaultLeaseTTL is the lease TTL when SQLiteConfig.LeaseTTL is 0.
const DefaultLeaseTTL = 30 * time.Second

// DefaultPath is where the SQLite database lives under $MOTEUR_HOME.
func DefaultPath(moteurHome string) string { return filepath.Join(moteurHome, "moteur.db") }

// SQLite is the embedded back end: one SQLite file (modernc.org/sqlite,
// no cgo).
//
// Durability: the file is in WAL mode with synchronous=FULL, so every commit
// fsyncs the WAL before Append returns; an appended event survives SIGKILL
// and, as far as the disk honours fsync, a power loss. (synchronous=NORMAL
// would be about three times faster and lose the last commits on power
// loss: see BenchmarkAppend.) The file must be on a local file system: WAL
// needs shared memory between the processes that open it.
//
// Concurrency: within a process every write goes through one connection,
// so writers queue in Go instead of polling SQLite's lock (measured: as fast
// as four connections, the fsync being the bound). Between processes every
// write transaction is BEGIN IMMEDIATE, which takes the write lock before
// reading what it checks (last_seq, the lease), and waits up to busyTimeout
// for it. Reads use a pool of read-only connections and, thanks to WAL,
// never wait for writers.
type SQLite struct {
	path string
	w    *sql.DB // one connection: every write of this process
	// stmts are the writer's prepared statements, by query.
	stmts map[string]*sql.Stmt
	r     *sql.DB // read-only connections
	ttl   time.Duration
	now   func() time.Time
	host  string
	pid   int

	mu     sync.Mutex
	leases map[*sqliteLease]struct{} // held by this Store, released by Close
	closed bool
}

var _ Store = (*SQLite)(nil)

// busyTimeout is how long a write waits for another process's transaction.
const busyTimeout = 10 * time.Second

// OpenSQLite opens (or creates) the database at cfg.Path and brings its
// schema up to date. A file that is not a Moteur database, a corrupt or
// truncated one, or one written by a newer Moteur is refused with an error
// naming it; such a file is never modified. A main file shorter than its
// header is not truncated if its WAL holds the rest, as after a checkpoint
// that met a full disk: it opens once SQLite has checked it (checkShort).
func OpenSQLite(ctx context.Context, cfg SQLiteConfig) (*SQLite, error) {
	if cfg.Path == "" {
		return nil, errors.New("open session database: no path")
	}
	path, err := filepath.Abs(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("open session database %s: %w", cfg.Path, err)
	}
	s := &SQLite{path: path, ttl: cfg.LeaseTTL, now: cfg.Now, host: cfg.Host, pid: cfg.PID,
		leases: map[*sqliteLease]struct{}{}}
	if s.ttl <= 0 {
		s.ttl = DefaultLeaseTTL
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.host == "" {
		if s.host, err = os.Hostname(); err != nil {
			return nil, fmt.Errorf("open session database %s: host name: %w", path, err)
		}
	}
	if s.pid == 0 {
		s.pid = os.Getpid()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open session database %s: %w", path, err)
	}
	// Create the file ourselves so that it is private: SQLite would use
	// 0644, and gives its -wal and -shm files the mode of the database.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("open session database %s: %w", path, err)
	}
	short, err := checkHeader(path)
	if err != nil {
		return nil, err
	}

	syncMode := cfg.synchronous
	if syncMode == "" {
		syncMode = "FULL"
	}
	base := "file:" + (&url.URL{Path: path}).EscapedPath() +
		fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(%s)", busyTimeout.Milliseconds(), syncMode)
	if short != nil {
		if err := s.checkShort(ctx, base, short); err != nil {
			return nil, err
		}
	}
	if s.w, err = sql.Open("sqlite", base+"&_pragma=journal_mode(WAL)&_txlock=immediate"); err != nil {
		return nil, s.dbErr("open session database "+path, err)
	}
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxIdleTime(0)
	s.w.SetConnMaxLifetime(0)
	if err := connectWriter(ctx, s.w); err != nil {
		s.w.Close()
		return nil, s.dbErr("open session database "+path, err)
	}
	if err := s.migrate(ctx); err != nil {
		s.w.Close()
		return nil, err
	}
	if err := s.prepareStatements(ctx); err != nil {
		s.closeStmts()
		s.w.Close()
		return nil, s.dbErr("open session database "+path, err)
	}
	if s.r, err = sql.Open("sqlite", base+"&_pragma=query_only(1)"); err != nil {
		s.closeStmts()
		s.w.Close()
		return nil, s.dbErr("open session database "+path, err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	s.r.SetMaxOpenConns(n)
	s.r.SetMaxIdleConns(n)
	return s, nil
}

// Close releases the leases this Store holds and closes the database.
func (s *SQLite) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	held := make([]*sqliteLease, 0, len(s.leases))
	for l := range s.leases {
		held = append(held, l)
	}
	s.mu.Unlock()
	var errs []error
	for _, l := range held {
		errs = append(errs, l.Release())
	}
	errs = append(errs, s.r.Close(), s.closeStmts(), s.w.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close session database %s: %w", s.path, err)
	}
	return nil
}

// dbErr wraps an error of the database, naming the file, and says so
// plainly when SQLite found the file corrupt.
func (s *SQLite) dbErr(what string, err error) error {
	if isCorrupt(err) {
		return corrupt(s.path, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// connectWriter opens the writing connection, waiting out SQLITE_BUSY.
// Its PRAGMA journal_mode=WAL needs the file to itself for an instant, and
// SQLite answers busy at once, without its busy handler, while another
// process is opening the same new file: so several processes that open a
// new database together retry here, up to busyTimeout, instead of failing.
func connectWriter(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(busyTimeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		err := db.PingContext(ctx)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// isBusy reports whether SQLite answered that another connection holds
// the lock it needs.
func isBusy(err error) bool {
	se := (*sqlite.Error)(nil)
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// isCorrupt reports whether SQLite found the file corrupt or not a database.
func isCorrupt(err error) bool {
	if se := (*sqlite.Error)(nil); errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return true
		}
	}
	return false
}

func corrupt(path string, err error) error {
	return fmt.Errorf("database %s is corrupt or not a Moteur database: %w", path, err)
}

// sqliteMagic opens every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// applicationID marks a Moteur database ("MOTR") in its header.
const applicationID = 0x4d4f5452

// checkHeader refuses, cheaply and before SQLite opens it, a file that is
// not an SQLite database or one of another application (which migrate,
// finding no tables in it, would write into), with an error that says
// which. Corruption inside the file is reported by the query that meets it.
//
// It returns a non-nil shortFile when the main file holds fewer pages than
// its header counts. That alone does not make the file corrupt: in WAL mode
// the main file is brought up to date only by checkpoints, and a checkpoint
// writes page 1, which holds the new page count, before the pages that grow
// the file; one that fails there (the disk is full, the process dies)
// leaves the main file short while the WAL still holds every page, and the
// database is whole. Only SQLite, reading the WAL, can tell that from a
// file cut short: OpenSQLite asks it (checkShort).
func checkHeader(path string) (*shortFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open session database %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open session database %s: %w", path, err)
	}
	if st.Size() == 0 {
		return nil, nil // new, or never checkpointed: all in the WAL
	}
	var h [100]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return nil, corrupt(path, fmt.Errorf("file header: only %d bytes", st.Size()))
	}
	if string(h[:16]) != sqliteMagic {
		return nil, corrupt(path, errors.New("file header: not an SQLite file"))
	}
	be32 := func(i int) uint32 {
		return uint32(h[i])<<24 | uint32(h[i+1])<<16 | uint32(h[i+2])<<8 | uint32(h[i+3])
	}
	pageSize := int64(h[16])<<8 | int64(h[17])
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return nil, corrupt(path, fmt.Errorf("file header: page size %d", pageSize))
	}
	if id := be32(68); id != 0 && id != applicationID {
		return nil, corrupt(path, fmt.Errorf("file header: application id %#x is not Moteur's", id))
	}
	// The page count is valid when the change counter matches the
	// "version-valid-for" number (SQLite 3.7.0 and later).
	if pages := int64(be32(28)); be32(24) == be32(92) && pages*pageSize > st.Size() {
		return &shortFile{size: st.Size(), pages: pages, pageSize: pageSize}, nil
	}
	return nil, nil
}

// shortFile is a main file that holds fewer pages than its header counts.
type shortFile struct{ size, pages, pageSize int64 }

func (f *shortFile) String() string {
	return fmt.Sprintf("truncated: %d bytes, the header counts %d pages of %d", f.size, f.pages, f.pageSize)
}

// checkShort lets SQLite decide whether a short main file is whole with its
// WAL: opening it replays the WAL, and SQLite itself refuses a database whose
// header counts more pages than the file and the WAL hold together; a quick
// check then walks every b-tree and the freelist, which finds a page that
// neither holds. Its cost, a read of the whole database, is paid only on
// this rare path, until a checkpoint makes the main file whole.
//
// The check runs on a read-only connection so that a file it refuses is
// left as it was: the last read-write connection to close checkpoints, which
// would copy the WAL into the main file and delete it.
func (s *SQLite) checkShort(ctx context.Context, base string, short *shortFile) error {
	// Said before SQLite opens the file, which creates an empty WAL.
	why := "which its WAL does not make up for"
	if st, err := os.Stat(s.path + "-wal"); err != nil || st.Size() == 0 {
		why = "and it has no WAL"
	}
	db, err := sql.Open("sqlite", base+"&mode=ro")
	if err != nil {
		return fmt.Errorf("open session database %s: %s: check with its WAL: %w", s.path, short, err)
	}
	defer db.Close()
	var problems []string
	err = func() error {
		// At most a few problems: the first ones say why.
		rows, err := db.QueryContext(ctx, "PRAGMA quick_check(5)")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				return err
			}
			if line != "ok" {
				problems = append(problems, line)
			}
		}
		return rows.Err()
	}()
	if err == nil {
		err = db.Close()
	}
	switch {
	case isCorrupt(err):
		return corrupt(s.path, fmt.Errorf("%s, %s: %w", short, why, err))
	case err != nil:
		return fmt.Errorf("open session database %s: %s: check with its WAL: %w", s.path, short, err)
	case len(problems) > 0:
		// One line: quick_check starts its report with a line of its own.
		report := strings.ReplaceAll(strings.Join(problems, "\n"), "\n", "; ")
		return corrupt(s.path, fmt.Errorf("%s, %s: quick_check: %s", short, why, report))
	}
	return nil
}

// nanos stores a time; the zero time is 0 and times outside what int64
// nanoseconds hold are clamped.
func nanos(t time.Time) int64 {
	switch {
	case t.IsZero():
		return 0
	case t.Before(minTime):
		return minTime.UnixNano()
	case t.After(maxTime):
		return maxTime.UnixNano()
	}
	return t.UnixNano()
}

var (
	minTime = time.Unix(0, -1<<63+1).UTC()
	maxTime = time.Unix(0, 1<<63-1).UTC()
)

// fromNanos reads back what nanos stored, in UTC.
func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
