package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/internal/pgtest"
)

// The variables that make this test binary a writer of
// TestPostgresAppendFromProcesses.
const (
	pgHelperURL    = "MOTEUR_PG_HELPER_URL"
	pgHelperWriter = "MOTEUR_PG_HELPER_WRITER"
	pgHelperTotal  = "MOTEUR_PG_HELPER_TOTAL"
	pgHelperSchema = "procs"
)

// TestPostgresAppendHelperProcess is one writer process: it appends
// batches of 1 to 3 events to the session "hot" until it holds at least
// total events, reporting on stdout each batch it won ("won CALLID SIZE
// FIRST") and each refusal ("lost seq|inuse"). Writers of an even number
// take the session's lease around each batch, the others append without
// it: every loser is refused by a seq conflict or a lease.
func TestPostgresAppendHelperProcess(t *testing.T) {
	url := os.Getenv(pgHelperURL)
	if url == "" {
		t.Skip("helper process only")
	}
	w, _ := strconv.Atoi(os.Getenv(pgHelperWriter))
	total, _ := strconv.ParseUint(os.Getenv(pgHelperTotal), 10, 64)
	ctx := context.Background()
	s, err := OpenPostgres(ctx, PostgresConfig{URL: url, Schema: pgHelperSchema})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	defer s.Close()
	// Ready; start when the parent closes stdin, with the others.
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	fail := func(err error) {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	for n := 0; ; n++ {
		var lease Lease
		if w%2 == 0 {
			l, err := s.Acquire(ctx, "hot")
			if errors.Is(err, ErrInUse) {
				fmt.Println("lost inuse")
				continue
			}
			if err != nil {
				fail(err)
			}
			lease = l
		}
		var last uint64
		switch i, err := s.Info(ctx, "hot"); {
		case err == nil:
			last = i.LastSeq
		case !errors.Is(err, ErrNotFound):
			fail(err)
		}
		if last >= total {
			return
		}
		size := 1 + (w+n)%3
		callID := fmt.Sprintf("p%d-b%d", w, n)
		batch := make([]event.Event, size)
		for k := range batch {
			batch[k] = event.Event{Seq: last + 1 + uint64(k), Type: event.ToolResult, SessionID: "hot", Time: time.Unix(1_800_000_000, 0).UTC(),
				Payload: event.ToolResultPayload{CallID: callID, Name: "race", Round: k, DurationMS: int64(size)}}
		}
		err := s.Append(ctx, batch...)
		switch {
		case err == nil:
			fmt.Printf("won %s %d %d\n", callID, size, last+1)
		case errors.Is(err, ErrSeqConflict):
			fmt.Println("lost seq")
		case errors.Is(err, ErrInUse):
			fmt.Println("lost inuse")
		default:
			fail(err)
		}
		if lease != nil {
			if err := lease.Release(); err != nil {
				fail(err)
			}
		}
	}
}

// TestPostgresAppendFromProcesses has writer processes race to append to
// one session: each seq is won by exactly one batch, which its writer was
// told it won; batches never interleave; no seq is missing; every loser was
// told ErrSeqConflict or ErrInUse.
func TestPostgresAppendFromProcesses(t *testing.T) {
	url := pgtest.Database(t)
	s := openPG(t, url, pgHelperSchema) // migrates before the writers start
	const writers, total = 4, 300
	type won struct{ size, first int }
	claims := map[string]won{}
	var lostSeq, lostInUse int
	var cmds []*exec.Cmd
	var stdins []io.WriteCloser
	outs := make([]*bufio.Scanner, writers)
	for w := range writers {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPostgresAppendHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), pgHelperURL+"="+url, pgHelperWriter+"="+strconv.Itoa(w), pgHelperTotal+"="+strconv.Itoa(total))
		cmd.Stderr = os.Stderr
		in, err := cmd.StdinPipe()
		must(t, err)
		out, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		cmds, stdins = append(cmds, cmd), append(stdins, in)
		outs[w] = bufio.NewScanner(out)
		if !outs[w].Scan() || outs[w].Text() != "ready" {
			t.Fatalf("writer %d: %q instead of ready (%v)", w, outs[w].Text(), outs[w].Err())
		}
	}
	for _, in := range stdins {
		must(t, in.Close()) // go
	}
	for w, out := range outs {
		for out.Scan() {
			f := strings.Fields(out.Text())
			switch {
			case len(f) == 4 && f[0] == "won":
				size, _ := strconv.Atoi(f[2])
				first, _ := strconv.Atoi(f[3])
				claims[f[1]] = won{size, first}
			case len(f) == 2 && f[0] == "lost" && f[1] == "seq":
				lostSeq++
			case len(f) == 2 && f[0] == "lost" && f[1] == "inuse":
				lostInUse++
			case len(f) > 0 && f[0] == "PASS":
			default:
				t.Errorf("writer %d: %s", w, out.Text())
			}
		}
		if err := cmds[w].Wait(); err != nil {
			t.Fatalf("writer %d: %v", w, err)
		}
	}
	t.Logf("%d batches won, %d lost on a seq conflict, %d on the lease", len(claims), lostSeq, lostInUse)
	if lostSeq == 0 || lostInUse == 0 {
		t.Fatalf("the writers did not race (%d seq conflicts, %d refused by the lease): the test proves nothing", lostSeq, lostInUse)
	}

	got, err := s.Load(context.Background(), "hot")
	must(t, err)
	if len(got) < total {
		t.Fatalf("%d events, want at least %d", len(got), total)
	}
	stored := map[string]bool{}
	for i := 0; i < len(got); {
		if got[i].Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, got[i].Seq)
		}
		p := got[i].Payload.(event.ToolResultPayload)
		c, ok := claims[p.CallID]
		switch {
		case !ok:
			t.Fatalf("seq %d: batch %s is stored, but its writer was not told it won", got[i].Seq, p.CallID)
		case c.first != i+1 || c.size != int(p.DurationMS):
			t.Fatalf("seq %d: batch %s stored at %d×%d, its writer was told %d×%d", got[i].Seq, p.CallID, i+1, p.DurationMS, c.first, c.size)
		case stored[p.CallID]:
			t.Fatalf("batch %s appears twice", p.CallID)
		}
		stored[p.CallID] = true
		for k := range c.size {
			if i+k >= len(got) {
				t.Fatalf("batch %s cut short", p.CallID)
			}
			if q := got[i+k].Payload.(event.ToolResultPayload); q.CallID != p.CallID || q.Round != k {
				t.Fatalf("seq %d: batches interleave: %s/%d inside %s", got[i+k].Seq, q.CallID, q.Round, p.CallID)
			}
		}
		i += c.size
	}
	if len(stored) != len(claims) {
		t.Fatalf("%d batches stored, %d were told they won", len(stored), len(claims))
	}
}
