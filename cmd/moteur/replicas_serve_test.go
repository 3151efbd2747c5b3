package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/moteur/moteur/apikey"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// replica is a moteur serve process and its address.
type replica struct {
	*proc
	url string
}

func startReplica(t *testing.T, p *procs, args ...string) replica {
	t.Helper()
	pr := p.start(append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	line := pr.stderr.waitForText(t, "serving on http://")
	return replica{proc: pr, url: strings.Fields(strings.SplitAfter(line, "serving on ")[1])[0]}
}

// call sends a JSON request to a replica and decodes its JSON answer.
func (r replica) call(t *testing.T, ctx context.Context, method, path, key string, body any, want int, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequestWithContext(ctx, method, r.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s on %s: %d %s, want %d", method, path, r.url, resp.StatusCode, b, want)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v\n%s", method, path, err, b)
		}
	}
}

// follow opens GET …/events on a replica and returns the events it
// streams, on a channel closed when the stream ends.
func (r replica) follow(t *testing.T, ctx context.Context, key, id string) <-chan event.Event {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", r.url+"/api/v1/sessions/"+id+"/events", nil)
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("follow %s: %d %s", id, resp.StatusCode, b)
	}
	out := make(chan event.Event, 256)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			if e, err := event.Decode([]byte(data)); err == nil && e.Seq > 0 {
				out <- e
			}
		}
	}()
	return out
}

// untilSeq reads followed events until seq, in order, without gaps.
func untilSeq(t *testing.T, evs <-chan event.Event, from, seq uint64) []event.Event {
	t.Helper()
	var got []event.Event
	next := from + 1
	for e := range evs {
		if e.Seq != next {
			t.Fatalf("followed seq %d (%s), want %d: a gap or a duplicate", e.Seq, e.Type, next)
		}
		got = append(got, e)
		if e.Seq == seq {
			return got
		}
		next++
	}
	t.Fatalf("the follower's stream ended at seq %d, want %d", next-1, seq)
	return nil
}

// replicaKey makes an API key on the database url.
func replicaKey(t *testing.T, url string) string {
	t.Helper()
	return newAPIKey(t, apikey.Config{URL: url})
}

