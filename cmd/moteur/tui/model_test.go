package tui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
)

var update = flag.Bool("update", false, "rewrite the golden frames in testdata")

// fakeBackend records what the interface asks of the session.
type fakeBackend struct {
	mu       sync.Mutex
	started  []string
	answers  []string
	cancels  int
	commands []string
	startErr error
	points   []RewindPoint
	rewound  []uint64
	compacts int
}

func (f *fakeBackend) RewindPoints() []RewindPoint { return f.points }
func (f *fakeBackend) RewindPlan(seq uint64) (string, error) {
	return fmt.Sprintf("Rewind of session s-test to seq %d (both)\nthe files (1):\n  conflict  a.txt  left alone: changed since this session wrote it\n", seq), nil
}
func (f *fakeBackend) Rewind(seq uint64) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rewound = append(f.rewound, seq)
	return fmt.Sprintf("rewound to seq %d", seq), nil
}

func (f *fakeBackend) Compact() { f.mu.Lock(); f.compacts++; f.mu.Unlock() }

func (f *fakeBackend) Start(_ int, p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.started = append(f.started, p)
	return f.startErr
}
func (f *fakeBackend) Cancel(int)    { f.mu.Lock(); f.cancels++; f.mu.Unlock() }
func (f *fakeBackend) Next() tea.Msg { return nil }
func (f *fakeBackend) Answer(id, line string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers = append(f.answers, id+" "+line)
}
func (f *fakeBackend) Command(name, args string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.commands = append(f.commands, name+" "+args)
	return "listing of " + name, nil
}

// clock is a time seam the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock               { return &clock{t: time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)} }

// harness drives a Model directly: messages in, frames out. Commands the
// model returns are run at once, except ticks and the wait for events.
type harness struct {
	t  *testing.T
	m  *Model
	b  *fakeBackend
	ck *clock
}

func newTestModel(t *testing.T, cfg Config) *harness {
	t.Helper()
	b := &fakeBackend{}
	ck := newClock()
	if cfg.Backend == nil {
		cfg.Backend = b
	}
	cfg.Now = ck.now
	cfg.Lang = i18n.EN
	if cfg.SessionID == "" {
		cfg.SessionID = "s-test"
	}
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	cfg.MarkdownStyle = "ascii"
	h := &harness{t: t, m: New(cfg), b: b, ck: ck}
	h.send(tea.WindowSizeMsg{Width: 60, Height: 16})
	return h
}

// send gives msg to the model and runs what it returns (tea.Quit
// included, which only marks the model as quitting).
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(50 * time.Millisecond):
		// A tick or a blink: a timer the test does not wait for.
		return
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	case nil, tea.QuitMsg:
	case tickMsg:
	default:
		if _, ok := msg.(startErrMsg); ok {
			h.send(msg)
			return
		}
		switch msg.(type) {
		case commandMsg, pointsMsg, planMsg, rewoundMsg:
			h.send(msg)
		}
	}
}

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (h *harness) press(code rune, mod tea.KeyMod) {
	h.send(tea.KeyPressMsg{Code: code, Mod: mod})
}

func (h *harness) events(evs ...event.Event) { h.send(EventsMsg(evs)) }

