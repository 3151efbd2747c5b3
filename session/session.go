// Package session owns the durable storage of sessions: each session's
// persisted events, in seq order, and the little a store must know about them
// to list and find sessions.
//
// A Store interprets events only as far as storage needs: the title of a
// session is taken from its first non-blocked UserMessage, its project root
// from its SessionStarted event; everything else is kept as the bytes of
// json.Marshal(event) and handed back decoded by event.Decode. Info is a pure
// function of a session's events (and, for a fork, of its parent), so it can
// always be recomputed.
//
// Guarantees every back end gives (the conformance suite in
// session/sessiontest is their contract):
//
//   - Append is one transaction: all of its events are stored or none. The
//     seqs of a session are 1, 2, 3… without gaps or duplicates; an Append
//     that does not continue exactly where the session ends stores nothing
//     and fails with ErrSeqConflict. Concurrent Appends to one session from
//     any number of goroutines or processes never interleave: exactly one of
//     those that propose a given seq wins.
//   - An event whose Append returned nil is durable: with the SQLite back end
//     it survives the process being killed (SIGKILL) and, as far as the disk
//     honours fsync, a power loss (WAL journal, synchronous=FULL).
//   - With each event Append may store the head of the session's audit
//     chain after it (AppendWithHeads: the MAC of the event's audit record,
//     which the audit log, the engine's first sink, wrote just before), in
//     the same transaction: an event is never stored without the head it
//     was given, nor a head without its event. Heads reads them back, so
//     that a log cut short, rolled back, replaced or rewritten is told from
//     the one the store followed (event.VerifyAudit). Events of earlier
//     versions have none. A fork copies its source's heads with its events.
//   - Stored events are never rewritten: only Delete removes them.
//   - A Store is safe for concurrent use by many goroutines, and several
//     processes may open the same database. Only one process at a time may
//     append to a session: Acquire takes its lease, and Append and Delete
//     refuse (ErrInUse) while another live process holds it.
package session

import (
	"context"
	"errors"
	"time"

	"github.com/moteur/moteur/event"
)

// Store is implemented by every back end; the conformance suite
// (sessiontest.Run) is its contract.
type Store interface {
	// Append stores events of ONE session, in one transaction, all or
	// nothing. The first event's Seq must be exactly LastSeq+1 of that
	// session (1 for a new session, which is created implicitly) and the
	// seqs must be consecutive; otherwise the error wraps ErrSeqConflict,
	// naming the session and the expected and proposed seqs, and nothing is
	// stored. Ephemeral events are refused. Each event is stored as the
	// bytes of json.Marshal(e). Append with no events does nothing.
	Append(ctx context.Context, events ...event.Event) error
	// AppendWithHeads is Append that also stores, with each event and in
	// the same transaction, the head of the session's audit chain after
	// it: heads[i] is the MAC of events[i]'s audit record, HeadSize bytes,
	// or nil for none. heads is nil (none at all) or has one entry per
	// event; otherwise nothing is stored.
	AppendWithHeads(ctx context.Context, events []event.Event, heads [][]byte) error
	// Heads returns the audit heads stored with a session's events, read
	// in one snapshot: heads[i] is that of seq i+1, nil where none was
	// stored (an event of an earlier version, or appended without one); a
	// fork's copied events have their source's. len(heads) is LastSeq. An
	// unknown id is ErrNotFound.
	Heads(ctx context.Context, sessionID string) ([][]byte, error)
	// Load returns a session's events in seq order, decoded with
	// event.Decode. An unknown id is ErrNotFound. A stored event that no
	// longer decodes is an error naming the session and the seq; it is
	// never skipped.
	Load(ctx context.Context, sessionID string) ([]event.Event, error)
	// LoadFrom is Load restricted to the events with Seq > after (for
	// tailing a session). An unknown id is ErrNotFound; a known session
	// with nothing after `after` gives no events and no error.
	LoadFrom(ctx context.Context, sessionID string, after uint64) ([]event.Event, error)
	// Info describes a session. An unknown id is ErrNotFound.
	Info(ctx context.Context, sessionID string) (Info, error)
	// List returns sessions, most recently updated first (ties by id,
	// descending), one page at a time.
	List(ctx context.Context, opts ListOptions) (Page, error)
	// Fork copies the events of src with Seq <= atSeq into a new session
	// newID (the events rewritten with SessionID = newID, same seqs) and
	// records ParentID = src and ForkSeq = atSeq. atSeq of 0 or beyond the
	// source's LastSeq is an error; an existing newID is ErrExists; an
	// unknown src is ErrNotFound. The fork is independent of its source
	// from then on.
	Fork(ctx context.Context, src string, atSeq uint64, newID string) (Info, error)
	// Delete removes a session and its events. An unknown id is
	// ErrNotFound. It is refused (ErrInUse) while another live process
	// holds the session's lease.
	Delete(ctx context.Context, sessionID string) error
	// Acquire takes the session's lease for this process (the session need
	// not exist yet). While another live process holds it the error wraps
	// ErrInUse and reads "session <id> is in use by another process (pid N
	// on host H since T)" ("by this process" when this process holds it
	// already, through this Store or another). A lease whose holder is dead
	// (same host, and the pid no longer exists) or whose heartbeat is older
	// than the lease TTL is taken over. The Lease refreshes its heartbeat
	// every TTL/3 until it is Released.
	Acquire(ctx context.Context, sessionID string) (Lease, error)
	// Close releases the leases this Store still holds and closes it. It
	// is idempotent.
	Close() error
}

// Lease is a session's lease held by this process.
type Lease interface {
	// Release gives the lease back. It is idempotent, and never removes a
	// lease that another process has since taken over.
	Release() error
}

// Info describes a stored session.
type Info struct {
	ID string
	// Title is the first line of the first non-blocked UserMessage,
	// trimmed, at most 80 runes ("…" marks a cut); "" until there is one.
	Title string
	// ProjectRoot is the first non-empty SessionStartedPayload.ProjectRoot.
	ProjectRoot string
	// Agent is reserved: no event names the agent yet, so it is "".
	Agent string
	// ParentID and ForkSeq are set on a fork: its source and the last seq
	// copied from it.
	ParentID string
	ForkSeq  uint64
	// Created is the time of the first event, Updated that of the last
	// appended one (event.Time).
	Created, Updated time.Time
	// Events counts the stored events; LastSeq is the seq of the last one.
	Events  int
	LastSeq uint64
}

// ListOptions selects a page of sessions.
type ListOptions struct {
	// Limit is the page size: 0 means 50; more than 1000 means 1000.
	Limit int
	// Cursor is the previous page's Next ("" for the first page).
	Cursor string
	// ProjectRoot keeps only the sessions of that project ("" keeps all).
	ProjectRoot string
}

// Page is one page of List.
type Page struct {
	Sessions []Info
	// Next is the cursor of the following page; "" on the last page.
	Next string
}

// Errors a Store returns, wrapped with the session and what went wrong; test
// them with errors.Is.
var (
	ErrNotFound    = errors.New("session not found")
	ErrSeqConflict = errors.New("sequence conflict")
	ErrInUse       = errors.New("session in use")
	ErrExists      = errors.New("session already exists")
)

// HeadSize is the size of an audit head: an HMAC-SHA-256.
const HeadSize = 32

// List page sizes.
const (
	defaultListLimit = 50
	maxListLimit     = 1000
)
