package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestNilSet(t *testing.T) {
	var s *Set
	if o := s.Run(context.Background(), Input{Event: PreToolUse}, nil); s.Has(PreToolUse) || !isZero(o) {
		t.Fatal("a nil Set has hooks")
	}
	if s.ProjectSHA256() != "" || s.WithoutProject() != nil || s.List() != nil {
		t.Fatal("a nil Set has project hooks")
	}
}

// A Claude Code blocker: exit 2 with the reason on stderr.
func TestPreToolUseExit2Blocks(t *testing.T) {
	p := newProject(t)
	cmd := p.script("no-rm.sh", `in=$(cat)
echo "$in" | grep -q '"tool_name":"Bash"' || { echo "not Bash: $in" >&2; exit 1; }
if echo "$in" | grep -q 'rm -rf'; then echo "rm -rf is not allowed here" >&2; exit 2; fi
exit 0
`)
	s := p.set(map[string][]Group{"PreToolUse": one("Bash", cmd)})
	in := p.input(PreToolUse)
	in.ToolName, in.ToolInput = "shell_exec", raw(t, map[string]any{"command": "rm -rf build", "timeout_sec": 5})
	o, rec := run(t, s, in)
	res := rec.only(t)
	if !o.Block || o.Decision != "deny" || o.Reason != "rm -rf is not allowed here" {
		t.Fatalf("Outcome = %+v, want blocked with the script's stderr", o)
	}
	if !res.Blocked || res.ExitCode != 2 || res.Err != nil {
		t.Fatalf("Result = %+v", res)
	}
	in.ToolInput = raw(t, map[string]any{"command": "ls"})
	o, rec = run(t, s, in)
	if res := rec.only(t); o.Block || res.ExitCode != 0 || res.Err != nil {
		t.Fatalf("ls: Outcome %+v, Result %+v: want it let through by a hook that ran", o, res)
	}
}

// The hook sees Claude Code's shape; its JSON deny refuses the call.
func TestPreToolUseJSONDeny(t *testing.T) {
	p := newProject(t)
	cmd := p.script("env-guard.sh", `in=$(cat)
case "$in" in
*'"tool_name":"Write"'*'"file_path":"'"$CLAUDE_PROJECT_DIR"'/.env"'*)
  echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"never write .env"}}';;
*) echo "{\"hookSpecificOutput\":{\"permissionDecision\":\"allow\",\"permissionDecisionReason\":\"fine\"}}";;
esac
`)
	s := p.set(map[string][]Group{"PreToolUse": one("Write|Edit", cmd)})
	in := p.input(PreToolUse)
	in.ToolName, in.ToolInput = "write_file", raw(t, map[string]any{"path": ".env", "content": "K=1"})
	o, rec := run(t, s, in)
	if res := rec.only(t); !o.Block || o.Decision != "deny" || o.Reason != "never write .env" || !res.Blocked {
		t.Fatalf("Outcome = %+v, Result %+v", o, res)
	}
	in.ToolInput = raw(t, map[string]any{"path": "src/a.go", "content": "package a"})
	if o, _ := run(t, s, in); o.Block || o.Decision != "allow" || o.Reason != "fine" {
		t.Fatalf("other file: Outcome = %+v, want allow", o)
	}
}

// An updatedInput in Claude Code's shape comes back in Moteur's, over the
// call's own arguments.
func TestPreToolUseUpdatedInput(t *testing.T) {
	p := newProject(t)
	cmd := p.script("redirect.sh", `cat >/dev/null
printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"%s/safe/out.txt","content":"rewritten"}}}\n' "$CLAUDE_PROJECT_DIR"
`)
	s := p.set(map[string][]Group{"PreToolUse": one("Write", cmd)})
	in := p.input(PreToolUse)
	in.ToolName, in.ToolInput = "write_file", raw(t, map[string]any{"path": "out.txt", "content": "x", "mode": "append"})
	o, _ := run(t, s, in)
	if o.Block || o.Decision != "allow" {
		t.Fatalf("Outcome = %+v", o)
	}
	sameJSON(t, o.UpdatedInput, raw(t, map[string]any{"path": "safe/out.txt", "content": "rewritten", "mode": "append"}))
}

