package sessiontest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/session"
)

// request is the permission request number n of session id, as a turn
// opens it.
func request(id string, n uint64) session.Approval {
	return session.Approval{ID: fmt.Sprintf("%s/%d", id, n), SessionID: id, Number: n, CallID: fmt.Sprintf("call-%d", n),
		Tool: "shell_exec", Summary: fmt.Sprintf("rm -rf build/%d", n), Risk: "destructive", Sandboxed: n%2 == 0}
}

// openOK opens requests, failing the test on an error.
func openOK(t *testing.T, s session.Store, reqs ...session.Approval) {
	t.Helper()
	for _, a := range reqs {
		must(t, s.OpenApproval(context.Background(), a), "open permission request "+a.ID)
	}
}

// approval reads a request, failing the test on an error.
func approval(t *testing.T, s session.Store, id string) session.Approval {
	t.Helper()
	a, err := s.Approval(context.Background(), id)
	must(t, err, "read permission request "+id)
	return a
}

// pendingIDs lists the ids of the pending requests of a session ("": of
// all), failing the test on an error.
func pendingIDs(t *testing.T, s session.Store, sessionID string) []string {
	t.Helper()
	as, err := s.PendingApprovals(context.Background(), sessionID)
	must(t, err, "pending permission requests of "+sessionID)
	ids := []string{}
	for _, a := range as {
		if a.State != session.ApprovalPending {
			t.Fatalf("PendingApprovals(%q) lists %s, %s", sessionID, a.ID, a.State)
		}
		ids = append(ids, a.ID)
	}
	return ids
}

