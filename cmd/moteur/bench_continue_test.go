package main

// Continuing a long session: the figures of the issue, "same machine, same
// run". BenchmarkContinue runs the real moteur binary, as a user would,
// on a new session and on stored sessions of about 10 000 and 100 000
// events, and reports the time from the process's start to the model's
// first request and the process's peak RSS. BenchmarkContinueInProcess
// runs the same command in this process, for a CPU profile (go test
// -cpuprofile) and -benchmem's figures.
//
// The stored sessions are made by generateLongSessions: a real engine (the
// public API) with a model and tools of this file, whose events go to the
// sinks of a real session (the audit log under the at-rest key, the store
// with each event's audit head, the transcript) and whose Deps.Store is
// the store, so that snapshots are written as in real use. Each "process"
// of the generation opens the session the way app does, runs turns, and
// closes it. Generation takes minutes (measured on 2 shared cores: 24 s to
// 10 000 events, 6 min 15 s to 100 000; the store fsyncs every event, and
// each process verifies the whole audit log when it opens it): set
// MOTEUR_BENCH_CACHE to a directory to keep the generated sessions there
// and reuse them in later runs (remove it after changing the generator or
// the events' format). Without it they are generated again by every
// top-level run of a benchmark (with -count N, N times).
//
// Each iteration starts from a fresh copy of the generated data directory
// (fsynced, untimed), so every run continues the same stored session.
//
//	go test ./cmd/moteur -run '^$' -bench 'BenchmarkContinue$' -benchtime 1x -count 5 -timeout 60m
//	go test ./cmd/moteur -run '^$' -bench 'BenchmarkContinueInProcess/100k' -benchtime 1x -count 3 -benchmem -cpuprofile cpu.out

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/engine"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
	"github.com/moteur/moteur/tools"
)

const (
	// benchSessionID is the generated session's id.
	benchSessionID = "s-20260101T090000-00000000bench001"
	// benchWindow is the generator's context window: small enough that
	// the history is compacted every six or seven turns (about 65 events),
	// as in a real long session (the live context stays bounded while the
	// log grows).
	benchWindow = 32000
	// benchRunWindow is the window the binary runs with: above the
	// generator's, so that the system prompt and the tools of the real
	// binary (larger than the generator's) do not make the continued
	// turn compact before its first request.
	benchRunWindow = 48000
	// benchProcessEvents is how many events one "process" of the
	// generation appends before it closes the session and another opens
	// it (each records its SessionStarted, and reads the session back
	// from the latest snapshot).
	benchProcessEvents = 10_000
)

// benchSizes are the stored sessions of the benchmarks, by name.
var benchSizes = []struct {
	name   string
	events int
}{{"10k", 10_000}, {"100k", 100_000}}

// longSessions are the generated data directories: one per size, sharing
// the at-rest key's directory, and the project they ran in.
type longSessions struct {
	root    string
	config  string         // XDG_CONFIG_HOME: the at-rest key
	project string         // the project root the session ran in
	homes   map[int]string // MOTEUR_HOME of each size, by target
	events  map[int]uint64 // the last seq of each
	took    time.Duration  // generation time (0: read from the cache)
}

var (
	longOnce sync.Once
	longGen  *longSessions
	longErr  error
)

// generatedSessions returns the stored sessions: generated once into
// MOTEUR_BENCH_CACHE when it is set, and then reused by later runs; else
// generated into a directory of the calling benchmark, removed after it.
func generatedSessions(b *testing.B) *longSessions {
	b.Helper()
	cache := os.Getenv("MOTEUR_BENCH_CACHE")
	if cache == "" {
		root := b.TempDir()
		ls, err := generateLongSessions(b, root)
		if err != nil {
			b.Fatal(err)
		}
		return ls
	}
	longOnce.Do(func() { longGen, longErr = generateLongSessions(b, cache) })
	if longErr != nil {
		b.Fatal(longErr)
	}
	return longGen
}

