package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/moteur/moteur/cmd/moteur/tui"
	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/tools"
)

// tuiBlockTool tells the test it runs, then blocks until its call is
// cancelled.
type tuiBlockTool struct{ started chan struct{} }

func (tuiBlockTool) Name() string        { return "tui_block" }
func (tuiBlockTool) Description() string { return "Test tool: blocks until cancelled." }
func (tuiBlockTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (tuiBlockTool) Risk() effect.Risk { return effect.RiskRead }
func (tuiBlockTool) Concurrent() bool  { return false }
func (t tuiBlockTool) Execute(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
	close(t.started)
	<-ctx.Done()
	return tools.Result{}, ctx.Err()
}

// tuiRun is a chat interface run in-process: keys written to its input,
// and every message its model receives seen by the test.
type tuiRun struct {
	keys  *io.PipeWriter
	msgs  chan tea.Msg
	done  chan error
	agent *agent
}

// startTUI opens a session of h (flags as on the command line) and runs the
// interface on it, 80×24, until the test's keys quit it.
func startTUI(t *testing.T, h *harness, flags ...string) *tuiRun {
	t.Helper()
	c := newCLI(envMap(h.env), nil, io.Discard, io.Discard)
	c.workDir = func() (string, error) { return h.dir, nil }
	c.stdinTTY = true
	c.tools = append(c.tools, h.tools...)
	f := &agentFlags{}
	cmd := &cobra.Command{Use: "chat"}
	addAgentFlagsIn(i18n.EN, cmd, f)
	if err := cmd.ParseFlags(flags); err != nil {
		t.Fatal(err)
	}
	f.interactive = true
	ctx := t.Context()
	o, err := c.agentOptions(ctx, &globalFlags{}, f)
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.openAgent(ctx, o, f)
	if err != nil {
		t.Fatal(err)
	}
	in, keys := io.Pipe()
	r := &tuiRun{keys: keys, msgs: make(chan tea.Msg, 4096), done: make(chan error, 1), agent: a}
	filter := func(_ tea.Model, m tea.Msg) tea.Msg {
		switch m.(type) {
		case tui.EventsMsg, tui.TurnDoneMsg:
			r.msgs <- m
		}
		return m
	}
	go func() {
		err := c.chatTUI(ctx, a, tea.WithInput(in), tea.WithOutput(io.Discard), tea.WithWindowSize(80, 24),
			tea.WithFilter(filter), tea.WithoutSignals())
		r.done <- errorsJoin(err, a.end("prompt_input_exit"), a.Close())
	}()
	t.Cleanup(func() { keys.Close() })
	return r
}

func errorsJoin(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func (r *tuiRun) press(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(r.keys, s); err != nil {
		t.Fatal(err)
	}
}

// waitFor waits for a message the model received that ok accepts.
func (r *tuiRun) waitFor(t *testing.T, what string, ok func(tea.Msg) bool) tea.Msg {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-r.msgs:
			if ok(m) {
				return m
			}
		case err := <-r.done:
			t.Fatalf("the interface ended (%v) before %s", err, what)
		case <-deadline:
			t.Fatalf("no %s within 30 s", what)
		}
	}
}

func turnDone(m tea.Msg) bool { _, ok := m.(tui.TurnDoneMsg); return ok }

func (r *tuiRun) wait(t *testing.T) {
	t.Helper()
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatalf("chat: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the interface did not end within 30 s")
	}
}

