package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/internal/pgtest"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// The processes of these tests share one PostgreSQL database, as replicas
// do: no pid is checked there, so a process's sessions are taken over only
// once its lease has expired, which $MOTEUR_LEASE_TTL shortens.

// newReplicas is newProcs on a PostgreSQL database of the test's own.
func newReplicas(t *testing.T, baseURL string) (*procs, string) {
	t.Helper()
	url := pgtest.Database(t)
	p := newProcs(t, baseURL)
	p.env = append(p.env, "MOTEUR_DATABASE_URL="+url, "MOTEUR_LEASE_TTL=5s")
	return p, url
}

// A request waiting in one process on PostgreSQL is answered by another;
// the first runs the call once and its events are on the server.
func TestApprovalAcrossProcessesOnPostgres(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Calls("call_w", "write_file", appendArgs), openaitest.Answer("written"))
	p, url := newReplicas(t, srv.BaseURL())
	first := waitingRun(t, p, "s-rep")
	if reqs := pendingOf(t, p); len(reqs) != 1 || reqs[0].ID != "s-rep/1" || !reqs[0].Live {
		t.Fatalf("pending %+v, want request 1 of s-rep, live", reqs)
	}
	if res := p.run("sessions", "approve", "s-rep", "1"); res.code != 0 {
		t.Fatalf("approve: exit %d, stderr %q", res.code, res.stderr)
	}
	if err := first.wait(); err != nil {
		t.Fatalf("process 1: %v, stderr:\n%s", err, first.stderr.text())
	}
	if got := readFile(t, filepath.Join(p.project, "notes.txt")); got != "one line\n" {
		t.Errorf("notes.txt = %q, want the line written once", got)
	}
	st, err := session.OpenPostgres(t.Context(), session.PostgresConfig{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.Load(t.Context(), "s-rep")
	if err != nil {
		t.Fatal(err)
	}
	if r := payloads[event.PermissionResolvedPayload](evs); len(r) != 1 || !r[0].Allow {
		t.Errorf("resolved on PostgreSQL: %+v", r)
	}
	if res := p.run("audit", "verify", "s-rep"); res.code != 0 {
		t.Errorf("audit verify: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	srv.CheckPairing(t)
}

// A process killed while its turn waits for an approval keeps its lease
// until it expires; then another process continues the session from the
// store: the call that never ran is answered as not run, the audit log
// verifies, and nothing was written twice.
func TestKilledMidTurnContinuedByAnotherOnPostgres(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Calls("call_k", "write_file", appendArgs), openaitest.Answer("went on"))
	p, _ := newReplicas(t, srv.BaseURL())
	first := waitingRun(t, p, "s-dead")
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.wait()
	if ws, ok := first.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("process 1: %v, want killed by SIGKILL", first.cmd.ProcessState)
	}
	// Until the lease expires the session is the dead process's: a run is
	// refused, saying so (5s is far longer than the kill and one start).
	if res := p.run("run", "--session", "s-dead", "too soon"); res.code == 0 || !strings.Contains(res.stderr, "in use by another process") {
		t.Fatalf("a run before the lease expired: exit %d, stderr %q; want it refused, in use", res.code, res.stderr)
	}
	// The wait is on the store's own answer: each look is a real process.
	for {
		reqs := pendingOf(t, p, "--session", "s-dead")
		if len(reqs) != 1 {
			t.Fatalf("pending %+v, want the dead process's request", reqs)
		}
		if !reqs[0].Live {
			break
		}
		if p.ctx.Err() != nil {
			t.Fatal("the dead process's lease never expired")
		}
	}
	if res := p.run("run", "--session", "s-dead", "go on"); res.code != 0 {
		t.Fatalf("run --session after the lease expired: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	srv.CheckPairing(t)
	msgs := srv.Requests()[len(srv.Requests())-1].Messages
	i := slices.IndexFunc(msgs, func(m llm.Message) bool { return m.Role == llm.RoleTool && m.ToolCallID == "call_k" })
	if i < 0 || !strings.Contains(msgs[i].Content, "was not run") {
		t.Errorf("the model's answer to the call: %+v, want 'was not run'", msgs)
	}
	if _, err := os.Stat(filepath.Join(p.project, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("notes.txt was written: %v", err)
	}
	if res := p.run("audit", "verify", "s-dead"); res.code != 0 {
		t.Errorf("audit verify: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if reqs := pendingOf(t, p); len(reqs) != 0 {
		t.Errorf("pending after the next turn: %+v", reqs)
	}
}