// A matcher on Moteur's own name gets Moteur's name and arguments.
func TestMoteurNameMatcher(t *testing.T) {
	p := newProject(t)
	out := filepath.Join(p.root, "seen.json")
	s := p.set(map[string][]Group{"PreToolUse": one("shell_exec", "cat > "+strconv.Quote(out))})
	in := p.input(PreToolUse)
	in.ToolName, in.ToolInput, in.ToolUseID = "shell_exec", raw(t, map[string]any{"command": "ls", "work_dir": "src"}), "call-7"
	run(t, s, in)
	var got map[string]any
	data, err := os.ReadFile(out)
	if err != nil || json.Unmarshal(data, &got) != nil {
		t.Fatalf("hook input %q: %v", data, err)
	}
	if got["tool_name"] != "shell_exec" || got["tool_input"].(map[string]any)["work_dir"] != "src" ||
		got["hook_event_name"] != "PreToolUse" || got["session_id"] != "s-1" || got["cwd"] != p.root ||
		got["tool_use_id"] != "call-7" || got["transcript_path"] != filepath.Join(p.root, "t.jsonl") {
		t.Fatalf("hook input = %s", data)
	}
}

// A hook matching no Claude Code or Moteur name of the call does not run.
func TestMatcherSelects(t *testing.T) {
	p := newProject(t)
	s := p.set(map[string][]Group{"PreToolUse": append(one("Read", "exit 2"), one("mcp__.*", "true")...)})
	in := p.input(PreToolUse)
	in.ToolName, in.ToolInput = "shell_exec", raw(t, map[string]any{"command": "ls"})
	if o, rec := run(t, s, in); o.Block || len(rec.started) != 0 {
		t.Fatalf("Read and mcp__ hooks ran for shell_exec: %+v, %d started", o, len(rec.started))
	}
	in.ToolName, in.ToolInput = "read_file", raw(t, map[string]any{"path": "a"})
	if o, rec := run(t, s, in); !o.Block || len(rec.started) != 1 {
		t.Fatalf("Read hook did not run for read_file: %+v", o)
	}
}

func TestUserPromptSubmitContext(t *testing.T) {
	p := newProject(t)
	plain := p.script("ticket.sh", `in=$(cat)
echo "$in" | grep -q '"prompt":"fix the login bug"' || exit 1
echo "Current ticket: AUTH-42"
`)
	js := p.script("ctx.sh", `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Branch: main"}}'
`)
	s := p.set(map[string][]Group{"UserPromptSubmit": one("", plain, js)})
	in := p.input(UserPromptSubmit)
	in.Prompt = "fix the login bug"
	o, rec := run(t, s, in)
	if o.Block || o.Context != "Current ticket: AUTH-42\n\nBranch: main" {
		t.Fatalf("Outcome = %+v, want both contexts in configuration order", o)
	}
	if len(rec.completed) != 2 {
		t.Fatalf("%d completions", len(rec.completed))
	}
}

func TestUserPromptSubmitBlocks(t *testing.T) {
	p := newProject(t)
	s := p.set(map[string][]Group{"UserPromptSubmit": one("", p.script("secret.sh", `grep -q password && { echo "do not paste passwords" >&2; exit 2; }; exit 0`))})
	in := p.input(UserPromptSubmit)
	in.Prompt = "my password is hunter2"
	if o, _ := run(t, s, in); !o.Block || o.Reason != "do not paste passwords" {
		t.Fatalf("Outcome = %+v", o)
	}
}

// A Stop hook sends the agent back to work once, then lets it stop.
func TestStopHookBlocksOnce(t *testing.T) {
	p := newProject(t)
	s := p.set(map[string][]Group{"Stop": one("", p.script("once.sh", `in=$(cat)
if echo "$in" | grep -q '"stop_hook_active":true'; then exit 0; fi
echo '{"decision":"block","reason":"run the tests before stopping"}'
`))})
	in := p.input(Stop)
	o, _ := run(t, s, in)
	if !o.Block || o.Reason != "run the tests before stopping" {
		t.Fatalf("first Stop: %+v, want blocked", o)
	}
	in.StopHookActive = true
	o, rec := run(t, s, in)
	if res := rec.only(t); o.Block || res.ExitCode != 0 {
		t.Fatalf("second Stop: %+v (%+v), want let through", o, res)
	}
}