// Two moteur serve replicas on one PostgreSQL database: a turn started on
// A asks for an approval, answered on B; a follower on B gets every event
// of it; then A is killed with SIGKILL in the middle of the next turn, and
// B, once A's lease expired, finishes the session; the follower on B
// misses nothing, and the audit log verifies.
func TestTwoServeReplicasOnPostgres(t *testing.T) {
	arrived := make(chan struct{})
	model := openaitest.NewServer(t,
		openaitest.Calls("call_w", "write_file", appendArgs), openaitest.Answer("written"),
		func(w http.ResponseWriter, r *http.Request) {
			close(arrived)
			<-r.Context().Done() // A dies with this request open
		},
		openaitest.Answer("finished on B"),
	)
	p, url := newReplicas(t, model.BaseURL())
	key := replicaKey(t, url)
	a := startReplica(t, p, "--mode", "confirm")
	b := startReplica(t, p, "--mode", "confirm")
	ctx := p.ctx

	var created struct{ ID string }
	a.call(t, ctx, "POST", "/api/v1/sessions", key, map[string]string{}, http.StatusCreated, &created)
	id := created.ID

	resp, types := postChat(t, ctx, a.url, key, id, "write the notes")
	waitType(t, types, string(event.PermissionRequested))
	// Followed from its start on B while it runs on A: the stored events,
	// then, polling the store, what A appends.
	followed := b.follow(t, ctx, key, id)
	var prompts struct {
		Prompts []struct {
			ID   string
			Live bool
		}
	}
	b.call(t, ctx, "GET", "/api/v1/sessions/"+id+"/prompts", key, nil, http.StatusOK, &prompts)
	if len(prompts.Prompts) != 1 || !prompts.Prompts[0].Live {
		t.Fatalf("prompts on B: %+v, want A's request, live", prompts.Prompts)
	}
	b.call(t, ctx, "POST", "/api/v1/agent/prompts/"+prompts.Prompts[0].ID, key, map[string]any{"allow": true}, http.StatusOK, nil)
	waitType(t, types, string(event.TurnCompleted))
	resp.Body.Close()
	if got := readFile(t, filepath.Join(p.project, "notes.txt")); got != "one line\n" {
		t.Errorf("notes.txt = %q, want the line written once", got)
	}

	st, err := session.OpenPostgres(t.Context(), session.PostgresConfig{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	info, err := st.Info(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	firstTurn := untilSeq(t, followed, 0, info.LastSeq)

	// The next turn, on A, dies with A.
	resp, types = postChat(t, ctx, a.url, key, id, "and now")
	defer resp.Body.Close()
	<-arrived
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = a.wait()
	if ws, ok := a.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("replica A: %v, want killed by SIGKILL", a.cmd.ProcessState)
	}
	for range types {
	} // A's stream ends with A

	// On B: refused while A's lease lives, then B continues the session.
	for {
		req, _ := http.NewRequestWithContext(ctx, "POST", b.url+"/api/v1/agent-chat/"+id, strings.NewReader(`{"query":"finish it"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", key)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if r.StatusCode == http.StatusConflict {
			r.Body.Close()
			if ctx.Err() != nil {
				t.Fatal("A's lease never expired")
			}
			continue
		}
		if r.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(r.Body)
			t.Fatalf("agent-chat on B: %d %s", r.StatusCode, b)
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		break
	}
	reqs := model.Requests()
	if last := reqs[len(reqs)-1]; !said(last, "write the notes") || !said(last, "and now") || !said(last, "finish it") {
		t.Errorf("B's model request lacks the session's history: %+v", last.Messages)
	}
	model.CheckPairing(t)
	info, err = st.Info(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	rest := untilSeq(t, followed, firstTurn[len(firstTurn)-1].Seq, info.LastSeq)
	stored, err := st.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonLines(t, append(firstTurn, rest...)), jsonLines(t, stored); got != want {
		t.Errorf("followed on B:\n%s\nwant every stored event once:\n%s", got, want)
	}
	if res := p.run("audit", "verify", id); res.code != 0 {
		t.Errorf("audit verify: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := b.wait(); err != nil {
		t.Errorf("replica B after SIGTERM: %v\n%s", err, b.stderr.text())
	}
}

// A stop asked of replica B cancels the turn running on replica A: the
// turn ends cancelled, and a stop when nothing runs anywhere is refused.
func TestStopOnAnotherReplica(t *testing.T) {
	arrived := make(chan struct{})
	model := openaitest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done() // held until the turn is cancelled
	})
	p, url := newReplicas(t, model.BaseURL())
	key := replicaKey(t, url)
	a := startReplica(t, p)
	b := startReplica(t, p)
	ctx := p.ctx
	var created struct{ ID string }
	a.call(t, ctx, "POST", "/api/v1/sessions", key, map[string]string{}, http.StatusCreated, &created)
	id := created.ID
	resp, types := postChat(t, ctx, a.url, key, id, "a long question")
	defer resp.Body.Close()
	<-arrived
	// B runs no turn of it: the stop goes to A through the database (A
	// listens from before it serves).
	b.call(t, ctx, "POST", "/api/v1/sessions/"+id+"/stop", key, nil, http.StatusAccepted, nil)
	waitType(t, types, string(event.TurnCompleted))
	st, err := session.OpenPostgres(t.Context(), session.PostgresConfig{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if c := payloads[event.TurnCompletedPayload](evs); len(c) != 1 || c[0].Reason != event.StopCancelled {
		t.Errorf("turn ends %+v, want one, cancelled", c)
	}
	// Nothing runs now: B says so once A has let the lease go.
	for {
		req, _ := http.NewRequestWithContext(ctx, "POST", b.url+"/api/v1/sessions/"+id+"/stop", nil)
		req.Header.Set("X-API-Key", key)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode == http.StatusConflict {
			break
		}
		if r.StatusCode != http.StatusAccepted || ctx.Err() != nil {
			t.Fatalf("stop after the turn: %d", r.StatusCode)
		}
	}
}
