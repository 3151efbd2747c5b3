package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

// stampedModel is a model server that answers every request with deltas
// of the time they were written, in nanoseconds: a client that reads
// them off Moteur's stream knows how long each took to cross it. With a
// gate, each answer waits until the gate opens; the deltas come every
// pace, as a model's tokens do.
func stampedModel(b testing.TB, deltas int, pace time.Duration, gate *barrier) *httptest.Server {
	var count atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if gate != nil {
			gate.arrive()
		}
		w.Header().Set("Content-Type", "text/event-stream")
		// Streams start at spread phases, as independent models' do: in
		// lockstep every delta of 200 streams would come in one burst.
		n := count.Add(1)
		time.Sleep(time.Duration(n%20) * pace / 20)
		tick := time.NewTicker(pace)
		defer tick.Stop()
		for range deltas {
			<-tick.C
			fmt.Fprintf(w, "data: %s\n\n", openaitest.Text("t"+strconv.FormatInt(time.Now().UnixNano(), 10)+" "))
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, "data: %s\n\ndata: %s\n\ndata: %s\n\n", openaitest.Chunk(`{}`, "stop"), openaitest.Usage(10, 3), openaitest.Done)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// barrier holds its arrivals until n have come, then lets them all go.
type barrier struct {
	mu   sync.Mutex
	n    int
	open chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, open: make(chan struct{})} }

func (g *barrier) arrive() {
	g.mu.Lock()
	g.n--
	if g.n == 0 {
		close(g.open)
	}
	open := g.open
	g.mu.Unlock()
	<-open
}

// reset closes the barrier again for n arrivals.
func (g *barrier) reset(n int) {
	g.mu.Lock()
	g.n, g.open = n, make(chan struct{})
	g.mu.Unlock()
}

// BenchmarkConcurrentStreams: 200 sessions stream at once on the agent
// route, a model's 50 tokens a second each (a delta every 20 ms: 10,000
// events a second in all), and the sessions' starts are spread over an
// answer's length. The latency Moteur adds to each delta is the time from
// the model's write to the client's read (provider, engine, fan-out, SSE,
// two loopback hops); the deltas counted are those the model wrote in the
// window when all 200 were streaming. The server runs with moteur serve's
// collector target (TuneGC).
//
//   - turnover: answers of 250 tokens, each session asks twice in a row,
//     so that while most stream others open, persist their answer and
//     close (40 turns start and end each second);
//   - streaming: answers of 750 tokens, asked once, counted in their
//     middle third, when no turn starts or ends.
func BenchmarkConcurrentStreams(b *testing.B) {
	defer TuneGC(func(string) string { return "" })()
	b.Run("turnover", func(b *testing.B) { benchStreams(b, 250, 2, 1) })
	b.Run("streaming", func(b *testing.B) { benchStreams(b, 750, 1, 3) })
}