// frame is the screen as text: styles removed, trailing spaces trimmed.
func (h *harness) frame() string {
	lines := strings.Split(ansi.Strip(h.m.Render()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// golden compares the frame with testdata/name.golden (-update rewrites it).
func (h *harness) golden(name string) {
	h.t.Helper()
	got := h.frame()
	if n := strings.Count(got, "\n"); n != h.m.height && !h.m.tooSmall() {
		h.t.Errorf("%s: frame of %d lines, want the window's %d", name, n, h.m.height)
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatalf("%v (go test -run %s -update writes it)", err, h.t.Name())
	}
	if got != string(want) {
		h.t.Errorf("frame %s:\n%s\nwant:\n%s", name, got, want)
	}
}

func ev(t event.Type, p any) event.Event { return event.Event{Type: t, Payload: p} }

func delta(text string, round int) event.Event {
	return event.Event{Type: event.AssistantDelta, Ephemeral: true, Payload: event.DeltaPayload{Text: text, Round: round}}
}

func TestEditingAndHistory(t *testing.T) {
	hist, err := OpenHistory(filepath.Join(t.TempDir(), "h", "p.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"first prompt", "second prompt"} {
		if err := hist.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	h := newTestModel(t, Config{History: hist})
	// helo, Left, l: the l goes before the o.
	h.typeText("helo")
	h.press(tea.KeyLeft, 0)
	h.typeText("l")
	if v := h.m.editor.Value(); v != "hello" {
		t.Fatalf("editor %q, want hello", v)
	}
	h.press(tea.KeyEnter, 0)
	if len(h.b.started) != 1 || h.b.started[0] != "hello" {
		t.Fatalf("started %q, want [hello]", h.b.started)
	}
	h.send(TurnDoneMsg{})
	// Up brings back the last prompt, then the one before; Down goes back.
	h.typeText("draft")
	h.press(tea.KeyUp, 0)
	if v := h.m.editor.Value(); v != "hello" {
		t.Fatalf("after Up: %q, want hello", v)
	}
	h.press(tea.KeyUp, 0)
	if v := h.m.editor.Value(); v != "second prompt" {
		t.Fatalf("after Up Up: %q, want second prompt", v)
	}
	h.golden("history")
	h.press(tea.KeyDown, 0)
	h.press(tea.KeyDown, 0)
	if v := h.m.editor.Value(); v != "draft" {
		t.Fatalf("after Down Down: %q, want the draft back", v)
	}
	// Alt-Enter and Ctrl-J make new lines; Enter sends the whole.
	h.press(tea.KeyEnter, tea.ModAlt)
	h.typeText("line 2")
	h.press('j', tea.ModCtrl)
	h.typeText("line 3")
	h.golden("multiline")
	h.press(tea.KeyEnter, 0)
	if got := h.b.started[len(h.b.started)-1]; got != "draft\nline 2\nline 3" {
		t.Fatalf("sent %q", got)
	}
	// The history was written for the next chat.
	again, err := OpenHistory(hist.path)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Entries(); len(got) != 4 || got[2] != "hello" || got[3] != "draft\nline 2\nline 3" {
		t.Errorf("history read back %q", got)
	}
}

func TestHistoryIsPrivateAndMasked(t *testing.T) {
	path := HistoryPath(t.TempDir(), "/some/project")
	hist, err := OpenHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	secret := "sk-" + strings.Repeat("A1b2", 10)
	if err := hist.Add("use the key " + secret + " please"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("history file mode %v, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), secret) || !strings.Contains(string(b), "REDACTED") {
		t.Errorf("history holds %s, want the key masked", b)
	}
	if HistoryPath("/d", "/a") == HistoryPath("/d", "/b") {
		t.Error("two projects share one history file")
	}
}

func TestCtrlCAtThePrompt(t *testing.T) {
	h := newTestModel(t, Config{})
	h.typeText("some text")
	h.press('c', tea.ModCtrl)
	if v := h.m.editor.Value(); v != "" || h.m.Quitting() {
		t.Fatalf("Ctrl-C with text: editor %q, quitting %v; want the line cleared, the chat on", v, h.m.Quitting())
	}
	h.press('c', tea.ModCtrl)
	if !h.m.Quitting() {
		t.Fatal("Ctrl-C on an empty line did not quit")
	}
	// Ctrl-D deletes forward in a line, and quits on an empty one.
	h = newTestModel(t, Config{})
	h.typeText("ab")
	h.press(tea.KeyLeft, 0)
	h.press('d', tea.ModCtrl)
	if v := h.m.editor.Value(); v != "a" || h.m.Quitting() {
		t.Fatalf("Ctrl-D in a line: %q, quitting %v", v, h.m.Quitting())
	}
	h.m.editor.Reset()
	h.press('d', tea.ModCtrl)
	if !h.m.Quitting() {
		t.Fatal("Ctrl-D on an empty line did not quit")
	}
}

func TestCtrlCDuringATurn(t *testing.T) {
	h := newTestModel(t, Config{})
	h.typeText("run the tests")
	h.press(tea.KeyEnter, 0)
	h.events(ev(event.AssistantMessage, event.AssistantMessagePayload{Round: 1,
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "shell_exec", Arguments: `{"command":"go test ./..."}`}}}))
	h.ck.add(1500 * time.Millisecond)
	// What the call says while it runs shows under it.
	h.events(ev(event.ToolProgress, event.ToolProgressPayload{CallID: "c1", Name: "shell_exec", Message: "ok  pkg/a 0.1s", Done: 1, Total: 3}))
	if f := h.frame(); !strings.Contains(f, "ok pkg/a 0.1s (1/3)") {
		t.Errorf("no progress under the running call:\n%s", f)
	}
	h.press('c', tea.ModCtrl)
	if h.b.cancels != 1 || h.m.Quitting() {
		t.Fatalf("first Ctrl-C: %d cancels, quitting %v; want the turn cancelled, the chat on", h.b.cancels, h.m.Quitting())
	}
	h.golden("ctrlc-tool")
	// A second one more than 2 s later cancels again, and does not quit.
	h.ck.add(3 * time.Second)
	h.press('c', tea.ModCtrl)
	if h.m.Quitting() || h.b.cancels != 2 {
		t.Fatalf("late second Ctrl-C: quitting %v, %d cancels", h.m.Quitting(), h.b.cancels)
	}
	h.ck.add(time.Second)
	h.press('c', tea.ModCtrl)
	if !h.m.Quitting() {
		t.Fatal("Ctrl-C twice within 2 s did not quit")
	}
}

func TestToolTimelineAndMarkdown(t *testing.T) {
	h := newTestModel(t, Config{})
	h.typeText("look")
	h.press(tea.KeyEnter, 0)
	h.events(
		ev(event.ReasoningDelta, event.DeltaPayload{Text: "Let me look at the files first.", Round: 1}),
		ev(event.AssistantMessage, event.AssistantMessagePayload{Round: 1, ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "read_file", Arguments: `{"path":"go.mod"}`},
			{ID: "c2", Name: "shell_exec", Arguments: `{"command":"go vet ./..."}`},
		}}),
		ev(event.ToolResult, event.ToolResultPayload{CallID: "c1", Name: "read_file", Content: "module x\n\ngo 1.26\nrequire y v1\n", DurationMS: 12}),
		ev(event.ToolResult, event.ToolResultPayload{CallID: "c2", Name: "shell_exec", IsError: true, DurationMS: 1500,
			Content: "exit status 1\n./a.go:3: unused variable x\n./b.go:9: missing return"}),
		delta("# Result\n\nThe **build** ", 2),
		delta("fails:\n\n- a.go\n- b.go\n", 2),
	)
	h.golden("stream-plain")
	h.events(ev(event.AssistantMessage, event.AssistantMessagePayload{Round: 2, Text: "# Result\n\nThe **build** fails:\n\n- a.go\n- b.go\n",
		Usage: &llm.Usage{PromptTokens: 8000, CompletionTokens: 200}}),
		ev(event.TurnCompleted, event.TurnCompletedPayload{Reason: event.StopNatural, Usage: llm.Usage{PromptTokens: 9000, CompletionTokens: 300}}))
	h.send(TurnDoneMsg{})
	h.golden("timeline-markdown")
}

func TestStalledModelIsSaid(t *testing.T) {
	h := newTestModel(t, Config{})
	h.typeText("hello")
	h.press(tea.KeyEnter, 0)
	h.ck.add(2 * time.Second)
	if f := h.frame(); !strings.Contains(f, "working 2.0 s") {
		t.Fatalf("status while waiting:\n%s", f)
	}
	h.ck.add(4 * time.Second)
	if f := h.frame(); !strings.Contains(f, "the model is not answering yet (6.0 s)") {
		t.Fatalf("status after 6 s without an event:\n%s", f)
	}
	h.events(delta("Hi", 1))
	if f := h.frame(); strings.Contains(f, "not answering") {
		t.Fatalf("still stalled after an event:\n%s", f)
	}
}

func TestResizeMidStreamRewraps(t *testing.T) {
	h := newTestModel(t, Config{})
	h.typeText("write")
	h.press(tea.KeyEnter, 0)
	long := strings.Repeat("word ", 30)
	h.events(delta(long+"\nsecond line\n", 1), delta(long, 1))
	h.send(tea.WindowSizeMsg{Width: 40, Height: 12})
	h.golden("resize-40")
	h.events(delta("end", 1))
	h.send(tea.WindowSizeMsg{Width: 72, Height: 12})
	h.golden("resize-72")
	for _, l := range strings.Split(h.frame(), "\n") {
		if ansi.StringWidth(l) > 72 {
			t.Errorf("line wider than the window: %q", l)
		}
	}
	h.send(tea.WindowSizeMsg{Width: 15, Height: 4})
	if f := h.frame(); !strings.Contains(OneLine(f, 200), "Terminal too small") {
		t.Errorf("15×4 frame %q, want the too-small message", f)
	}
	h.send(tea.WindowSizeMsg{Width: 72, Height: 12})
	h.golden("resize-72")
}

func TestApprovalShowsTheDiff(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newTestModel(t, Config{Root: root})
	h.send(tea.WindowSizeMsg{Width: 60, Height: 20})
	h.typeText("fix a.txt")
	h.press(tea.KeyEnter, 0)
	h.events(
		ev(event.AssistantMessage, event.AssistantMessagePayload{Round: 1, ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "edit_file", Arguments: `{"path":"a.txt","edits":[{"old_string":"two","new_string":"deux"}]}`}}}),
		ev(event.PermissionRequested, event.PermissionRequestedPayload{ID: "s-test/1", CallID: "c1", Tool: "edit_file",
			Summary: "edit_file: a.txt", Risk: "write"}),
	)
	h.golden("approval-diff")
	// n, then a reason, then Enter: the refusal with its reason.
	h.typeText("n")
	h.typeText("not now")
	h.press(tea.KeyEnter, 0)
	if len(h.b.answers) != 1 || h.b.answers[0] != "s-test/1 n not now" {
		t.Fatalf("answers %q, want the refusal with its reason", h.b.answers)
	}
	if h.m.approval != nil {
		t.Fatal("dialog still open after the answer")
	}
	// A shell command shows the command; y allows it, a always.
	h.events(
		ev(event.AssistantMessage, event.AssistantMessagePayload{Round: 2, ToolCalls: []llm.ToolCall{
			{ID: "c2", Name: "shell_exec", Arguments: `{"command":"rm -rf build"}`}}}),
		ev(event.PermissionRequested, event.PermissionRequestedPayload{ID: "s-test/2", CallID: "c2", Tool: "shell_exec",
			Summary: "shell_exec: rm -rf build", Risk: "destructive", Sandboxed: true}),
	)
	if f := h.frame(); !strings.Contains(f, "$ rm -rf build") || !strings.Contains(f, "w yes, with the network") {
		t.Fatalf("shell approval:\n%s", f)
	}
	h.typeText("a")
	if h.b.answers[1] != "s-test/2 a" {
		t.Fatalf("answers %q", h.b.answers)
	}
	// A request resolved elsewhere closes its dialog.
	h.events(ev(event.PermissionRequested, event.PermissionRequestedPayload{ID: "s-test/3", CallID: "c9", Tool: "write_file", Summary: "write_file: b"}),
		ev(event.PermissionResolved, event.PermissionResolvedPayload{ID: "s-test/3", Tool: "write_file", By: "timeout"}))
	if h.m.approval != nil {
		t.Fatal("dialog of a request resolved by its timeout is still open")
	}
}

