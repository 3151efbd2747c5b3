// Package sessiontest is the conformance suite of session.Store: written
// once, run against every back end (SQLite, PostgreSQL: see RunWith). A back
// end passes it or is not a Store.
//
//	func TestConformance(t *testing.T) {
//		sessiontest.Run(t, func(t *testing.T) sessiontest.Opener {
//			dir := t.TempDir() // one new database per subtest
//			return func(t *testing.T, p sessiontest.Process) session.Store {
//				s, err := session.OpenSQLite(t.Context(), session.SQLiteConfig{Path: dir + "/moteur.db",
//					Host: p.Host, PID: p.PID, Now: p.Now, LeaseTTL: p.LeaseTTL})
//				if err != nil {
//					t.Fatal(err)
//				}
//				return s
//			}
//		})
//	}
package sessiontest

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/moteur/moteur/session"
)

// Process is who opens a Store. The suite simulates several processes on one
// database by opening several Stores with different Processes: some of them
// fictitious (another host, a pid that no longer exists), so a back end
// must take Host and PID as given.
type Process struct {
	Host string
	PID  int
	// Now is the Store's clock: of leases, and of the times it sets on
	// snapshots and permission requests; nil means time.Now.
	Now func() time.Time
	// LeaseTTL is the lease TTL; 0 means the back end's default.
	LeaseTTL time.Duration
}

// Opener opens a Store, as the process p, on the database it was made for.
// Each call opens a new Store on the same database; the suite closes them.
type Opener func(t *testing.T, p Process) session.Store

// Options says how a back end's leases judge their holders, where back ends
// may differ. The zero value is SQLite's.
type Options struct {
	// NoPIDCheck: the back end never checks a holder's pid, not even on
	// its own host, as when holders run on several hosts: a holder is live
	// until its lease expires. The tests of dead holders then check that a
	// holder whose pid is dead keeps its lease until it expires, and no
	// longer.
	NoPIDCheck bool
	// Fencing: a Store whose lease was taken over never writes to that
	// session again through it, even once the new holder released it, and
	// even when the new holder is its own process (fencing tokens).
	Fencing bool
}

// Run runs the conformance suite with the zero Options. fresh is called
// once per subtest and returns an Opener on a new, empty database that
// lasts as long as t. The suite takes a few seconds: one subtest watches
// real heartbeats.
func Run(t *testing.T, fresh func(t *testing.T) Opener) { RunWith(t, Options{}, fresh) }

// RunWith runs the conformance suite for a back end whose leases differ
// from SQLite's as opts says.
func RunWith(t *testing.T, opts Options, fresh func(t *testing.T) Opener) {
	tests := []struct {
		name string
		run  func(t *testing.T, h *harness)
	}{
		{"RoundTrip", testRoundTrip},
		{"Ordering", testOrdering},
		{"SeqConflict", testSeqConflict},
		{"EphemeralRefused", testEphemeral},
		{"InvalidAppend", testInvalidAppend},
		{"NotFound", testNotFound},
		{"ConcurrentSessions", testConcurrentSessions},
		{"ConcurrentSameSession", testConcurrentSameSession},
		{"Info", testInfo},
		{"TitleCut", testTitleCut},
		{"List", testList},
		{"ListProject", testListProject},
		{"ListDefaults", testListDefaults},
		{"Fork", testFork},
		{"ForkErrors", testForkErrors},
		{"Delete", testDelete},
		{"LeaseExclusive", testLeaseExclusive},
		{"LeaseSameProcess", testLeaseSameProcess},
		{"LeaseDeadPID", testLeaseDeadPID},
		{"LeaseStale", testLeaseStale},
		{"LeaseHeartbeat", testLeaseHeartbeat},
		{"LeaseClose", testLeaseClose},
		{"LeaseFencing", testLeaseFencing},
		{"Reopen", testReopen},
		{"Heads", testHeads},
		{"HeadsRefused", testHeadsRefused},
		{"HeadsFork", testHeadsFork},
		{"LoadRange", testLoadRange},
		{"Snapshot", testSnapshot},
		{"SnapshotRefused", testSnapshotRefused},
		{"SnapshotLease", testSnapshotLease},
		{"SnapshotDeleteFork", testSnapshotDeleteFork},
		{"ApprovalOpen", testApprovalOpen},
		{"ApprovalAnswer", testApprovalAnswer},
		{"ApprovalConcurrentAnswers", testApprovalConcurrentAnswers},
		{"ApprovalAnswerWithdrawRace", testApprovalAnswerWithdrawRace},
		{"ApprovalNotLive", testApprovalNotLive},
		{"ApprovalDeleteFork", testApprovalDeleteFork},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, &harness{t: t, open: fresh(t), opts: opts})
		})
	}
}

// harness opens Stores on one database, each closed when the test ends.
type harness struct {
	t    *testing.T
	open Opener
	opts Options
}

// store opens a Store as p.
func (h *harness) store(p Process) session.Store {
	h.t.Helper()
	s := h.open(h.t, p)
	h.t.Cleanup(func() { _ = s.Close() })
	return s
}

// main opens a Store as this process.
func (h *harness) main() session.Store { return h.store(thisProcess()) }

// thisProcess is this process.
func thisProcess() Process {
	host, _ := os.Hostname()
	return Process{Host: host, PID: os.Getpid()}
}

// liveOther is another process of this host that is alive while the test
// runs: the parent of the test binary.
func liveOther() Process {
	p := thisProcess()
	p.PID = os.Getppid()
	return p
}

// deadPID is a pid no process of this host has: above the largest pid Linux
// (2^22) and macOS (99999) hand out.
const deadPID = 1<<22 + 1

// remoteProcess is a process of another host, whose liveness is known only
// by its heartbeat.
func remoteProcess() Process { return Process{Host: "elsewhere.invalid", PID: 4242} }

// wantIs fails unless err wraps target.
func wantIs(t *testing.T, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}

// must fails on an error.
func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