// benchStreams runs 200 sessions that each ask turns questions of deltas
// tokens; the window counted is an answer's length divided by part, from
// that long after the first start.
func benchStreams(b *testing.B, deltas, turns, part int) {
	const sessions, pace = 200, 20 * time.Millisecond
	window := time.Duration(deltas) * pace / time.Duration(part)
	ts := newBenchServer(b, stampedModel(b, deltas, pace, nil).URL+"/v1")
	var lat []time.Duration
	var mu sync.Mutex
	n := 0
	for b.Loop() {
		start := time.Now()
		from, to := start.Add(window), start.Add(2*window)
		var wg sync.WaitGroup
		for i := range sessions {
			wg.Add(1)
			// The arrivals' schedule: session i starts i/200 of the
			// window after the first.
			time.AfterFunc(time.Duration(i)*window/sessions, func() {
				defer wg.Done()
				id := fmt.Sprintf("s-bench-%d-%d", n, i)
				for range turns {
					got := ts.streamStamps(b, id)
					mu.Lock()
					for _, st := range got {
						if !st.written.Before(from) && st.written.Before(to) {
							lat = append(lat, st.latency)
						}
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		n++
	}
	reportLatencies(b, lat, n)
}

// BenchmarkStreamsEndingTogether: the worst case of the above, 200
// answers of 50 deltas that start within 20 ms of each other, and so end
// within 20 ms too: the last deltas of the later ones wait behind the
// others' end of turn (their answer and usage persisted, their audit log
// sealed, the session closed), on 2 cores.
func BenchmarkStreamsEndingTogether(b *testing.B) {
	defer TuneGC(func(string) string { return "" })()
	const sessions, deltas = 200, 50
	gate := newBarrier(sessions)
	ts := newBenchServer(b, stampedModel(b, deltas, 20*time.Millisecond, gate).URL+"/v1")
	var lat []time.Duration
	var mu sync.Mutex
	n := 0
	for b.Loop() {
		gate.reset(sessions)
		var wg sync.WaitGroup
		for i := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got := ts.streamStamps(b, fmt.Sprintf("s-burst-%d-%d", n, i))
				mu.Lock()
				for _, st := range got {
					lat = append(lat, st.latency)
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		n++
	}
	reportLatencies(b, lat, n)
}

func reportLatencies(b *testing.B, lat []time.Duration, ops int) {
	slices.Sort(lat)
	if len(lat) == 0 {
		b.Fatal("no delta measured")
	}
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs/event")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs/event")
	b.ReportMetric(float64(len(lat))/float64(ops), "events/op")
}

// stamp is one delta read off Moteur's stream: when the model wrote it,
// and how long it took to reach the client.
type stamp struct {
	written time.Time
	latency time.Duration
}

// streamStamps asks one question and returns the stamps of the deltas
// it reads.
func (ts *benchServer) streamStamps(b testing.TB, id string) []stamp {
	resp := ts.post(b, "/api/v1/agent-chat/"+id, `{"query":"go"}`)
	defer resp.Body.Close()
	var out []stamp
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || !strings.Contains(data, `"AssistantDelta"`) {
			continue
		}
		now := time.Now()
		// The stamps are read off the JSON without decoding it all: the
		// client's work is the benchmark's, not Moteur's, and it shares
		// the 2 cores.
		_, text, ok := strings.Cut(data, `"text":"`)
		if text, _, _ = strings.Cut(text, `"`); !ok {
			b.Errorf("delta without a text: %s", data)
			return out
		}
		for _, f := range strings.Fields(text) {
			if ns, err := strconv.ParseInt(strings.TrimPrefix(f, "t"), 10, 64); err == nil {
				w := time.Unix(0, ns)
				out = append(out, stamp{written: w, latency: now.Sub(w)})
			}
		}
	}
	return out
}

// BenchmarkIdleFollowers: the memory each idle follower of a session
// costs (a page left open on a session, GET …/events with nothing new).
// A session with no turn and no follower costs nothing: it is closed
// between turns.
func BenchmarkIdleFollowers(b *testing.B) {
	const followers = 200
	ts := newBenchServer(b, stampedModel(b, 1, time.Millisecond, nil).URL+"/v1")
	ids := make([]string, followers)
	for i := range ids {
		ids[i] = fmt.Sprintf("s-idle-%d", i)
		resp := ts.post(b, "/api/v1/agent-chat/"+ids[i], `{"query":"hello"}`)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for b.Loop() {
		before := heapInUse()
		ctx, cancel := context.WithCancel(context.Background())
		var open sync.WaitGroup
		for _, id := range ids {
			open.Add(1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, "GET", ts.http.URL+"/api/v1/sessions/"+id+"/events", nil)
				req.Header.Set("X-API-Key", ts.key)
				resp, err := ts.http.Client().Do(req)
				if err != nil {
					b.Error(err)
					open.Done()
					return
				}
				// The stored events are sent first: once TurnCompleted is
				// read, the follower is idle.
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() && sc.Text() != "event: TurnCompleted" {
				}
				open.Done()
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}()
		}
		open.Wait()
		b.ReportMetric(float64(heapInUse()-before)/followers, "heap-B/follower")
		b.ReportMetric(float64(runtime.NumGoroutine())/followers, "goroutines/follower")
		cancel()
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// BenchmarkQuickAnswerFirstByte: time to the first byte of a quick answer
// (POST /api/v1/knowledge-chat) over 200 documents, with no model: the
// extractive answer quotes the passages.
func BenchmarkQuickAnswerFirstByte(b *testing.B) {
	ts := newBenchServer(b, "")
	ts.benchBase(b, 200)
	var ttfb []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		resp := ts.post(b, "/api/v1/knowledge-chat/"+fmt.Sprintf("s-quick-%d", i), `{"query":"how is the lease renewed?"}`)
		var one [1]byte
		if _, err := io.ReadFull(resp.Body, one[:]); err != nil {
			b.Fatal(err)
		}
		ttfb = append(ttfb, time.Since(start))
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		i++
	}
	slices.Sort(ttfb)
	b.ReportMetric(float64(ttfb[len(ttfb)/2].Microseconds()), "p50-ttfb-µs")
	b.ReportMetric(float64(ttfb[len(ttfb)*99/100].Microseconds()), "p99-ttfb-µs")
}

// benchServer is a Server for benchmarks: the test server's set-up, on a
// model at baseURL ("": none).
type benchServer struct{ *testServer }

func newBenchServer(b *testing.B, baseURL string) *benchServer {
	b.Helper()
	ts := newTestServer(b, testOptions{})
	if baseURL == "" {
		delete(ts.env, "MOTEUR_BASE_URL")
		delete(ts.env, "MOTEUR_MODEL")
	} else {
		ts.env["MOTEUR_BASE_URL"] = baseURL
	}
	return &benchServer{ts}
}

func (ts *benchServer) post(b testing.TB, path, body string) *http.Response {
	req, err := http.NewRequest("POST", ts.http.URL+path, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", ts.key)
	resp, err := ts.http.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		b.Fatalf("POST %s: %d %s", path, resp.StatusCode, msg)
	}
	return resp
}

// benchBase makes a knowledge base of n small documents.
func (ts *benchServer) benchBase(b *testing.B, n int) {
	dir := b.TempDir()
	var paths []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("doc-%03d.md", i))
		text := fmt.Sprintf("# Note %d\n\nThe lease of session %d is renewed by its heartbeat every few seconds; "+
			"a process that dies lets it expire, and another takes it over.\n", i, i)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	st, err := kb.Open(context.Background(), kb.Config{Path: session.DefaultPath(ts.home)})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Create(context.Background(), "docs", kb.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.Ingest(context.Background(), "docs", paths, kb.IngestOptions{}); err != nil {
		b.Fatal(err)
	}
}
