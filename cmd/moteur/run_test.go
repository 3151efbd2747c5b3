package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

func TestRunJSONPrintsEveryEventAndPairsToolResults(t *testing.T) {
	srv := openaitest.NewServer(t, toolThenAnswer("Bonjour ", "le monde")...)
	h := newHarness(t, srv.BaseURL())

	res := h.run(t, "run", "--json", "--new-session", "s-json", "dis", "bonjour")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if res.stderr != sessionLine("s-json") {
		t.Errorf("stderr not empty: %q", res.stderr)
	}

	var types []event.Type
	var seqs []uint64
	var assistantWithCalls, deltas int
	lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	for i, line := range lines {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("line %d is not a JSON object: %v\n%s", i+1, err, line)
		}
		for _, k := range []string{"seq", "type", "session_id", "time", "payload"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("line %d lacks %q: %s", i+1, k, line)
			}
		}
		ev, err := event.Decode([]byte(line))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if ev.SessionID != "s-json" {
			t.Errorf("line %d: session_id %q", i+1, ev.SessionID)
		}
		spec, _ := event.SpecOf(ev.Type)
		if spec.Persisted {
			if ev.Ephemeral {
				t.Errorf("line %d: persisted %s marked ephemeral", i+1, ev.Type)
			}
			types = append(types, ev.Type)
			seqs = append(seqs, ev.Seq)
		} else {
			deltas++
			if string(raw["ephemeral"]) != "true" {
				t.Errorf("line %d: %s without \"ephemeral\":true: %s", i+1, ev.Type, line)
			}
		}
		if p, ok := ev.Payload.(event.AssistantMessagePayload); ok && len(p.ToolCalls) > 0 {
			assistantWithCalls++
		}
	}
	want := []event.Type{event.SessionStarted, event.UserMessage, event.AssistantMessage,
		event.ToolResult, event.AssistantMessage, event.TurnCompleted}
	if !slices.Equal(types, want) {
		t.Errorf("persisted types %v, want %v", types, want)
	}
	for i, s := range seqs {
		if s != uint64(i+1) {
			t.Errorf("persisted seqs %v, want 1..%d without gaps", seqs, len(seqs))
			break
		}
	}
	if assistantWithCalls != 1 {
		t.Errorf("%d AssistantMessage with tool_calls, want 1", assistantWithCalls)
	}
	if deltas < 3 { // one reasoning and two answer deltas
		t.Errorf("%d ephemeral deltas, want at least 3", deltas)
	}

	srv.CheckPairing(t)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	i := slices.IndexFunc(msgs, func(m llm.Message) bool { return m.Role == "assistant" && len(m.ToolCalls) > 0 })
	if i < 0 {
		t.Fatalf("second request has no assistant tool_calls message: %+v", msgs)
	}
	if id := msgs[i].ToolCalls[0].ID; id != "call_1" {
		t.Errorf("tool call id %q, want call_1", id)
	}
	var tools []llm.Message
	for _, m := range msgs[i+1:] {
		if m.Role == "tool" {
			tools = append(tools, m)
		}
	}
	if len(tools) != 1 || msgs[i+1].Role != "tool" || tools[0].ToolCallID != "call_1" {
		t.Errorf("after the tool_calls message want exactly one tool message for call_1, got %+v", msgs[i+1:])
	}
	if reqs[0].Auth != "Bearer sk-moteur" || reqs[0].Model != "test-model" {
		t.Errorf("request auth %q model %q", reqs[0].Auth, reqs[0].Model)
	}
}

func TestRunPlainShowsAnswerOnceAndOneLinePerTool(t *testing.T) {
	srv := openaitest.NewServer(t, toolThenAnswer("Bonjour ", "le monde")...)
	h := newHarness(t, srv.BaseURL())

	res := h.run(t, "run", "dis", "bonjour")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if strings.Contains(res.stdout, "\x1b") {
		t.Errorf("ANSI escape in output that is not a terminal: %q", res.stdout)
	}
	if strings.Contains(res.stdout, "secret musing") {
		t.Errorf("reasoning shown on a non-terminal: %q", res.stdout)
	}
	want := regexp.MustCompile(`^→ thinking \{"thought":"Plan the answer",[^\n]*\n✓ thinking \(\d+ ms\)\nBonjour le monde\n$`)
	if !want.MatchString(res.stdout) {
		t.Errorf("stdout:\n%q\nwant match for %s", res.stdout, want)
	}
	if !onlySessionLine(res.stderr) {
		t.Errorf("stderr not empty: %q", res.stderr)
	}
}