// A hook past its timeout is killed with what it started, and reported.
func TestTimeoutKillsGroup(t *testing.T) {
	p := newProject(t)
	pidFile := filepath.Join(p.root, "child.pid")
	cmd := p.script("hang.sh", `cat >/dev/null
sleep 300 &
echo $! > "$1"
wait
`) + " " + strconv.Quote(pidFile)
	s, errs := New(Config{Sources: []Source{{File: "u.yaml", Events: map[string][]Group{
		"PreToolUse": {{Hooks: []Command{{Type: "command", Command: cmd, Timeout: 0.3}}}}}}}, ProjectDir: p.root})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	in := p.input(PreToolUse)
	in.ToolName, in.ToolInput = "shell_exec", raw(t, map[string]any{"command": "ls"})
	o, rec := run(t, s, in)
	res := rec.only(t)
	if o.Block || !errors.Is(res.Err, ErrTimeout) || !strings.Contains(res.Err.Error(), "u.yaml: hooks.PreToolUse[0].hooks[0]") {
		t.Fatalf("Outcome %+v, Result %+v: want a reported timeout naming the hook", o, res)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the hook never started its child: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	waitGone(t, pid)
}

// waitGone waits (a bounded time) for pid to be dead: gone or a zombie.
// SIGKILL is delivered asynchronously, so its effect is polled.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
				return
			}
		} else if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d of the timed-out hook still alive", pid)
		}
		<-time.After(10 * time.Millisecond)
	}
}

func TestInvalidJSONIsPlainText(t *testing.T) {
	p := newProject(t)
	s := p.set(map[string][]Group{"UserPromptSubmit": one("", p.script("bad.sh", `cat >/dev/null; echo '{"decision": "block", oops'`))})
	o, rec := run(t, s, p.input(UserPromptSubmit))
	res := rec.only(t)
	if o.Block || o.Context != `{"decision": "block", oops` {
		t.Fatalf("Outcome = %+v: want the text as plain context, no block", o)
	}
	if res.Err == nil || !strings.Contains(res.Err.Error(), "not valid hook JSON") || !strings.Contains(res.Err.Error(), "hooks.UserPromptSubmit[0].hooks[0]") {
		t.Fatalf("Result.Err = %v", res.Err)
	}
}

func TestOtherExitCodesIgnored(t *testing.T) {
	p := newProject(t)
	s := p.set(map[string][]Group{"PreToolUse": one("*", `echo "lint crashed" >&2; exit 1`)})
	in := p.input(PreToolUse)
	in.ToolName = "grep"
	o, rec := run(t, s, in)
	if res := rec.only(t); !isZero(o) || res.ExitCode != 1 || res.Err == nil || !strings.Contains(res.Err.Error(), "lint crashed") {
		t.Fatalf("Outcome %+v, Result %+v", o, res)
	}
}

// A command that does not exist: reported by New with the file and key,
// kept, and reported again when it fails to run.
func TestMissingCommand(t *testing.T) {
	p := newProject(t)
	cmd := "$CLAUDE_PROJECT_DIR/.moteur/hooks/nope.sh"
	s, errs := New(Config{Sources: []Source{{File: "/p/.moteur/config.yaml", Project: true, Events: map[string][]Group{"PreToolUse": one("Bash", cmd, "no-such-program-xyz --flag")}}}, ProjectDir: p.root})
	if len(errs) != 2 {
		t.Fatalf("New reported %v, want the two missing programs", errs)
	}
	for i, e := range errs {
		var ce *ConfigError
		if !errors.As(e, &ce) || !errors.Is(e, ErrMissingProgram) || ce.File != "/p/.moteur/config.yaml" ||
			ce.Key != "hooks.PreToolUse[0].hooks["+strconv.Itoa(i)+"].command" {
			t.Fatalf("report %d = %v", i, e)
		}
	}
	if !strings.Contains(errs[0].Error(), filepath.Join(p.root, ".moteur/hooks/nope.sh")) || !strings.Contains(errs[1].Error(), "no-such-program-xyz") {
		t.Fatalf("reports do not name the program: %v", errs)
	}
	in := p.input(PreToolUse)
	in.ToolName, in.ToolInput = "shell_exec", raw(t, map[string]any{"command": "ls"})
	o, rec := run(t, s, in)
	if o.Block || len(rec.completed) != 2 {
		t.Fatalf("Outcome %+v, %d completions", o, len(rec.completed))
	}
	for _, res := range rec.completed {
		if res.ExitCode != 127 || res.Err == nil || !strings.Contains(res.Err.Error(), "/p/.moteur/config.yaml: hooks.PreToolUse[0]") ||
			!strings.Contains(res.Err.Error(), "not found") {
			t.Fatalf("Result = %+v", res)
		}
	}
}