// generateLongSessions makes, under root, the data directory of each size
// in benchSizes, or reads them back when a previous run left them
// complete (root/done).
func generateLongSessions(b *testing.B, root string) (*longSessions, error) {
	ls := &longSessions{root: root, config: filepath.Join(root, "config"), project: filepath.Join(root, "project"),
		homes: map[int]string{}, events: map[int]uint64{}}
	for _, s := range benchSizes {
		ls.homes[s.events] = filepath.Join(root, s.name, "home")
	}
	if data, err := os.ReadFile(filepath.Join(root, "done")); err == nil {
		if err := json.Unmarshal(data, &ls.events); err == nil && len(ls.events) == len(benchSizes) {
			b.Logf("generated sessions read back from %s: %v events", root, ls.events)
			return ls, nil
		}
	}
	if err := os.MkdirAll(ls.project, 0o700); err != nil {
		return nil, err
	}
	ctx := context.Background()
	work := filepath.Join(root, "gen", "home")
	_ = os.RemoveAll(filepath.Join(root, "gen"))
	g, err := newGenerator(ls.config, work, ls.project)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	for _, s := range benchSizes {
		t0 := time.Now()
		seq, err := g.runUntil(ctx, uint64(s.events))
		if err != nil {
			return nil, err
		}
		_ = os.RemoveAll(filepath.Dir(ls.homes[s.events]))
		if err := copyTree(work, ls.homes[s.events]); err != nil {
			return nil, err
		}
		ls.events[s.events] = seq
		b.Logf("generated %d events (seq %d) in %v (%v since the last size); %d turns, %d summary requests so far",
			s.events, seq, time.Since(start).Round(time.Millisecond), time.Since(t0).Round(time.Millisecond), g.turns, g.model.summaries.Load())
	}
	ls.took = time.Since(start)
	_ = os.RemoveAll(filepath.Join(root, "gen"))
	data, _ := json.Marshal(ls.events)
	if err := os.WriteFile(filepath.Join(root, "done"), data, 0o600); err != nil {
		return nil, err
	}
	return ls, nil
}

// generator appends turns to one session, process after process.
type generator struct {
	home    string
	project string
	key     *atrest.Key
	model   *benchModel
	reg     *tools.Registry
	turns   int
	seq     uint64
}

func newGenerator(config, home, project string) (*generator, error) {
	env := map[string]string{"MOTEUR_HOME": home, "XDG_CONFIG_HOME": config}
	key, err := app.AtRestKey(envMap(env), home, true)
	if err != nil {
		return nil, err
	}
	reg := tools.NewRegistry(tools.Config{})
	for _, t := range []tools.Tool{&benchTool{name: "read_file", arg: "path"}, &benchTool{name: "grep", arg: "pattern"}} {
		if err := reg.Register(t); err != nil {
			return nil, err
		}
	}
	return &generator{home: home, project: project, key: key, model: &benchModel{}, reg: reg}, nil
}

// runUntil runs processes of at most benchProcessEvents events each until
// the session reaches seq target (it ends with a whole turn, a few events
// past it), and returns the last seq.
func (g *generator) runUntil(ctx context.Context, target uint64) (uint64, error) {
	for g.seq < target {
		if err := g.process(ctx, min(target, g.seq+benchProcessEvents)); err != nil {
			return g.seq, err
		}
	}
	return g.seq, nil
}