func TestWriteFileDiffOfANewFile(t *testing.T) {
	d, ok := changeDiff(t.TempDir(), "write_file", `{"path":"new.txt","content":"a\nb\n"}`)
	if !ok || d != "--- new.txt\n+++ new.txt\n@@ -1,0 +1,2 @@\n+a\n+b\n" {
		t.Fatalf("diff %q, %v", d, ok)
	}
}

func TestPastes(t *testing.T) {
	h := newTestModel(t, Config{})
	// 1 MB: kept whole behind a placeholder, sent whole.
	big := strings.Repeat("0123456789abcdef\n", 1<<16)
	start := time.Now()
	h.send(tea.PasteMsg{Content: big})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a 1 MB paste took %v", d)
	}
	if v := h.m.editor.Value(); !strings.HasPrefix(v, "[paste #1: 1114112 bytes") {
		t.Fatalf("editor %q, want the placeholder", OneLine(v, 100))
	}
	if !strings.Contains(h.frame(), "kept whole") {
		t.Errorf("no notice of the large paste:\n%s", h.frame())
	}
	h.typeText(" explain")
	h.press(tea.KeyEnter, 0)
	if len(h.b.started) != 1 || h.b.started[0] != big+" explain" {
		t.Fatalf("sent %d bytes, want the whole paste (%d) and the text", len(h.b.started[0]), len(big)+8)
	}
	h.send(TurnDoneMsg{})
	// Binary: refused, said.
	h.send(tea.PasteMsg{Content: "PK\x03\x04\x00\x00binary"})
	if v := h.m.editor.Value(); v != "" || !strings.Contains(h.frame(), "paste refused") {
		t.Fatalf("binary paste: editor %q\n%s", v, h.frame())
	}
	// Control characters: removed, said.
	h.send(tea.PasteMsg{Content: "ab\x1b[31mc"})
	if v := h.m.editor.Value(); v != "ab[31mc" || !strings.Contains(h.frame(), "1 control characters removed") {
		t.Fatalf("paste with an escape: editor %q\n%s", v, h.frame())
	}
}