func TestChatTUICtrlCDuringAToolCallCancelsTheTurnOnly(t *testing.T) {
	started := make(chan struct{})
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "tui_block", `{}`),
		// The second prompt's answer, and one more that a closing request
		// of the cancelled turn would take.
		openaitest.Answer("again answered"), openaitest.Answer("again answered"))
	h := newHarness(t, srv.BaseURL())
	h.tools = append(h.tools, func() tools.Tool { return tuiBlockTool{started: started} })
	r := startTUI(t, h)

	r.press(t, "run it\r")
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the tool call never started")
	}
	r.press(t, "\x03")
	done := r.waitFor(t, "the end of the cancelled turn", turnDone).(tui.TurnDoneMsg)
	if !done.Cancelled || done.Err != nil {
		t.Fatalf("turn ended %+v, want cancelled", done)
	}
	// The chat goes on: a second prompt is answered.
	r.press(t, "again\r")
	if d := r.waitFor(t, "the end of the second turn", turnDone).(tui.TurnDoneMsg); d.Err != nil || d.Cancelled {
		t.Fatalf("second turn: %+v", d)
	}
	r.press(t, "\x03") // on an empty line: quit
	r.wait(t)

	var reasons []string
	for _, e := range h.load(t, r.agent.ID) {
		if p, ok := e.Payload.(event.TurnCompletedPayload); ok {
			reasons = append(reasons, p.Reason)
		}
	}
	if want := []string{event.StopCancelled, event.StopNatural}; !slices.Equal(reasons, want) {
		t.Errorf("turns ended %q, want %q", reasons, want)
	}
	// The cancelled turn sent no further request: one for the first
	// turn, one for the second.
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if last := reqs[len(reqs)-1].Messages; last[len(last)-1].Content != "again" {
		t.Errorf("last request ends with %q, want the second prompt", last[len(last)-1].Content)
	}
}

func TestChatTUIApprovalAnswersThroughTheEngine(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "write_file", `{"path":"a.txt","content":"bonjour\n"}`),
		openaitest.Answer("written"))
	h := newHarness(t, srv.BaseURL())
	r := startTUI(t, h, "--mode", "confirm")
	r.press(t, "write a.txt\r")
	r.waitFor(t, "the permission request", func(m tea.Msg) bool {
		evs, ok := m.(tui.EventsMsg)
		return ok && slices.ContainsFunc(evs, func(e event.Event) bool { return e.Type == event.PermissionRequested })
	})
	r.press(t, "y")
	if d := r.waitFor(t, "the end of the turn", turnDone).(tui.TurnDoneMsg); d.Err != nil {
		t.Fatalf("turn: %v", d.Err)
	}
	r.press(t, "/exit\r")
	r.wait(t)
	b, err := os.ReadFile(filepath.Join(h.dir, "a.txt"))
	if err != nil || string(b) != "bonjour\n" {
		t.Fatalf("a.txt: %q, %v; want the approved write", b, err)
	}
	var resolved []event.PermissionResolvedPayload
	for _, e := range h.load(t, r.agent.ID) {
		if p, ok := e.Payload.(event.PermissionResolvedPayload); ok {
			resolved = append(resolved, p)
		}
	}
	if len(resolved) != 1 || !resolved[0].Allow || resolved[0].By != "user" {
		t.Errorf("resolutions %+v, want one allowed by the user", resolved)
	}
	// The prompt is in the project's history for the next chat.
	hist, err := tui.OpenHistory(tui.HistoryPath(r.agent.Settings.DataDir(), h.dir))
	if err != nil || !slices.Contains(hist.Entries(), "write a.txt") {
		t.Errorf("history %q, %v", hist.Entries(), err)
	}
}

// runBackendTurn runs one turn through b, as the interface does, allowing
// what it asks (y), and returns how it ended.
func runBackendTurn(t *testing.T, b *tuiBackend, prompt string) tui.TurnDoneMsg {
	t.Helper()
	b.mu.Lock()
	n := b.turnN + 1
	b.mu.Unlock()
	if err := b.Start(n, prompt); err != nil {
		t.Fatal(err)
	}
	for {
		switch m := b.Next().(type) {
		case tui.EventsMsg:
			for _, e := range m {
				if p, ok := e.Payload.(event.PermissionRequestedPayload); ok {
					go b.Answer(p.ID, "y")
				}
			}
		case tui.TurnDoneMsg:
			return m
		case nil:
			t.Fatal("backend closed during the turn")
		}
	}
}