// process opens the session as app does (openLiveSession: the store, the
// lease, the audit log verified against the stored heads, the transcript),
// runs turns with a new engine until the session reaches seq until, and
// closes everything.
func (g *generator) process(ctx context.Context, until uint64) (err error) {
	id := benchSessionID
	st, err := app.Database{Home: g.home}.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	lease, err := st.Acquire(ctx, id)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, lease.Release()) }()
	stored, err := app.StoredAudit(ctx, st, id)
	if err != nil {
		return err
	}
	// Not fsynced after every record (the binary does): the file is the
	// same, and the generation is faster.
	audit, err := event.OpenAudit(event.AuditConfig{Path: app.AuditPath(g.home, id), Key: g.key.Subkey(atrest.PurposeAudit),
		SessionID: id, Store: stored})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, audit.Close()) }()
	if len(audit.Unstored()) > 0 {
		return errors.New("the audit log is ahead of the store")
	}
	tpath := app.TranscriptPath(g.home, id)
	if err := os.MkdirAll(filepath.Dir(tpath), 0o700); err != nil {
		return err
	}
	transcript, err := event.OpenJSONL(event.JSONLConfig{Path: tpath})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, transcript.Close()) }()
	eng, err := engine.New(engine.Deps{
		Provider: g.model, Tools: g.reg, ProjectRoot: g.project, Lang: i18n.EN, ContextWindow: benchWindow,
		Sinks: []event.Sink{audit, session.Sink{Store: st, Heads: audit}, transcript},
		Store: st, RetryDelays: []time.Duration{},
	})
	if err != nil {
		return err
	}
	for {
		g.turns++
		if err := eng.Submit(ctx, id, benchPrompt(g.turns)); err != nil {
			return fmt.Errorf("turn %d: %w", g.turns, err)
		}
		info, err := st.Info(ctx, id)
		if err != nil {
			return err
		}
		g.seq = info.LastSeq
		if g.seq >= until {
			return nil
		}
	}
}

// benchPrompt is the user's n-th message.
func benchPrompt(n int) string {
	topics := []string{"the session store", "the audit chain", "the compaction of the history", "the sandbox of the shell",
		"the rewind of a code change", "the provider router", "the knowledge bases", "the transcript"}
	return fmt.Sprintf("Question %d: look at how %s handles a failure in the middle of a write, and tell me what a user sees, "+
		"what is logged, and whether the next command recovers without losing anything. Cite the files and functions.",
		n, topics[n%len(topics)])
}

// benchModel answers like a model working on a code base: each turn a
// few rounds of two tool calls (one to four rounds, by turn), then an
// answer; a summary when asked for one (a compaction). Its usage is an
// estimate of the prompt, as a server would report.
type benchModel struct {
	calls     atomic.Int64
	summaries atomic.Int64
}

func (*benchModel) Name() string  { return "openai" }
func (*benchModel) Model() string { return "test-model" }

func (m *benchModel) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	n := m.calls.Add(1)
	r := rand.New(rand.NewPCG(uint64(n), 7))
	prompt := 0
	for _, msg := range req.Messages {
		prompt += (len(msg.Content) + len(msg.Reasoning)) / 4
		for _, c := range msg.ToolCalls {
			prompt += (len(c.Name) + len(c.Arguments)) / 4
		}
	}
	resp := llm.Response{Model: "test-model", Finish: llm.FinishStop, RawFinish: "stop"}
	// Rounds of this turn so far, and which turn it is (one to four rounds
	// a turn).
	rounds, users := 0, 0
	for i := len(req.Messages) - 1; i >= 0; i-- {
		msg := req.Messages[i]
		if msg.Role == llm.RoleUser {
			users = len(msg.Content)
			break
		}
		if msg.Role == llm.RoleAssistant && len(msg.ToolCalls) > 0 {
			rounds++
		}
	}
	switch {
	case req.ToolChoice == llm.ToolChoiceNone:
		m.summaries.Add(1)
		resp.Text = "The user is reviewing how the project recovers from failed writes. So far: " + prose(r, 900) +
			"\nOpen questions: " + prose(r, 300)
	case rounds < 1+users%4:
		resp.Reasoning = prose(r, 200)
		resp.Text = "Let me look at the code."
		resp.Finish, resp.RawFinish = llm.FinishToolCalls, "tool_calls"
		for i, t := range []string{"read_file", "grep"} {
			arg := "path"
			if t == "grep" {
				arg = "pattern"
			}
			// A project of 384 files (the compaction's summary lists
			// every file read, so the files read must be a real
			// project's, not an endless supply); grep looks for a word.
			val := fmt.Sprintf("internal/%s/%s.go", words[r.IntN(24)], words[24+r.IntN(16)])
			if t == "grep" {
				val = words[r.IntN(len(words))]
			}
			args, _ := json.Marshal(map[string]string{arg: val})
			resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: fmt.Sprintf("call_%d_%d", n, i), Name: t, Arguments: string(args)})
		}
	default:
		resp.Reasoning = prose(r, 400)
		resp.Text = "Here is what happens. " + prose(r, 700) + "\n\nIn short: " + prose(r, 150)
	}
	if onDelta != nil {
		onDelta(llm.Delta{})
		for _, piece := range chunks(resp.Reasoning, 64) {
			onDelta(llm.Delta{Reasoning: piece})
		}
		for _, piece := range chunks(resp.Text, 64) {
			onDelta(llm.Delta{Text: piece})
		}
		for i, c := range resp.ToolCalls {
			onDelta(llm.Delta{ToolCall: &llm.ToolCallDelta{Index: i, ID: c.ID, Name: c.Name, Arguments: c.Arguments}})
		}
	}
	completion := (len(resp.Text) + len(resp.Reasoning)) / 4
	resp.Usage = &llm.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	return resp, nil
}