func TestSlashCommands(t *testing.T) {
	h := newTestModel(t, Config{ContextWindow: 10000})
	for _, c := range []string{"/session", "/model", "/usage", "/help"} {
		h.typeText(c)
		h.press(tea.KeyEnter, 0)
	}
	f := h.frame()
	for _, want := range []string{"session s-test · model test-model", "context window 10000", "tokens this chat: 0", "/rewind"} {
		if !strings.Contains(f, want) {
			t.Errorf("frame lacks %q:\n%s", want, f)
		}
	}
	h.typeText("/skills")
	h.press(tea.KeyEnter, 0)
	if len(h.b.commands) != 1 || !strings.Contains(h.frame(), "listing of skills") {
		t.Errorf("/skills: commands %q\n%s", h.b.commands, h.frame())
	}
	h.typeText("/Bogus!")
	h.press(tea.KeyEnter, 0)
	if v := h.m.editor.Value(); v != "/Bogus!" || !strings.Contains(h.frame(), "unknown command") {
		t.Errorf("unknown command: editor %q (want it kept)\n%s", v, h.frame())
	}
	h.m.editor.Reset()
	h.typeText("/exit")
	h.press(tea.KeyEnter, 0)
	if !h.m.Quitting() || len(h.b.started) != 0 {
		t.Errorf("/exit: quitting %v, started %q", h.m.Quitting(), h.b.started)
	}
}