func TestChatTUIRewindShowsThePlanAndItsConflicts(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "write_file", `{"path":"a.txt","content":"from the agent\n"}`),
		openaitest.Answer("written"))
	h := newHarness(t, srv.BaseURL())
	b, _ := openTUIBackend(t, h, "--mode", "auto_write")
	if d := runBackendTurn(t, b, "write a.txt"); d.Err != nil || d.Cancelled {
		t.Fatalf("turn: %+v", d)
	}
	// Someone changes the file after the agent: a conflict.
	if err := os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte("changed by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	points := b.RewindPoints()
	if len(points) != 1 || points[0].Prompt != "write a.txt" {
		t.Fatalf("points %+v, want the one of the prompt", points)
	}
	seq := points[0].Seq
	plan, err := b.RewindPlan(seq)
	if err != nil || !strings.Contains(plan, "conflict") || !strings.Contains(plan, "a.txt") {
		t.Fatalf("/rewind %d: %q, %v; want the plan with a.txt in conflict", seq, plan, err)
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "a.txt")); string(b) != "changed by hand\n" {
		t.Errorf("showing the plan changed a.txt: %q", b)
	}
}

func TestChatTUIRewindGoesBack(t *testing.T) {
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "write_file", `{"path":"a.txt","content":"from the agent\n"}`),
		openaitest.Answer("written"))
	h := newHarness(t, srv.BaseURL())
	if err := os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, a := openTUIBackend(t, h, "--mode", "auto_write")
	if d := runBackendTurn(t, b, "write a.txt"); d.Err != nil || d.Cancelled {
		t.Fatalf("turn: %+v", d)
	}
	out, err := b.Rewind(b.RewindPoints()[0].Seq)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(h.dir, "a.txt")); string(got) != "before\n" {
		t.Errorf("a.txt after the rewind: %q, want its content before the turn (%s)", got, out)
	}
	var rewound bool
	for _, e := range h.load(t, a.ID) {
		rewound = rewound || e.Type == event.Rewound
	}
	if !rewound {
		t.Error("no Rewound event stored")
	}
}

// openTUIBackend opens a session of h and the interface's backend on it,
// without the interface.
func openTUIBackend(t *testing.T, h *harness, flags ...string) (*tuiBackend, *agent) {
	t.Helper()
	c := newCLI(envMap(h.env), nil, io.Discard, io.Discard)
	c.workDir = func() (string, error) { return h.dir, nil }
	c.tools = append(c.tools, h.tools...)
	f := &agentFlags{}
	cmd := &cobra.Command{Use: "chat"}
	addAgentFlagsIn(i18n.EN, cmd, f)
	if err := cmd.ParseFlags(flags); err != nil {
		t.Fatal(err)
	}
	o, err := c.agentOptions(t.Context(), &globalFlags{}, f)
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.openAgent(t.Context(), o, f)
	if err != nil {
		t.Fatal(err)
	}
	b := newTUIBackend(t.Context(), c, a)
	t.Cleanup(func() { b.close(); _ = a.Close() })
	return b, a
}

func TestChatTUIResumedSessionShowsItsRecentTurns(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("the first answer"))
	h := newHarness(t, srv.BaseURL())
	h.env["MOTEUR_LANG"] = "en"
	if res := h.run(t, "run", "--new-session", "s-back", "the first question"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	b, a := openTUIBackend(t, h, "--session", "s-back")
	c := newCLI(envMap(h.env), nil, io.Discard, io.Discard)
	m, err := c.tuiModel(t.Context(), a, b)
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 20})
	frame := ansi.Strip(m.Render())
	for _, want := range []string{"continued session", "the first question", "the first answer", "s-back"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the resumed chat's first frame lacks %q:\n%s", want, frame)
		}
	}
}