// chunks cuts s into pieces of at most n bytes (at rune boundaries: the
// text is ASCII).
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

var words = strings.Fields(`store audit chain record head event seq session lease engine turn round tool result model
	request stream delta snapshot compaction summary history window token budget sandbox shell command file path
	write read error retry timeout context cancel process crash recover verify key subkey transcript reducer state`)

// prose is about n bytes of sentences.
func prose(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		k := 6 + r.IntN(10)
		for i := range k {
			w := words[r.IntN(len(words))]
			if i == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
			if i < k-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(". ")
	}
	return b.String()
}

// benchTool stands for read_file and grep: a result of 1 to 2 KB of code.
type benchTool struct {
	name, arg string
	n         atomic.Int64
}

func (t *benchTool) Name() string        { return t.name }
func (t *benchTool) Description() string { return "Benchmark stand-in for " + t.name }
func (t *benchTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"` + t.arg + `":{"type":"string"}},"required":["` + t.arg + `"]}`)
}
func (t *benchTool) Risk() effect.Risk { return effect.RiskRead }
func (t *benchTool) Concurrent() bool  { return true }
func (t *benchTool) Execute(_ context.Context, args json.RawMessage) (tools.Result, error) {
	n := t.n.Add(1)
	r := rand.New(rand.NewPCG(uint64(n), uint64(len(t.name))))
	size := 1024 + r.IntN(1024)
	var b strings.Builder
	for line := 1; b.Len() < size; line++ {
		a, c := words[r.IntN(len(words))], words[r.IntN(len(words))]
		switch r.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "%4d\tfunc (s *%s) %s%s(ctx context.Context, n int) error {\n", line, a, strings.ToUpper(c[:1]), c[1:])
		case 1:
			fmt.Fprintf(&b, "%4d\t\tif err := s.%s.%s(ctx); err != nil {\n", line, a, c)
		case 2:
			fmt.Fprintf(&b, "%4d\t\t\treturn fmt.Errorf(\"%s %s: %%w\", err)\n", line, a, c)
		default:
			fmt.Fprintf(&b, "%4d\t// %s\n", line, prose(r, 40))
		}
	}
	return tools.Result{Content: b.String()}, nil
}

// copyTree copies the directory src to dst (regular files and
// directories, with their modes), fsynced.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(target, info.Mode().Perm())
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, info.Mode().Perm())
		if err != nil {
			return err
		}
		_, err = io.Copy(out, in)
		if err == nil {
			// Written back now, untimed: a copy left dirty in the page
			// cache would be written back by the first fsync of the run
			// (the audit log's at SessionStarted, before the first
			// request), which a session stored long ago never costs.
			err = out.Sync()
		}
		return errors.Join(err, out.Close())
	})
}

// firstRequest is a scripted server that notes when its first request
// arrives, and answers every request.
type firstRequest struct {
	srv   *openaitest.Server
	first atomic.Int64 // UnixNano of the first request's arrival, 0 before
}

func newFirstRequest(b *testing.B) *firstRequest {
	f := &firstRequest{}
	note := func(w http.ResponseWriter, r *http.Request) {
		f.first.CompareAndSwap(0, time.Now().UnixNano())
		openaitest.Answer("The answer to the next question.")(w, r)
	}
	// A continued turn sends one request; a few more are answered in case
	// the binary compacts first.
	f.srv = openaitest.NewServer(b, note, note, note, note)
	return f
}

// iteration is one run's data directory, a fresh copy.
type iteration struct {
	env  map[string]string
	args []string
	dir  string // removed after the iteration
}

// benchCase is a sub-benchmark: a data directory (a copy of a generated
// one, or none: a first run) and a new or a continued session.
type benchCase struct {
	name   string
	from   int  // the generated size copied (0: an empty data directory)
	resume bool // --session: the stored session is continued
	// unsealed: the copied log has no seal that fits it, as after a crash
	// or a restore from a backup, and the run verifies it whole. The
	// other continued cases are sealed first, as the process that ran the
	// previous turn leaves a log it closed.
	unsealed bool
}

var benchCases = []benchCase{
	{"new", 0, false, false},                   // a first run: no store yet
	{"new-in-100k-dir", 100_000, false, false}, // a new session beside the 100k one
	{"10k", 10_000, true, false},
	{"100k", 100_000, true, false},
	{"100k-unsealed", 100_000, true, true},
}

// seal does, untimed, what the process that ran the session's previous
// turn did when it closed the session's audit log: verify it whole (it was
// just copied, so no seal fits it) and seal it.
func seal(b *testing.B, env map[string]string, home string) {
	b.Helper()
	key, err := app.AtRestKey(func(k string) string { return env[k] }, home, false)
	if err != nil {
		b.Fatal(err)
	}
	st, err := app.Database{Home: home}.OpenStore(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	stored, err := app.StoredAudit(b.Context(), st, benchSessionID)
	if err != nil {
		b.Fatal(err)
	}
	a, err := event.OpenAudit(event.AuditConfig{Path: app.AuditPath(home, benchSessionID),
		Key: key.Subkey(atrest.PurposeAudit), SessionID: benchSessionID, Store: stored})
	if err != nil {
		b.Fatal(err)
	}
	if err := a.Close(); err != nil {
		b.Fatal(err)
	}
}

// prepare copies the data directory of c and returns the environment and
// the arguments of its `moteur run`.
func prepare(b *testing.B, ls *longSessions, c benchCase, baseURL string) iteration {
	b.Helper()
	dir, err := os.MkdirTemp(ls.root, "run-")
	if err != nil {
		b.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	if c.from > 0 {
		err = copyTree(ls.homes[c.from], home)
	} else {
		// The at-rest key exists (XDG_CONFIG_HOME): the data directory
		// gets its key id, its store, its first session.
		err = os.MkdirAll(home, 0o700)
	}
	if err != nil {
		b.Fatal(err)
	}
	args := []string{"run", "next question: and the tests?"}
	if c.resume {
		args = []string{"run", "--session", benchSessionID, "next question: and the tests?"}
	}
	env := map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": filepath.Join(ls.root, "userhome"), "MOTEUR_HOME": home,
		"XDG_CONFIG_HOME": ls.config, "MOTEUR_LANG": "en", "MOTEUR_BASE_URL": baseURL, "MOTEUR_MODEL": "test-model",
		"MOTEUR_API_KEY": "sk-bench", "MOTEUR_CONTEXT_WINDOW": strconv.Itoa(benchRunWindow),
	}
	if c.resume && !c.unsealed {
		seal(b, env, home)
	}
	return iteration{env: env, args: args, dir: dir}
}

// BenchmarkContinue runs `moteur run` (the real binary) on a new session
// and on each stored session, from a fresh copy of its data directory
// each iteration (the copy is not timed): ns/op is the process's run,
// ms-to-first-request the time from its start to the model's first
// request, MB-peak-RSS its peak resident set (GNU time's %M: the
// process's own, as ru_maxrss of a child forked from a small process),
// ms-cpu the CPU time (user and system) of its whole run.
func BenchmarkContinue(b *testing.B) {
	bin := benchBinary(b)
	timeTool, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		b.Skipf("skipped: GNU time measures the peak RSS (%v)", err)
	}
	ls := generatedSessions(b)
	if ls.took > 0 {
		b.Logf("generation: %v", ls.took.Round(time.Millisecond))
	}
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			var toFirst time.Duration
			var rss, rssSum int64 // KB
			var cpu time.Duration // user + system, the whole run
			requests := 0
			b.StopTimer()
			for range b.N {
				srv := newFirstRequest(b)
				it := prepare(b, ls, c, srv.srv.BaseURL())
				// Through GNU time: the rusage of a child Go starts
				// (vfork, then exec) counts the parent's resident set,
				// the test process's, in its Maxrss; time's own child
				// is forked from time, whose resident set is tiny.
				rssFile := filepath.Join(it.dir, "rss")
				cmd := exec.Command(timeTool, append([]string{"-f", "%M %U %S", "-o", rssFile, bin}, it.args...)...)
				cmd.Dir = ls.project
				for k, v := range it.env {
					cmd.Env = append(cmd.Env, k+"="+v)
				}
				var stdout, stderr strings.Builder
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				b.StartTimer()
				start := time.Now()
				err := cmd.Run()
				b.StopTimer()
				if err != nil {
					b.Fatalf("moteur %v: %v\nstderr:\n%s", it.args, err, stderr.String())
				}
				first := srv.first.Load()
				if first == 0 {
					b.Fatalf("moteur %v sent no request\nstderr:\n%s", it.args, stderr.String())
				}
				toFirst += time.Unix(0, first).Sub(start)
				usage, err := os.ReadFile(rssFile)
				if err != nil {
					b.Fatal(err)
				}
				var kb int64
				var user, sys float64
				if _, err := fmt.Sscan(string(usage), &kb, &user, &sys); err != nil {
					b.Fatalf("%s: %q: %v", timeTool, usage, err)
				}
				rss = max(rss, kb)
				rssSum += kb
				cpu += time.Duration((user + sys) * float64(time.Second))
				requests += len(srv.srv.Requests())
				checkRun(b, ls, c, it)
				_ = os.RemoveAll(it.dir)
			}
			b.ReportMetric(float64(toFirst.Microseconds())/1000/float64(b.N), "ms-to-first-request")
			b.ReportMetric(float64(rssSum)/1024/float64(b.N), "MB-peak-RSS")
			// Less sensitive to a loaded machine than the wall times
			// (GNU time's resolution: 10 ms).
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "ms-cpu")
			if b.N > 1 {
				b.ReportMetric(float64(rss)/1024, "MB-peak-RSS-max")
			}
			b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
			if c.resume {
				b.ReportMetric(float64(ls.events[c.from]), "events")
			}
		})
	}
}

// BenchmarkContinueInProcess runs the same `moteur run` in this process
// (the command tree, as harness.run does), so that a CPU profile and
// -benchmem see what continuing costs. ns/op is the command's run,
// ms-to-first-request from its start to the model's first request; the
// copy of the data directory is not timed (its allocations are counted,
// and are small: io.Copy's buffers).
func BenchmarkContinueInProcess(b *testing.B) {
	ls := generatedSessions(b)
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			var toFirst time.Duration
			b.ReportAllocs()
			b.StopTimer()
			for range b.N {
				srv := newFirstRequest(b)
				it := prepare(b, ls, c, srv.srv.BaseURL())
				var out, errOut strings.Builder
				cli := newCLI(envMap(it.env), strings.NewReader(""), &out, &errOut)
				cli.workDir = func() (string, error) { return ls.project, nil }
				b.StartTimer()
				start := time.Now()
				code := cli.execute(context.Background(), it.args)
				b.StopTimer()
				if code != 0 {
					b.Fatalf("moteur %v: exit %d\nstderr:\n%s", it.args, code, errOut.String())
				}
				first := srv.first.Load()
				if first == 0 {
					b.Fatalf("moteur %v sent no request", it.args)
				}
				toFirst += time.Unix(0, first).Sub(start)
				checkRun(b, ls, c, it)
				_ = os.RemoveAll(it.dir)
			}
			b.ReportMetric(float64(toFirst.Microseconds())/1000/float64(b.N), "ms-to-first-request")
		})
	}
}

// checkRun fails unless the run stored one complete turn after the
// session's events, continuing it from its snapshot (a snapshot set aside
// would make the engine read every event: another benchmark).
func checkRun(b *testing.B, ls *longSessions, c benchCase, it iteration) {
	b.Helper()
	if !c.resume {
		return
	}
	ctx := context.Background()
	st, err := session.OpenSQLite(ctx, session.SQLiteConfig{Path: session.DefaultPath(it.env["MOTEUR_HOME"])})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	evs, err := st.LoadFrom(ctx, benchSessionID, ls.events[c.from])
	if err != nil {
		b.Fatal(err)
	}
	completed := false
	for _, e := range evs {
		if w, ok := e.Payload.(event.WarningPayload); ok && w.Kind == "snapshot" {
			b.Fatalf("the continued session did not start from its snapshot: %s", w.Message)
		}
		completed = completed || e.Type == event.TurnCompleted
	}
	if !completed {
		b.Fatalf("the continued session stored %d events and no TurnCompleted", len(evs))
	}
}

// benchBinary builds the moteur binary as released (no test tools) into
// a directory removed when the benchmark ends.
func benchBinary(b *testing.B) string {
	b.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		b.Skipf("skipped: the go command is not on PATH (%v)", err)
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "moteur")
	if out, err := exec.Command(goTool, "build", "-buildvcs=false", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkSubscribeSessionBackfill100k: a follower (Engine.SubscribeSession)
// reads the generated 100 000-event session back from its store (real
// SQLite), from its first event to its last, a page at a time.
func BenchmarkSubscribeSessionBackfill100k(b *testing.B) {
	ls := generatedSessions(b)
	last := ls.events[100_000]
	ctx := context.Background()
	st, err := session.OpenSQLite(ctx, session.SQLiteConfig{Path: session.DefaultPath(ls.homes[100_000])})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	e, err := engine.New(engine.Deps{Store: st})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var got uint64
	for b.Loop() {
		fctx, cancel := context.WithCancel(ctx)
		ch, err := e.SubscribeSession(fctx, benchSessionID, 0)
		if err != nil {
			b.Fatal(err)
		}
		var seq uint64
		for ev := range ch {
			if ev.Ephemeral {
				b.Fatalf("ephemeral event during the backfill: %+v", ev)
			}
			if ev.Seq != seq+1 {
				b.Fatalf("seq %d after %d", ev.Seq, seq)
			}
			seq = ev.Seq
			got++
			if seq == last {
				break
			}
		}
		cancel()
		for range ch { // the follower ends, closing ch
		}
		if seq != last {
			b.Fatalf("the follower stopped at seq %d of %d", seq, last)
		}
	}
	b.ReportMetric(float64(got)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(last), "events")
}