func TestRunReadsPromptFromStdin(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("ok"))
	h := newHarness(t, srv.BaseURL())
	h.stdin = strings.NewReader("question from a pipe\n")

	res := h.run(t, "run", "-")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	msgs := srv.Requests()[0].Messages
	if last := msgs[len(msgs)-1]; last.Role != "user" || last.Content != "question from a pipe\n" {
		t.Errorf("user message %+v, want the piped prompt", last)
	}
}

func TestRunMissingPromptIsUsageError(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1/v1")
	for _, args := range [][]string{{"run"}, {"run", "-"}, {"run", "  "}} {
		res := h.run(t, args...)
		if res.code != 2 {
			t.Errorf("%v: exit %d, want 2", args, res.code)
		}
		if !strings.Contains(res.stderr, "no prompt") || strings.Count(res.stderr, "--help") != 1 {
			t.Errorf("%v: stderr %q, want the error and one usage hint", args, res.stderr)
		}
	}
}

func TestRunUsageErrors(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1/v1")
	for _, args := range [][]string{
		{"run", "--bogus", "hi"},
		{"run", "--lang", "de", "hi"},
		{"run", "--max-iterations", "0", "hi"},
		{"run", "--approval-timeout", "0s", "hi"},
		{"run", "--session", "../escape", "hi"},
		{"nosuchcommand"},
	} {
		res := h.run(t, args...)
		if res.code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, res.code, res.stderr)
		}
		if !strings.HasPrefix(res.stderr, "moteur: ") || strings.Count(res.stderr, "--help' for usage") != 1 {
			t.Errorf("%v: stderr %q, want one error and one usage hint", args, res.stderr)
		}
		if res.stdout != "" {
			t.Errorf("%v: stdout %q", args, res.stdout)
		}
	}
	if entries, _ := os.ReadDir(h.home()); len(entries) != 0 {
		t.Errorf("a usage error wrote to the data directory: %v", entries)
	}
}

func TestRunWithoutModelSaysSoInOneLine(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct {
		env  map[string]string
		args []string
		code int
		want string
	}{
		{map[string]string{"MOTEUR_HOME": home}, []string{"run", "hi"}, 2, "aucun modèle configuré"},
		{map[string]string{"MOTEUR_HOME": home, "MOTEUR_LANG": "en"}, []string{"run", "hi"}, 2, "or providers: in .moteur/config.yaml"},
		{map[string]string{"MOTEUR_HOME": home}, []string{"run", "--lang", "en", "hi"}, 2, "no model configured"},
		{map[string]string{"MOTEUR_HOME": home}, []string{"chat", "--lang", "en"}, 2, "no model configured"},
		// A base URL without a model is a configuration mistake: the
		// variable can only have been meant for moteur.
		{map[string]string{"MOTEUR_HOME": home, "MOTEUR_BASE_URL": "http://127.0.0.1:1/v1"}, []string{"run", "hi"}, 1, "MOTEUR_MODEL"},
	} {
		var out, errOut bytes.Buffer
		code := execute(t.Context(), tc.args, envMap(tc.env), strings.NewReader(""), &out, &errOut)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.env, code, tc.code)
		}
		stderr := errOut.String()
		if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "moteur: ") ||
			!strings.Contains(stderr, "MOTEUR_BASE_URL") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: stderr %q, want one line naming MOTEUR_BASE_URL and %q", tc.env, stderr, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("stdout %q", out.String())
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("data directory written without a model: %v", entries)
	}
}

func TestRunHonoursOpenAIFallbacks(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("ok"))
	h := newHarness(t, "")
	h.env = map[string]string{
		"MOTEUR_HOME":     h.env["MOTEUR_HOME"],
		"XDG_CONFIG_HOME": h.env["XDG_CONFIG_HOME"],
		"OPENAI_BASE_URL": srv.BaseURL(),
		"OPENAI_API_KEY":  "sk-openai",
		"OPENAI_MODEL":    "gpt-test",
	}
	res := h.run(t, "run", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	r := srv.Requests()[0]
	if r.Auth != "Bearer sk-openai" || r.Model != "gpt-test" {
		t.Errorf("auth %q model %q, want the OPENAI_* values", r.Auth, r.Model)
	}
}

