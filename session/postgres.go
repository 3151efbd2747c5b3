package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PostgresConfig configures the PostgreSQL back end. Its zero values are
// the defaults, but for URL.
type PostgresConfig struct {
	// URL is the database's connection string
	// (postgres://user:password@host:port/database?sslmode=…, or the
	// key=value form); pgxpool's pool_* parameters are honoured.
	URL string
	// Schema holds Moteur's tables, so that they live beside those of
	// other services in one database; it is created if missing. "" means
	// "moteur".
	Schema string
	// MaxConns caps the connection pool; 0 leaves pgxpool's default (the
	// URL's pool_max_conns, else the greater of 4 and the number of CPUs).
	MaxConns int32
	// LeaseTTL is how long a lease lives without a heartbeat; 0 means
	// DefaultLeaseTTL.
	LeaseTTL time.Duration
	// Now tells the time of leases, snapshots and permission requests;
	// nil means the database server's clock, which every replica shares,
	// so that leases need no synchronised clocks (a seam for tests).
	Now func() time.Time
	// Host and PID identify this process in leases; "" and 0 mean
	// os.Hostname() and os.Getpid() (seams for tests).
	Host string
	PID  int
}

// DefaultSchema is the schema of Moteur's tables when PostgresConfig.Schema
// is "".
const DefaultSchema = "moteur"

// Postgres is the back end for several processes on several hosts (the
// replicas of a server) sharing one PostgreSQL database (pgx, pgxpool).
//
// Durability: Append returns once PostgreSQL committed, which with the
// server's default synchronous_commit=on means flushed to its WAL.
//
// Concurrency: nothing is locked in this process's memory; every guarantee
// of Store comes from a transaction and a row lock or a unique key in the
// database, so it holds across processes and hosts. Appends to one session
// queue on its row (SELECT … FOR NO KEY UPDATE) and the primary key
// (session_id, seq) refuses a duplicate seq whatever happens; two appends
// that create a session race on its primary key, and the loser retries and
// meets a sequence conflict.
//
// Leases differ from SQLite's in two ways, because their holders may run on
// other hosts. A holder is live until its lease expires (heartbeat + the
// holder's TTL, by the database's clock): no pid is ever checked, so a
// holder that died keeps its sessions until then. And each Acquire draws a
// fencing token from a sequence: a Store that holds a lease appends,
// deletes or forks into that session only while the lease row still has
// its token, checked in the same transaction as the write, with the row
// locked against a takeover until it commits; a Store whose lease expired
// and was taken over (or released by its new holder) never writes to that
// session again through that lease (ErrInUse), even when the new holder is
// its own process. A Store that holds no lease of a session writes as with
// SQLite: unless another live process holds it.
type Postgres struct {
	pool   *pgxpool.Pool
	name   string // the database, for errors: URL without password
	schema string
	ttl    time.Duration
	// now is the clock of the Now seam; nil: the server's (nowArg).
	now  func() time.Time
	host string
	pid  int

	mu     sync.Mutex
	leases map[string]*pgLease // by session: held by this Store, released by Close
	closed bool

	ends approvalEnds // the waiters of ApprovalEnded (postgres_wake.go)
}

var _ Store = (*Postgres)(nil)

// OpenPostgres connects to the database at cfg.URL and brings the schema
// up to date (see migratePostgres). A wrong password, an unreachable server
// or a schema written by a newer Moteur is refused with an error that says
// so; the schema is then left as it was.
func OpenPostgres(ctx context.Context, cfg PostgresConfig) (*Postgres, error) {
	if cfg.URL == "" {
		return nil, errors.New("open session database: no PostgreSQL URL")
	}
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		// pgconn's parse errors already hide the password.
		return nil, fmt.Errorf("open session database: invalid PostgreSQL URL: %w", err)
	}
	s := &Postgres{schema: cfg.Schema, ttl: cfg.LeaseTTL, now: cfg.Now, host: cfg.Host, pid: cfg.PID,
		leases: map[string]*pgLease{}}
	s.name = fmt.Sprintf("postgres://%s@%s:%d/%s", pc.ConnConfig.User, pc.ConnConfig.Host, pc.ConnConfig.Port, pc.ConnConfig.Database)
	if s.schema == "" {
		s.schema = DefaultSchema
	}
	if s.ttl <= 0 {
		s.ttl = DefaultLeaseTTL
	}
	if s.host == "" {
		if s.host, err = os.Hostname(); err != nil {
			return nil, fmt.Errorf("open session database %s: host name: %w", s.name, err)
		}
	}
	if s.pid == 0 {
		s.pid = os.Getpid()
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	if pc.ConnConfig.RuntimeParams == nil {
		pc.ConnConfig.RuntimeParams = map[string]string{}
	}
	// Every statement names its tables unqualified: the schema is the
	// connection's search_path (pg_catalog is always searched first).
	pc.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{s.schema}.Sanitize()
	if pc.ConnConfig.RuntimeParams["application_name"] == "" {
		pc.ConnConfig.RuntimeParams["application_name"] = "moteur"
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, pc); err != nil {
		return nil, s.dbErr("open session database "+s.name, err)
	}
	if err := s.migrate(ctx); err != nil {
		s.pool.Close()
		return nil, err
	}
	return s, nil
}

