// Package session owns the durable storage of sessions: each session's
// persisted events, in seq order, and the little a store must know about them
// to list and find sessions; beside them, snapshots of a session's state and
// the permission requests of running turns.
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
//   - A snapshot (SaveSnapshot) is a cache of a session's state at a seq of
//     its log, in the engine's encoding, which the store keeps byte for byte
//     and never reads: its seq is always one of the session's, the two most
//     recent are kept, and saving one is a transaction of its own that
//     takes no lease and never touches the events. Delete removes them, a
//     fork has none.
//   - A permission request (OpenApproval) waits in the store, so any
//     process may answer it. It ends exactly once: of any number of
//     concurrent answers and withdrawals, from any processes, one wins and
//     every other caller is told which (ErrNotPending, or the row as it
//     ended). It is answerable only while the process that asked is alive
//     and holds the session's lease (Approval.Live); a request whose turn
//     died stays pending until withdrawn. Delete removes them, a fork has
//     none.
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
	// Head returns the audit head stored with the event seq of a session
	// (nil when none was), without reading the others: continuing a
	// session checks its audit log against the last one. An unknown id
	// is ErrNotFound; a seq the session does not hold is an error naming
	// both.
	Head(ctx context.Context, sessionID string, seq uint64) ([]byte, error)
	// Load returns a session's events in seq order, decoded with
	// event.Decode. An unknown id is ErrNotFound. A stored event that no
	// longer decodes is an error naming the session and the seq; it is
	// never skipped.
	Load(ctx context.Context, sessionID string) ([]event.Event, error)
	// LoadFrom is Load restricted to the events with Seq > after (for
	// tailing a session). An unknown id is ErrNotFound; a known session
	// with nothing after `after` gives no events and no error.
	LoadFrom(ctx context.Context, sessionID string, after uint64) ([]event.Event, error)
	// LoadRange is LoadFrom limited to at most limit events, the first
	// ones after `after` (limit <= 0: no limit), so that a follower pages
	// through a long session without holding it all. Same errors and
	// guarantees: one read snapshot, a gap in the stored seqs is an error,
	// an event that does not decode is an error naming its seq; a known
	// session with nothing after `after` gives no events and no error.
	LoadRange(ctx context.Context, sessionID string, after uint64, limit int) ([]event.Event, error)
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
	// from then on; it has none of its snapshots nor permission requests.
	Fork(ctx context.Context, src string, atSeq uint64, newID string) (Info, error)
	// Delete removes a session and its events, snapshots and permission
	// requests. An unknown id is ErrNotFound. It is refused (ErrInUse)
	// while another live process holds the session's lease.
	Delete(ctx context.Context, sessionID string) error
	// SaveSnapshot stores snap, the engine's encoding of the session's
	// state at snap.Seq, in one transaction. snap.Seq must be 1 or more
	// and at most the session's LastSeq; otherwise the error names the
	// session and the seqs and nothing is stored. An unknown session is
	// ErrNotFound. A snapshot at a seq that has one replaces it; only the
	// 2 most recent snapshots (by seq) of a session are kept, so one older
	// than both is dropped at once. Data is kept byte for byte and never
	// interpreted; Created is set by the store. It takes no lease (any
	// process may save a snapshot: it is a cache of what the events say)
	// and never changes the session's events nor its Info.
	SaveSnapshot(ctx context.Context, sessionID string, snap Snapshot) error
	// LatestSnapshot returns the session's snapshot of the highest seq;
	// ok is false, with a nil error, when it has none. An unknown id is
	// ErrNotFound.
	LatestSnapshot(ctx context.Context, sessionID string) (snap Snapshot, ok bool, err error)
	// OpenApproval stores a pending permission request of this process's
	// turn: a.ID must be "<a.SessionID>/<a.Number>"; a.State, Answer, By
	// and Ended are ignored, and Requested, Host and PID are set by the
	// store (this process, now). a.SessionID must name a stored session
	// (ErrNotFound otherwise); an existing id is ErrExists. It takes no
	// lease, but a request is answerable only while its process holds the
	// session's lease (Approval.Live).
	OpenApproval(ctx context.Context, a Approval) error
	// AnswerApproval ends a pending request with ans, by its author (""
	// means "user"), and returns the row as stored. Of concurrent answers
	// and withdrawals of one request (any goroutines, processes or Stores
	// on the same database) exactly one ends it. An answer to a request
	// that is not pending fails with ErrNotPending ("permission request
	// <id> was already answered (allow) by user at T", "… withdrawn
	// (timeout) at T") and returns the row as it is; so does an answer to
	// a pending request whose asking process is no longer Live ("the turn
	// that asked is no longer running (pid N on host H)"), which stays
	// pending. An unknown id is ErrNotFound.
	AnswerApproval(ctx context.Context, id string, ans Answer, by string) (Approval, error)
	// WithdrawApproval ends a pending request without an answer, by being
	// why ("timeout", "cancelled", "interrupted"; "" is refused), and
	// returns the row as stored. A request that ended already is left as
	// it is and returned with a nil error: when an answer won the race,
	// the waiter honours it. It works whether or not the asking process is
	// Live: the process that continues a killed session withdraws the
	// requests left pending. An unknown id is ErrNotFound.
	WithdrawApproval(ctx context.Context, id, by string) (Approval, error)
	// Approval returns one permission request, Live computed. An unknown
	// id is ErrNotFound.
	Approval(ctx context.Context, id string) (Approval, error)
	// PendingApprovals returns the pending requests of a session ("": of
	// every session), oldest first, Live computed. An unknown session is
	// ErrNotFound.
	PendingApprovals(ctx context.Context, sessionID string) ([]Approval, error)
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
	// Agent is the first non-empty SessionStartedPayload.Agent: the
	// custom agent the session was started as ("": none). A fork keeps
	// its source's.
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
	// ErrNotPending: the permission request was answered or withdrawn
	// already, or the turn that asked is gone.
	ErrNotPending = errors.New("permission request not pending")
)

// HeadSize is the size of an audit head: an HMAC-SHA-256.
const HeadSize = 32

// List page sizes.
const (
	defaultListLimit = 50
	maxListLimit     = 1000
)