func TestRunDoesNotSendOpenAIKeyToAnotherServer(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("ok"))
	h := newHarness(t, srv.BaseURL())
	delete(h.env, "MOTEUR_API_KEY")
	h.env["OPENAI_API_KEY"] = "sk-openai"
	res := h.run(t, "run", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if auth := srv.Requests()[0].Auth; auth != "" {
		t.Errorf("Authorization %q sent to MOTEUR_BASE_URL's server, want none", auth)
	}
}

func TestRunServerErrorExitsOneAndKeepsTheLog(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Status(http.StatusBadRequest, "invalid_request_error", "model 'nope' does not exist"))
	h := newHarness(t, srv.BaseURL())

	res := h.run(t, "run", "hi")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", res.code, res.stderr)
	}
	if !strings.Contains(res.stderr, "model 'nope' does not exist") || !strings.HasPrefix(res.stderr, "session: ") || strings.Count(res.stderr, "\n") != 2 {
		t.Errorf("stderr %q, want the session line and one line with the server's message", res.stderr)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("%d requests: a 400 must not be retried", len(srv.Requests()))
	}

	page, err := h.store(t).List(t.Context(), session.ListOptions{})
	if err != nil || len(page.Sessions) != 1 {
		t.Fatalf("stored sessions %+v, %v; want one", page.Sessions, err)
	}
	id := page.Sessions[0].ID
	if !regexp.MustCompile(`^s-\d{8}T\d{6}-[0-9a-f]{16}$`).MatchString(id) {
		t.Errorf("session id %q does not follow s-<time>-<16 hex>", id)
	}
	evs := h.load(t, id)
	checkSeqs(t, evs)
	want := []event.Type{event.SessionStarted, event.UserMessage, event.Error, event.TurnCompleted}
	if got := types(evs); !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
	for _, p := range []string{filepath.Join(h.home(), "audit"), filepath.Join(h.home(), "transcripts")} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, mode %v; want a 0700 directory", p, err, st.Mode().Perm())
		}
	}
	for _, p := range []string{session.DefaultPath(h.home()), h.auditFile(id), h.transcriptFile(id)} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v; want a 0600 file", p, err)
		}
	}
	if got := readFile(t, h.transcriptFile(id)); got != jsonLines(t, evs) {
		t.Errorf("transcript:\n%s\nwant the stored events:\n%s", got, jsonLines(t, evs))
	}
	if n, err := h.auditRecords(t, id); err != nil || n != len(evs) {
		t.Errorf("audit log: %d records, %v; want %d", n, err, len(evs))
	}
}