// Name is the database, for messages: its URL without the password.
func (s *Postgres) Name() string { return s.name }

// Close releases the leases this Store holds and closes its connections.
func (s *Postgres) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	held := make([]*pgLease, 0, len(s.leases))
	for _, l := range s.leases {
		held = append(held, l)
	}
	s.mu.Unlock()
	var errs []error
	for _, l := range held {
		errs = append(errs, l.Release())
	}
	s.ends.stop()
	s.pool.Close()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close session database %s: %w", s.name, err)
	}
	return nil
}

// serverNanos is the database server's clock, in Unix nanoseconds.
const serverNanos = `(extract(epoch from clock_timestamp()) * 1000000000)::bigint`

// nowSQL is the SQL of "now" for the parameter $n that nowArg fills.
func nowSQL(n int) string { return fmt.Sprintf("coalesce($%d::bigint, %s)", n, serverNanos) }

// nowArg is the parameter of nowSQL: the Now seam's time, or NULL for the
// server's clock.
func (s *Postgres) nowArg() any {
	if s.now == nil {
		return nil
	}
	return nanos(s.now())
}

// self reports whether a lease holder is this process.
func (s *Postgres) self(host string, pid int) bool { return host == s.host && pid == s.pid }

// PostgreSQL error codes the back end tells apart.
const (
	pgUniqueViolation = "23505"
	pgInvalidPassword = "28P01"
	pgInvalidAuth     = "28000"
	pgUnknownDatabase = "3D000"
)

// pgCode is the SQLSTATE of a server error, "" for any other error.
func pgCode(err error) string {
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// connLost reports whether err means that the connection to the server is
// gone (the server shut down or ended the backend, the network failed),
// rather than that the server refused a statement.
func connLost(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false // the caller gave up: the server may be fine
	}
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) {
		// Class 08 (connection exception) and 57P01…57P03 (the server
		// shuts down, ended this backend or cannot take connections).
		return pe.Code[:2] == "08" || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, pgconn.ErrConnClosed) || pgconn.SafeToRetry(err)
}

// dbErr wraps an error of the database with what was being done (see
// PostgresErr).
func (s *Postgres) dbErr(what string, err error) error { return PostgresErr(what, err) }

// PostgresErr wraps an error of a PostgreSQL database with what was being
// done, explained by ExplainPostgres.
func PostgresErr(what string, err error) error {
	return fmt.Errorf("%s: %w", what, ExplainPostgres(err))
}

// ExplainPostgres says plainly what a refused login, a missing database or
// a lost server means, in front of err; any other error is returned as it
// is. The packages that keep their tables beside the sessions explain their
// errors with it too.
func ExplainPostgres(err error) error {
	switch pgCode(err) {
	case pgInvalidPassword, pgInvalidAuth:
		return fmt.Errorf("PostgreSQL refused the login (check the user and password in the database URL): %w", err)
	case pgUnknownDatabase:
		return fmt.Errorf("the database does not exist (create it, or fix the database URL): %w", err)
	}
	if ce := (*pgconn.ConnectError)(nil); errors.As(err, &ce) {
		return fmt.Errorf("cannot connect to PostgreSQL: %w", err)
	}
	if connLost(err) {
		return fmt.Errorf("the connection to PostgreSQL was lost: %w", err)
	}
	return err
}

// commitErr wraps the error of a COMMIT: when the connection died during
// it, whether the transaction was committed is unknown, and saying
// "nothing was stored" would be a lie.
func (s *Postgres) commitErr(what string, err error) error {
	if connLost(err) {
		return fmt.Errorf("%s: the connection to PostgreSQL was lost during the commit, which may or may not have been applied: read the session again: %w", what, err)
	}
	return s.dbErr(what, err)
}

// rollback ends a transaction that was not committed; its error is of no
// use (the transaction is void either way), and it must run even when the
// caller's context is done.
func rollback(tx pgx.Tx) { _ = tx.Rollback(context.Background()) }