// sameApproval fails unless got and want are equal, times compared as
// instants.
func sameApproval(t *testing.T, what string, got, want session.Approval) {
	t.Helper()
	if !got.Requested.Equal(want.Requested) || !got.Ended.Equal(want.Ended) {
		t.Fatalf("%s: requested %v ended %v, want %v %v", what, got.Requested, got.Ended, want.Requested, want.Ended)
	}
	got.Requested, got.Ended = want.Requested, want.Ended
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// wantNotPending fails unless err is ErrNotPending and its message matches
// the regular expression re.
func wantNotPending(t *testing.T, err error, re, what string) {
	t.Helper()
	wantIs(t, err, session.ErrNotPending, what)
	if !regexp.MustCompile(re).MatchString(err.Error()) {
		t.Fatalf("%s: message %q does not match %s", what, err, re)
	}
}

// pendingAs is a request as the store holds it once p opened it at time at.
func pendingAs(a session.Approval, p Process, at time.Time, live bool) session.Approval {
	a.State, a.Host, a.PID, a.Requested, a.Live = session.ApprovalPending, p.Host, p.PID, at, live
	return a
}

// testApprovalOpen: an opened request is pending, listed oldest first, of
// this process and Live while it holds the lease.
func testApprovalOpen(t *testing.T, h *harness) {
	ctx := context.Background()
	c := &clock{t: base}
	self := clocked(c)
	s := h.store(self)
	appendOK(t, s, notes("a", 1, 2)...)
	appendOK(t, s, notes("b", 1, 1)...)
	appendOK(t, s, notes("quiet", 1, 1)...)
	acquire(t, s, "a")
	acquire(t, s, "b")

	// What the store fills is not the caller's to say.
	forged := request("a", 2)
	forged.State, forged.By, forged.Answer = session.ApprovalAnswered, "mallory", session.Answer{Allow: true}
	forged.Host, forged.PID, forged.Requested, forged.Ended, forged.Live = "forged.invalid", 1, base.Add(-time.Hour), base, false
	openOK(t, s, forged)
	t0 := c.Now()
	c.advance(time.Second)
	openOK(t, s, request("b", 1))
	c.advance(time.Second)
	openOK(t, s, request("a", 1))
	t2 := c.Now()

	as, err := s.PendingApprovals(ctx, "a")
	must(t, err, "pending of a")
	if len(as) != 2 {
		t.Fatalf("pending of a: %+v, want a/2 then a/1", as)
	}
	sameApproval(t, "a/2 (oldest first)", as[0], pendingAs(request("a", 2), self, t0, true))
	sameApproval(t, "a/1", as[1], pendingAs(request("a", 1), self, t2, true))
	if got := pendingIDs(t, s, ""); !slices.Equal(got, []string{"a/2", "b/1", "a/1"}) {
		t.Fatalf("pending of every session: %v, want [a/2 b/1 a/1]", got)
	}
	if got := pendingIDs(t, s, "quiet"); len(got) != 0 {
		t.Fatalf("pending of a session that asked nothing: %v", got)
	}
	// Another process reads the same row, Live too: this process is alive
	// and holds the lease.
	other := liveOther()
	other.Now, other.LeaseTTL = c.Now, self.LeaseTTL
	sameApproval(t, "a/1 read by another process", approval(t, h.store(other), "a/1"), as[1])

	// An id is opened once.
	c.advance(time.Second)
	wantIs(t, s.OpenApproval(ctx, request("a", 1)), session.ErrExists, "open a/1 twice")
	sameApproval(t, "a/1 after a second open", approval(t, s, "a/1"), as[1])

	// A request belongs to a stored session, and its id names it.
	wantIs(t, s.OpenApproval(ctx, request("ghost", 1)), session.ErrNotFound, "open for an unknown session")
	_, err = s.PendingApprovals(ctx, "ghost")
	wantIs(t, err, session.ErrNotFound, "pending of an unknown session")
	_, err = s.Info(ctx, "ghost")
	wantIs(t, err, session.ErrNotFound, "opening a request created a session")
	for _, bad := range []session.Approval{
		{ID: "a/9", SessionID: "a", Number: 3},
		{ID: "b/3", SessionID: "a", Number: 3},
		{ID: "", SessionID: "a", Number: 3},
		{ID: "/3", SessionID: "", Number: 3},
	} {
		if err := s.OpenApproval(ctx, bad); err == nil {
			t.Fatalf("request %+v opened", bad)
		}
	}
	for _, id := range []string{"a/3", "a/9", "b/3", "/3"} {
		_, err := s.Approval(ctx, id)
		wantIs(t, err, session.ErrNotFound, "a refused request "+id)
	}
}

// testApprovalAnswer: a request ends once, answered or withdrawn, and what
// comes after is told how it ended.
func testApprovalAnswer(t *testing.T, h *harness) {
	ctx := context.Background()
	c := &clock{t: base}
	self := clocked(c)
	s := h.store(self)
	appendOK(t, s, notes("a", 1, 1)...)
	acquire(t, s, "a")
	openOK(t, s, request("a", 1), request("a", 2), request("a", 3), request("a", 4))
	opened := c.Now()

	c.advance(time.Minute)
	yes := session.Answer{Allow: true, Remember: true, Network: true, Reason: "vu"}
	got, err := s.AnswerApproval(ctx, "a/1", yes, "")
	must(t, err, "answer a/1")
	want := pendingAs(request("a", 1), self, opened, true)
	want.State, want.Answer, want.By, want.Ended = session.ApprovalAnswered, yes, "user", c.Now()
	sameApproval(t, "a/1 answered", got, want)
	sameApproval(t, "a/1 read back", approval(t, s, "a/1"), want)
	if ids := pendingIDs(t, s, "a"); !slices.Equal(ids, []string{"a/2", "a/3", "a/4"}) {
		t.Fatalf("pending after answering a/1: %v", ids)
	}

	// Once answered, later answers are refused and told the first…
	c.advance(time.Minute)
	again, err := s.AnswerApproval(ctx, "a/1", session.Answer{Reason: "non"}, "alice")
	wantNotPending(t, err, `^permission request a/1 was already answered \(allow\) by user at \S+$`, "answer a/1 twice")
	sameApproval(t, "the row a second answer returns", again, want)
	// …and a withdrawal honours it.
	kept, err := s.WithdrawApproval(ctx, "a/1", "timeout")
	must(t, err, "withdraw an answered request")
	sameApproval(t, "withdrawing an answered request", kept, want)
	sameApproval(t, "a/1 after later attempts", approval(t, s, "a/1"), want)

	// Withdrawn, then answered: refused.
	gone, err := s.WithdrawApproval(ctx, "a/2", "timeout")
	must(t, err, "withdraw a/2")
	want2 := pendingAs(request("a", 2), self, opened, true)
	want2.State, want2.By, want2.Ended = session.ApprovalWithdrawn, "timeout", c.Now()
	sameApproval(t, "a/2 withdrawn", gone, want2)
	c.advance(time.Minute)
	late, err := s.AnswerApproval(ctx, "a/2", yes, "")
	wantNotPending(t, err, `^permission request a/2 was already withdrawn \(timeout\) at \S+$`, "answer a withdrawn request")
	sameApproval(t, "the row a late answer returns", late, want2)
	twice, err := s.WithdrawApproval(ctx, "a/2", "cancelled")
	must(t, err, "withdraw twice")
	sameApproval(t, "withdrawn twice", twice, want2)

	// A refusal, by someone named.
	no, err := s.AnswerApproval(ctx, "a/3", session.Answer{Reason: "trop risqué"}, "bob")
	must(t, err, "answer a/3")
	if no.State != session.ApprovalAnswered || no.Answer.Allow || no.By != "bob" || no.Answer.Reason != "trop risqué" {
		t.Fatalf("a/3 answered: %+v", no)
	}
	_, err = s.AnswerApproval(ctx, "a/3", yes, "")
	wantNotPending(t, err, `^permission request a/3 was already answered \(deny\) by bob at \S+$`, "answer a refused request")

	// A withdrawal says why.
	if _, err := s.WithdrawApproval(ctx, "a/4", ""); err == nil {
		t.Fatal("a withdrawal without a reason was accepted")
	}
	if a := approval(t, s, "a/4"); a.State != session.ApprovalPending {
		t.Fatalf("a refused withdrawal changed a/4: %+v", a)
	}

	for _, id := range []string{"a/99", "ghost/1", ""} {
		_, err := s.AnswerApproval(ctx, id, yes, "")
		wantIs(t, err, session.ErrNotFound, "answer "+id)
		_, err = s.WithdrawApproval(ctx, id, "timeout")
		wantIs(t, err, session.ErrNotFound, "withdraw "+id)
		_, err = s.Approval(ctx, id)
		wantIs(t, err, session.ErrNotFound, "read "+id)
	}

	// Requests survive the store; closing it released the lease, so the
	// one left pending is no longer answerable.
	must(t, s.Close(), "close")
	s = h.store(self)
	want.Live = false
	sameApproval(t, "a/1 reopened", approval(t, s, "a/1"), want)
	if a := approval(t, s, "a/4"); a.State != session.ApprovalPending || a.Live {
		t.Fatalf("a/4 after its store closed: %+v; want pending, not live", a)
	}
	_, err = s.AnswerApproval(ctx, "a/4", yes, "")
	wantIs(t, err, session.ErrNotPending, "answer a request whose store closed")
}

// outcome is what one caller got.
type outcome struct {
	a   session.Approval
	err error
}

// race runs the calls at once, as far as the scheduler lets them, and
// returns what each got.
func race(calls ...func() (session.Approval, error)) []outcome {
	out := make([]outcome, len(calls))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, call := range calls {
		wg.Go(func() {
			<-start
			out[i].a, out[i].err = call()
		})
	}
	close(start)
	wg.Wait()
	return out
}

// testApprovalConcurrentAnswers: of 16 answers at once through two Stores,
// exactly one wins; the others are told it was answered, and by whom.
func testApprovalConcurrentAnswers(t *testing.T, h *harness) {
	ctx := context.Background()
	stores := []session.Store{h.main(), h.store(liveOther())}
	appendOK(t, stores[0], notes("race", 1, 1)...)
	acquire(t, stores[0], "race")
	const answers = 16
	for round := range uint64(3) {
		id := fmt.Sprintf("race/%d", round+1)
		openOK(t, stores[0], request("race", round+1))
		calls := make([]func() (session.Approval, error), answers)
		for g := range answers {
			calls[g] = func() (session.Approval, error) {
				ans := session.Answer{Allow: g%2 == 0, Reason: fmt.Sprintf("answer %02d", g)}
				return stores[g%2].AnswerApproval(ctx, id, ans, fmt.Sprintf("user-%02d", g))
			}
		}
		results := race(calls...)
		winner := -1
		for g, r := range results {
			switch {
			case r.err == nil && winner >= 0:
				t.Fatalf("%s: answers %d and %d both won", id, winner, g)
			case r.err == nil:
				winner = g
			case !errors.Is(r.err, session.ErrNotPending):
				t.Fatalf("%s: answer %d: %v, want ErrNotPending", id, g, r.err)
			}
		}
		if winner < 0 {
			t.Fatalf("%s: no answer won", id)
		}
		won := results[winner].a
		if won.State != session.ApprovalAnswered || won.By != fmt.Sprintf("user-%02d", winner) ||
			won.Answer != (session.Answer{Allow: winner%2 == 0, Reason: fmt.Sprintf("answer %02d", winner)}) {
			t.Fatalf("%s: the winner %d got %+v", id, winner, won)
		}
		stored := approval(t, stores[1], id)
		sameApproval(t, id+" as stored", stored, won)
		re := fmt.Sprintf(`^permission request %s was already answered \((allow|deny)\) by user-%02d at \S+$`, regexp.QuoteMeta(id), winner)
		for g, r := range results {
			if g == winner {
				continue
			}
			wantNotPending(t, r.err, re, fmt.Sprintf("%s: answer %d", id, g))
			sameApproval(t, fmt.Sprintf("%s: the row answer %d got", id, g), r.a, won)
		}
	}
}

// testApprovalAnswerWithdrawRace: an answer and a withdrawal (the timeout)
// at once: one of them ends the request, and both callers see which.
func testApprovalAnswerWithdrawRace(t *testing.T, h *harness) {
	ctx := context.Background()
	stores := []session.Store{h.main(), h.store(liveOther())}
	appendOK(t, stores[0], notes("rw", 1, 1)...)
	acquire(t, stores[0], "rw")
	counts := map[session.ApprovalState]int{}
	for n := range uint64(24) {
		id := fmt.Sprintf("rw/%d", n+1)
		openOK(t, stores[0], request("rw", n+1))
		yes := session.Answer{Allow: true, Reason: "ok"}
		r := race(
			func() (session.Approval, error) { return stores[n%2].AnswerApproval(ctx, id, yes, "") },
			func() (session.Approval, error) { return stores[(n+1)%2].WithdrawApproval(ctx, id, "timeout") },
		)
		answer, withdraw := r[0], r[1]
		must(t, withdraw.err, id+": withdraw")
		stored := approval(t, stores[0], id)
		counts[stored.State]++
		switch stored.State {
		case session.ApprovalAnswered:
			must(t, answer.err, id+": the answer that won")
			if stored.Answer != yes || stored.By != "user" {
				t.Fatalf("%s: stored %+v", id, stored)
			}
		case session.ApprovalWithdrawn:
			wantNotPending(t, answer.err, `withdrawn \(timeout\)`, id+": the answer that lost")
			if stored.By != "timeout" || stored.Answer != (session.Answer{}) {
				t.Fatalf("%s: stored %+v", id, stored)
			}
		default:
			t.Fatalf("%s: %s after an answer and a withdrawal", id, stored.State)
		}
		sameApproval(t, id+": what the answer got", answer.a, stored)
		sameApproval(t, id+": what the withdrawal got", withdraw.a, stored)
	}
	t.Logf("outcomes: %v", counts)
}

// testApprovalNotLive: a request whose turn no longer runs (its process
// dead, its heartbeat stale, its lease released or taken over) is not
// answered, stays pending, and can be withdrawn.
func testApprovalNotLive(t *testing.T, h *harness) {
	ctx := context.Background()
	yes := session.Answer{Allow: true}
	s := h.main()
	host := regexp.QuoteMeta(thisProcess().Host)

	// The asking process died.
	dead := thisProcess()
	dead.PID = deadPID
	xs := s // reads x as this process
	var xc *clock
	if h.opts.NoPIDCheck {
		// Its pid tells nothing: only its lease's expiry does.
		xc = &clock{t: base}
		dead.Now, dead.LeaseTTL = xc.Now, time.Hour
		xs = h.store(clocked(xc))
	}
	d := h.store(dead)
	appendOK(t, xs, notes("x", 1, 1)...)
	acquire(t, d, "x")
	openOK(t, d, request("x", 1))
	if h.opts.NoPIDCheck {
		if got := approval(t, xs, "x/1"); !got.Live {
			t.Fatalf("x/1 of a dead pid within its lease's TTL: %+v; want live (no pid check)", got)
		}
		xc.advance(2 * time.Hour)
	}
	as, err := xs.PendingApprovals(ctx, "x")
	must(t, err, "pending of x")
	if len(as) != 1 || as[0].Live || as[0].PID != deadPID || as[0].Host != dead.Host {
		t.Fatalf("pending of x: %+v; want x/1 of pid %d, not live", as, deadPID)
	}
	got, err := xs.AnswerApproval(ctx, "x/1", yes, "")
	wantNotPending(t, err, fmt.Sprintf(`^permission request x/1: the turn that asked is no longer running \(pid %d on host %s\)$`, deadPID, host),
		"answer a request of a dead process")
	sameApproval(t, "the row the refused answer returns", got, as[0])
	sameApproval(t, "x/1 after the refused answer", approval(t, xs, "x/1"), as[0])
	// The process that continues the session ends it.
	ended, err := xs.WithdrawApproval(ctx, "x/1", "interrupted")
	must(t, err, "withdraw a request of a dead process")
	if ended.State != session.ApprovalWithdrawn || ended.By != "interrupted" || ended.Ended.IsZero() {
		t.Fatalf("x/1 withdrawn: %+v", ended)
	}
	if ids := pendingIDs(t, xs, "x"); len(ids) != 0 {
		t.Fatalf("pending after the withdrawal: %v", ids)
	}

	// The asking process, on another host, stopped its heartbeat.
	const ttl = time.Hour
	c := &clock{t: base}
	remote := remoteProcess()
	remote.Now, remote.LeaseTTL = c.Now, ttl
	r, a := h.store(remote), h.store(clocked(c))
	appendOK(t, a, notes("st", 1, 1)...)
	acquire(t, r, "st")
	openOK(t, r, request("st", 1), request("st", 2))
	c.advance(ttl - time.Minute)
	if got := approval(t, a, "st/1"); !got.Live || got.Host != remote.Host || got.PID != remote.PID {
		t.Fatalf("st/1 within the TTL: %+v; want live, of %s pid %d", got, remote.Host, remote.PID)
	}
	_, err = a.AnswerApproval(ctx, "st/1", yes, "")
	must(t, err, "answer a request of a remote process within the TTL")
	c.advance(2 * time.Minute)
	if got := approval(t, a, "st/2"); got.Live {
		t.Fatalf("st/2 past the TTL: %+v; want not live", got)
	}
	_, err = a.AnswerApproval(ctx, "st/2", yes, "")
	wantNotPending(t, err, `^permission request st/2: the turn that asked is no longer running \(pid 4242 on host elsewhere\.invalid\)$`,
		"answer a request whose heartbeat is stale")
	if got := approval(t, a, "st/2"); got.State != session.ApprovalPending {
		t.Fatalf("st/2 after the refused answer: %+v", got)
	}

	// The asking process is alive but let the lease go, and another took it.
	appendOK(t, s, notes("y", 1, 1)...)
	l := acquire(t, s, "y")
	openOK(t, s, request("y", 1))
	must(t, l.Release(), "release")
	if got := approval(t, s, "y/1"); got.Live {
		t.Fatalf("y/1 after its process released the lease: %+v", got)
	}
	other := h.store(liveOther())
	acquire(t, other, "y")
	if got := approval(t, other, "y/1"); got.Live {
		t.Fatalf("y/1 while another process holds the lease: %+v", got)
	}
	_, err = other.AnswerApproval(ctx, "y/1", yes, "")
	wantIs(t, err, session.ErrNotPending, "answer a request of a process that no longer holds the lease")
	// A request opened without the lease was never answerable.
	openOK(t, s, request("y", 2))
	_, err = s.AnswerApproval(ctx, "y/2", yes, "")
	wantIs(t, err, session.ErrNotPending, "answer a request opened without the lease")
	if ids := pendingIDs(t, s, "y"); !slices.Equal(ids, []string{"y/1", "y/2"}) {
		t.Fatalf("pending of y: %v", ids)
	}
}

// testApprovalDeleteFork: Delete removes a session's requests, Fork copies
// none.
func testApprovalDeleteFork(t *testing.T, h *harness) {
	ctx := context.Background()
	s := h.main()
	appendOK(t, s, notes("src", 1, 3)...)
	appendOK(t, s, notes("keep", 1, 1)...)
	acquire(t, s, "src")
	openOK(t, s, request("src", 1), request("src", 2), request("keep", 1))
	_, err := s.AnswerApproval(ctx, "src/1", session.Answer{Allow: true}, "")
	must(t, err, "answer src/1")
	_, err = s.Fork(ctx, "src", 3, "kid")
	must(t, err, "fork")
	if ids := pendingIDs(t, s, "kid"); len(ids) != 0 {
		t.Fatalf("the fork has requests %v", ids)
	}
	for _, id := range []string{"kid/1", "kid/2"} {
		_, err := s.Approval(ctx, id)
		wantIs(t, err, session.ErrNotFound, "a fork's copy "+id)
	}
	must(t, s.Delete(ctx, "src"), "delete")
	for _, id := range []string{"src/1", "src/2"} {
		_, err := s.Approval(ctx, id)
		wantIs(t, err, session.ErrNotFound, "a deleted session's request "+id)
	}
	if ids := pendingIDs(t, s, ""); !slices.Equal(ids, []string{"keep/1"}) {
		t.Fatalf("pending after the delete: %v, want [keep/1]", ids)
	}
	// The session made again starts with no request.
	appendOK(t, s, notes("src", 1, 1)...)
	openOK(t, s, request("src", 1))
	if a := approval(t, s, "src/1"); a.State != session.ApprovalPending {
		t.Fatalf("src/1 opened again: %+v", a)
	}
}