func TestRunStoresThePersistedEventsOfJSONOutput(t *testing.T) {
	srv := openaitest.NewServer(t, toolThenAnswer("done")...)
	h := newHarness(t, srv.BaseURL())
	res := h.run(t, "run", "--json", "--new-session", "s-log", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	var persisted []string
	for _, line := range strings.SplitAfter(res.stdout, "\n") {
		if line != "" && !strings.Contains(line, `"ephemeral":true`) {
			persisted = append(persisted, line)
		}
	}
	if got := readFile(t, h.transcriptFile("s-log")); got != strings.Join(persisted, "") {
		t.Errorf("transcript:\n%s\nwant the persisted lines of stdout:\n%s", got, strings.Join(persisted, ""))
	}
	if got := jsonLines(t, h.load(t, "s-log")); got != strings.Join(persisted, "") {
		t.Errorf("store:\n%s\nwant the persisted lines of stdout:\n%s", got, strings.Join(persisted, ""))
	}
}

func TestRunFailsWithoutAnAuditLog(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("ok"))
	h := newHarness(t, srv.BaseURL())
	// A file where the audit directory should be: the log cannot be made.
	blocker := filepath.Join(h.home(), "audit")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res := h.run(t, "run", "--new-session", "s-noaudit", "hi")
	if res.code != 1 || !strings.Contains(res.stderr, "audit log") {
		t.Errorf("exit %d, stderr %q; want 1 and a message about the audit log", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent without an audit log", n)
	}
	if _, err := h.store(t).Info(t.Context(), "s-noaudit"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("session stored without an audit log: %v", err)
	}
	// The lease was given back: once the audit log can be made, the
	// session runs.
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	if res := h.run(t, "run", "--new-session", "s-noaudit", "hi"); res.code != 0 {
		t.Errorf("second run: exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestRunAddsAgentsMDToTheSystemPrompt(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("ok"))
	h := newHarness(t, srv.BaseURL())
	if err := os.WriteFile(filepath.Join(h.dir, "AGENTS.md"), []byte("Always answer in haiku."), 0o600); err != nil {
		t.Fatal(err)
	}
	res := h.run(t, "run", "--json", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", res.code, res.stderr)
	}
	sys := srv.Requests()[0].Messages[0]
	if sys.Role != "system" || !strings.Contains(sys.Content, "(AGENTS.md)\n\nAlways answer in haiku.") {
		t.Errorf("system message %q lacks AGENTS.md", sys.Content)
	}
	first, _, _ := strings.Cut(res.stdout, "\n")
	ev, err := event.Decode([]byte(first))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := ev.Payload.(event.SessionStartedPayload)
	if !ok || !slices.Equal(p.Instructions, []string{"AGENTS.md"}) || p.ProjectRoot != h.dir {
		t.Errorf("SessionStarted %+v, want instructions [AGENTS.md] and project root %s", ev.Payload, h.dir)
	}
	if !slices.Contains(p.Tools, "thinking") || !slices.Contains(p.Tools, "todo_write") {
		t.Errorf("tools %v, want thinking and todo_write", p.Tools)
	}
}

func TestRunCancelledExitsOne(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// The server cancels the run as the request arrives (the user's
	// Ctrl-C), then holds the answer until the client goes away.
	srv := openaitest.NewServer(t, func(_ http.ResponseWriter, r *http.Request) {
		cancel()
		<-r.Context().Done()
	})
	h := newHarness(t, srv.BaseURL())
	var out, errOut strings.Builder
	c := newCLI(envMap(h.env), strings.NewReader(""), &out, &errOut)
	c.workDir = func() (string, error) { return h.dir, nil }
	code := c.execute(ctx, []string{"run", "--json", "--new-session", "s-cancel", "hi"})
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "interrupted") {
		t.Errorf("stderr %q, want 'interrupted'", errOut.String())
	}
	if !strings.Contains(out.String(), `"type":"TurnCompleted"`) || !strings.Contains(out.String(), `"reason":"cancelled"`) {
		t.Errorf("stdout lacks the cancelled TurnCompleted:\n%s", out.String())
	}
}

// recordingView keeps the events it is shown.
type recordingView struct {
	evs      []event.Event
	finished bool
}

func (v *recordingView) event(ev event.Event) error { v.evs = append(v.evs, ev); return nil }
func (v *recordingView) finish() error              { v.finished = true; return nil }

func TestPumpShowsEventsStillBufferedAtTheEnd(t *testing.T) {
	// The state SubmitInput leaves: the turn is over, its last events are
	// still in the channel.
	events := make(chan event.Event, 64)
	for i := range 64 {
		events <- event.Event{Seq: uint64(i + 1), Type: event.AssistantDelta}
	}
	stop := make(chan struct{})
	close(stop)
	v := &recordingView{}
	if err := pump(events, stop, v); err != nil {
		t.Fatal(err)
	}
	if len(v.evs) != 64 || !v.finished {
		t.Fatalf("showed %d of 64 buffered events (finished %v)", len(v.evs), v.finished)
	}
	for i, ev := range v.evs {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d: order lost", i, ev.Seq)
		}
	}
}

func TestRunCtrlCCancelsTheTurn(t *testing.T) {
	h := newHarness(t, "")
	h.interrupts = make(chan os.Signal, 1)
	srv := openaitest.NewServer(t, func(_ http.ResponseWriter, r *http.Request) {
		h.interrupts <- os.Interrupt
		<-r.Context().Done()
	})
	h.env["MOTEUR_BASE_URL"] = srv.BaseURL()
	res := h.run(t, "run", "--new-session", "s-ctrlc", "hi")
	if res.code != exitInterrupted || !strings.Contains(res.stderr, "interrupted") || !strings.Contains(res.stderr, "session: s-ctrlc\n") {
		t.Fatalf("exit %d, stderr %q; want 130, 'interrupted' and the session", res.code, res.stderr)
	}
	evs := h.load(t, "s-ctrlc")
	if p, ok := evs[len(evs)-1].Payload.(event.TurnCompletedPayload); !ok || p.Reason != event.StopCancelled {
		t.Errorf("last stored event %+v, want TurnCompleted cancelled", evs[len(evs)-1])
	}
	// The lease was released on the way out: the session goes on.
	if _, err := h.store(t).Acquire(t.Context(), "s-ctrlc"); err != nil {
		t.Errorf("lease still held: %v", err)
	}
}