// The hooks of one event run at the same time: each waits for the other
// to have started, which sequential runs would never see.
func TestParallel(t *testing.T) {
	p := newProject(t)
	a := `touch a; for i in $(seq 500); do [ -f b ] && exit 0; sleep 0.01; done; exit 1`
	b := `touch b; for i in $(seq 500); do [ -f a ] && exit 0; sleep 0.01; done; exit 1`
	s := p.set(map[string][]Group{"Notification": one("", a, b)})
	_, rec := run(t, s, p.input(Notification))
	for _, res := range rec.completed {
		if res.ExitCode != 0 {
			t.Fatalf("a hook did not see the other running: %+v", rec.completed)
		}
	}
	if len(rec.completed) != 2 {
		t.Fatalf("%d completions", len(rec.completed))
	}
}

func TestEnvironmentAndDirectory(t *testing.T) {
	p := newProject(t)
	sub := filepath.Join(p.root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	s := p.set(map[string][]Group{"SessionStart": one("", `echo "$PWD|$CLAUDE_PROJECT_DIR|$MOTEUR_PROJECT_DIR"`)})
	in := p.input(SessionStart)
	in.CWD = sub
	if o, _ := run(t, s, in); o.Context != sub+"|"+p.root+"|"+p.root {
		t.Fatalf("context = %q", o.Context)
	}
}

// SessionStart's matcher is tested against its source, as in Claude Code.
func TestSessionStartMatcherOnSource(t *testing.T) {
	p := newProject(t)
	s := p.set(map[string][]Group{"SessionStart": append(one("resume", "echo resumed"), one("startup", `grep -q '"source":"startup"' && echo fresh`)...)})
	in := p.input(SessionStart)
	if o, _ := run(t, s, in); o.Context != "fresh" {
		t.Fatalf("startup context = %q", o.Context)
	}
	in.Reason = "resume"
	if o, _ := run(t, s, in); o.Context != "resumed" {
		t.Fatalf("resume context = %q", o.Context)
	}
}

func TestContinueFalseStops(t *testing.T) {
	p := newProject(t)
	s := p.set(map[string][]Group{"PostToolUse": one("Edit", `grep -q '"tool_response":"ok"' && echo '{"continue":false,"stopReason":"build broken","suppressOutput":true}'`)})
	in := p.input(PostToolUse)
	in.ToolName, in.ToolInput, in.ToolResponse = "edit_file", raw(t, map[string]any{"path": "a", "edits": []any{}}), raw(t, "ok")
	o, rec := run(t, s, in)
	if res := rec.only(t); !o.Stop || o.StopReason != "build broken" || res.Output != "" {
		t.Fatalf("Outcome %+v, Result %+v: want a stop, output suppressed", o, res)
	}
}

func TestCancelKills(t *testing.T) {
	p := newProject(t)
	started := filepath.Join(p.root, "started")
	s := p.set(map[string][]Group{"Notification": one("", "touch "+strconv.Quote(started)+"; exec sleep 300")})
	ctx, cancel := context.WithCancel(context.Background())
	rec := &recorder{}
	done := make(chan Outcome)
	go func() { done <- s.Run(ctx, p.input(Notification), rec) }()
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		<-time.After(5 * time.Millisecond)
	}
	cancel()
	<-done
	if res := rec.only(t); !errors.Is(res.Err, context.Canceled) {
		t.Fatalf("Result.Err = %v, want canceled", res.Err)
	}
}