// BenchmarkChatStartup is the chat's start-up to its prompt in-process:
// the session opened (configuration, store, engine), the history read,
// the first frame drawn.
func BenchmarkChatStartup(b *testing.B) {
	h := &harness{env: map[string]string{
		"MOTEUR_BASE_URL": "http://127.0.0.1:9/v1", "MOTEUR_MODEL": "test-model", "MOTEUR_API_KEY": "sk-moteur",
		"MOTEUR_HOME": b.TempDir(), "XDG_CONFIG_HOME": b.TempDir(),
	}, dir: b.TempDir()}
	c := newCLI(envMap(h.env), nil, io.Discard, io.Discard)
	c.workDir = func() (string, error) { return h.dir, nil }
	ctx := context.Background()
	for b.Loop() {
		f := &agentFlags{}
		cmd := &cobra.Command{Use: "chat"}
		addAgentFlagsIn(i18n.EN, cmd, f)
		o, err := c.agentOptions(ctx, &globalFlags{}, f)
		if err != nil {
			b.Fatal(err)
		}
		a, err := c.openAgent(ctx, o, f)
		if err != nil {
			b.Fatal(err)
		}
		tb := newTUIBackend(ctx, c, a)
		m, err := c.tuiModel(ctx, a, tb)
		if err != nil {
			b.Fatal(err)
		}
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
		_ = m.Render()
		tb.close()
		_ = a.Close()
	}
}

func TestChatTUICtrlCBeforeTheTurnStartsSendsNothing(t *testing.T) {
	// No reply scripted: a request would fail the test.
	srv := openaitest.NewServer(t)
	h := newHarness(t, srv.BaseURL())
	b, _ := openTUIBackend(t, h)
	// The interface's Cancel command ran before its Start command.
	b.Cancel(1)
	if err := b.Start(1, "never sent"); err != nil {
		t.Fatal(err)
	}
	if d, ok := b.Next().(tui.TurnDoneMsg); !ok || !d.Cancelled {
		t.Fatalf("got %#v, want the turn cancelled", d)
	}
	// A stale Cancel leaves the next turn alone.
	srv2 := openaitest.NewServer(t, openaitest.Answer("sent"))
	h2 := newHarness(t, srv2.BaseURL())
	b2, _ := openTUIBackend(t, h2)
	b2.Cancel(0)
	if d := runBackendTurn(t, b2, "sent"); d.Cancelled || d.Err != nil {
		t.Fatalf("turn after a stale Cancel: %+v", d)
	}
	if n := len(srv2.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestChatTUINotesBecomeWarnings(t *testing.T) {
	var got []string
	w := &noteWriter{push: func(m tea.Msg) {
		for _, e := range m.(tui.EventsMsg) {
			got = append(got, e.Payload.(event.WarningPayload).Message)
		}
	}}
	// The question, answered (no end of line), then a note; a warning in
	// two writes; a line that is no note.
	for _, s := range []string{questionText(false), "moteur: no answer in time: write_file was refused\n",
		"moteur: warning: MCP server", " x is slow\n", "Allow? [y]es\n"} {
		if _, err := io.WriteString(w, s); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"no answer in time: write_file was refused", "MCP server x is slow"}
	if !slices.Equal(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
}

// TestChatTUICompactOfAShortSessionSaysSo: /compact reaches the engine
// through the backend, whose CompactDoneMsg says nothing was compacted,
// and no request is sent.
func TestChatTUICompactOfAShortSessionSaysSo(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("bonjour"))
	h := newHarness(t, srv.BaseURL())
	b, a := openTUIBackend(t, h)
	if d := runBackendTurn(t, b, "salut"); d.Err != nil || d.Cancelled {
		t.Fatalf("turn: %+v", d)
	}
	before := len(h.load(t, a.ID))
	go b.Compact()
	for {
		m := b.Next()
		if d, ok := m.(tui.CompactDoneMsg); ok {
			if !d.Nothing || d.Err != nil || d.Busy {
				t.Fatalf("CompactDoneMsg = %+v, want Nothing", d)
			}
			break
		}
		if m == nil {
			t.Fatal("the backend closed before the compaction's end")
		}
	}
	if after := len(h.load(t, a.ID)); after != before {
		t.Errorf("%d events stored by a compaction that did nothing", after-before)
	}
}