func TestResumedSessionShowsItsHistory(t *testing.T) {
	recent := []event.Event{
		ev(event.SessionStarted, event.SessionStartedPayload{Model: "m"}),
		ev(event.UserMessage, event.UserMessagePayload{Text: "what is in go.mod?"}),
		ev(event.AssistantMessage, event.AssistantMessagePayload{Round: 1, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"go.mod"}`}}}),
		ev(event.ToolResult, event.ToolResultPayload{CallID: "c1", Name: "read_file", Content: "module x", DurationMS: 3}),
		ev(event.AssistantMessage, event.AssistantMessagePayload{Round: 2, Text: "The module is **x**."}),
		ev(event.TurnCompleted, event.TurnCompletedPayload{Reason: "stop"}),
	}
	h := newTestModel(t, Config{Recent: recent})
	h.golden("resumed")
}

func TestRewindPicker(t *testing.T) {
	h := newTestModel(t, Config{})
	at := h.ck.t
	h.b.points = []RewindPoint{{Seq: 9, Prompt: "and the tests?", Time: at}, {Seq: 1, Prompt: "write a.txt", Time: at.Add(-time.Minute)}}
	h.send(tea.WindowSizeMsg{Width: 70, Height: 20})
	h.typeText("/rewind")
	h.press(tea.KeyEnter, 0)
	if h.m.picker == nil {
		t.Fatal("/rewind opened no picker")
	}
	h.press(tea.KeyDown, 0)
	h.golden("rewind-picker")
	if f := h.frame(); !strings.Contains(f, "seq 1 (both)") || !strings.Contains(f, "conflict  a.txt") {
		t.Fatalf("picker without the plan of the chosen point:\n%s", f)
	}
	h.press(tea.KeyEnter, 0)
	if len(h.b.rewound) != 1 || h.b.rewound[0] != 1 {
		t.Fatalf("rewound %v, want [1]", h.b.rewound)
	}
	if h.m.picker != nil || h.m.editor.Value() != "write a.txt" {
		t.Errorf("after the rewind: picker %v, editor %q (want the message back)", h.m.picker != nil, h.m.editor.Value())
	}
}

func TestCompactCommand(t *testing.T) {
	h := newTestModel(t, Config{})
	h.typeText("/compact")
	h.press(tea.KeyEnter, 0)
	if h.b.compacts != 1 || !h.m.compacting {
		t.Fatalf("/compact: backend asked %d times, compacting %v", h.b.compacts, h.m.compacting)
	}
	h.golden("compacting")
	// A prompt waits for the compaction: it is kept, not sent.
	h.typeText("next question")
	h.press(tea.KeyEnter, 0)
	if len(h.b.started) != 0 || h.m.editor.Value() != "next question" {
		t.Errorf("a prompt during the compaction: started %q, editor %q", h.b.started, h.m.editor.Value())
	}
	h.events(ev(event.ContextCompacted, event.ContextCompactedPayload{Replaced: 4, TokensBefore: 1800, TokensAfter: 300, Reason: event.CompactManual}))
	h.send(CompactDoneMsg{})
	f := h.frame()
	if h.m.compacting || !strings.Contains(f, "context compacted: 1800 → 300 tokens") || strings.Contains(f, "compacting the context") {
		t.Errorf("after the compaction: compacting %v\n%s", h.m.compacting, f)
	}

	h.m.editor.Reset()
	h.typeText("/compact")
	h.press(tea.KeyEnter, 0)
	h.send(CompactDoneMsg{Nothing: true})
	if !strings.Contains(h.frame(), "nothing to compact yet") {
		t.Errorf("nothing to compact not said:\n%s", h.frame())
	}

	// During a turn /compact is refused at once and the backend not asked.
	h.typeText("q")
	h.press(tea.KeyEnter, 0)
	if !h.m.running {
		t.Fatal("the turn did not start")
	}
	h.typeText("/compact")
	h.press(tea.KeyEnter, 0)
	if h.b.compacts != 2 || h.m.compacting || !strings.Contains(h.frame(), "a turn is running; compact once it is over") {
		t.Errorf("/compact during a turn: backend asked %d times (want 2), compacting %v\n%s", h.b.compacts, h.m.compacting, h.frame())
	}
}

func TestCompactTextsInFrench(t *testing.T) {
	tx := textsFor(i18n.FR)
	for _, s := range []string{tx.compacting, tx.compactBusy, tx.nothingToComp, tx.compactFailed} {
		if s == "" || s == textsEN.compacting || s == textsEN.compactBusy || s == textsEN.nothingToComp || s == textsEN.compactFailed {
			t.Errorf("French text %q missing or English", s)
		}
	}
}
