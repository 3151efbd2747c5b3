package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// writeFiles writes files (path relative to root → content), making their
// directories.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(rel, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

const greetSkill = "---\nname: greet\ndescription: Greets someone by name. Use when asked for a greeting.\n---\n# Greet\nRun `sh scripts/greet.sh NAME` with shell_exec(skill_name=\"greet\").\n\nGreet $ARGUMENTS.\n"

// TestRunSkillRecordsWhatWasInvoked: --skill sends the skill's
// instructions with the arguments, and the UserMessage records what was
// typed, the skill and the SHA-256 of the SKILL.md read; the system prompt
// lists the skills; skills list shows it and reports a broken package.
func TestRunSkillRecordsWhatWasInvoked(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("Bonjour Ada"))
	h := newHarness(t, srv.BaseURL())
	writeFiles(t, h.dir, map[string]string{
		".moteur/skills/greet/SKILL.md":         greetSkill,
		".moteur/skills/greet/scripts/greet.sh": "#!/bin/sh\necho \"Hello, $1!\"\n",
		".claude/skills/Broken/SKILL.md":        "no front matter\n",
	})
	res, evs := h.runJSON(t, "--skill", "greet", "Ada")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	users := payloads[event.UserMessagePayload](evs)
	sum := sha256.Sum256([]byte(greetSkill))
	if len(users) != 1 || users[0].Skill != "greet" || users[0].Typed != "/greet Ada" ||
		users[0].SkillSHA256 != hex.EncodeToString(sum[:]) || !strings.Contains(users[0].Text, "Greet Ada.") {
		t.Fatalf("UserMessage = %+v", users)
	}
	req := srv.Requests()[0]
	if !strings.Contains(req.Messages[0].Content, "greet") || !strings.Contains(req.Messages[0].Content, "Greets someone by name") {
		t.Errorf("the system prompt does not list the skill:\n%s", req.Messages[0].Content)
	}
	if res := h.run(t, "run", "--skill", "nosuch", "x"); res.code != 2 || !strings.Contains(res.stderr, "nosuch") {
		t.Errorf("unknown skill: exit %d, %s", res.code, res.stderr)
	}
	res = h.run(t, "skills", "list", "--json")
	var rep struct {
		Skills   []struct{ Name, Source string }
		Problems []string
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || res.code != 0 {
		t.Fatalf("skills list: %v, exit %d: %s %s", err, res.code, res.stdout, res.stderr)
	}
	if len(rep.Skills) != 1 || rep.Skills[0].Name != "greet" || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "Broken") {
		t.Fatalf("skills list: %+v", rep)
	}
}

// TestAgentsListReadsClaudeCodeFiles: a sub-agent file in Claude Code's
// format is listed with its tools mapped to Moteur's, beside the
// built-ins; a file that cannot be used is reported with why.
func TestAgentsListReadsClaudeCodeFiles(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1/v1")
	writeFiles(t, h.dir, map[string]string{
		".claude/agents/code-reviewer.md": "---\nname: code-reviewer\ndescription: Reviews code right after it changes.\ntools: Read, Grep, Glob\n---\nYou review code.\n",
		".claude/agents/broken.md":        "---\nname: Broken Name\ndescription: x\n---\n",
	})
	res := h.run(t, "agents", "list", "--json")
	var rep struct {
		Agents []struct {
			Name  string
			Tools []string
		}
		Problems []string
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || res.code != 0 {
		t.Fatalf("agents list: %v, exit %d: %s %s", err, res.code, res.stdout, res.stderr)
	}
	byName := map[string][]string{}
	for _, a := range rep.Agents {
		byName[a.Name] = a.Tools
	}
	if got := strings.Join(byName["code-reviewer"], ","); got != "read_file,grep,glob" {
		t.Errorf("code-reviewer's tools: %q", got)
	}
	if _, ok := byName["general-purpose"]; !ok {
		t.Errorf("no built-in general-purpose: %+v", rep.Agents)
	}
	if _, ok := byName["explore"]; !ok {
		t.Errorf("no built-in explore: %+v", rep.Agents)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "broken.md") {
		t.Errorf("problems: %v", rep.Problems)
	}
}

// TestProjectHookRunsOnlyOnceTrusted: a PreToolUse hook of the project's
// configuration, written for Claude Code (matcher Bash, exit 2), is not run
// before the user trusts it — the call runs, and a warning says why — and
// once trusted it blocks the command, its stderr the model's result; its
// runs are recorded.
func TestProjectHookRunsOnlyOnceTrusted(t *testing.T) {
	script := "#!/bin/sh\ncat > \"$CLAUDE_PROJECT_DIR/hook-input.json\"\necho 'no shell here' >&2\nexit 2\n"
	call := `{"command":"echo ran > ran.txt"}`
	srv := openaitest.NewServer(t,
		openaitest.Calls("call_1", "shell_exec", call), openaitest.Answer("one"),
		openaitest.Calls("call_2", "shell_exec", call), openaitest.Answer("two"))
	h := newHarness(t, srv.BaseURL())
	h.env["PATH"] = os.Getenv("PATH")
	writeFiles(t, h.dir, map[string]string{"hooks/block.sh": script})
	h.writeProjectConfig(t, "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: '\"$CLAUDE_PROJECT_DIR\"/hooks/block.sh'\n")
	res, evs := h.runJSON(t, "--sandbox", "none", "run a command")
	if res.code != 0 || !strings.Contains(res.stderr, "not trusted") {
		t.Fatalf("untrusted: exit %d: %s", res.code, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "ran.txt")); err != nil || len(payloads[event.HookStartedPayload](evs)) != 0 {
		t.Fatalf("untrusted: the command did not run (%v), or a hook ran", err)
	}
	os.Remove(filepath.Join(h.dir, "ran.txt"))
	res, evs = h.runJSON(t, "--sandbox", "none", "--trust-project", "run a command")
	if res.code != 0 {
		t.Fatalf("trusted: exit %d: %s", res.code, res.stderr)
	}
	results := payloads[event.ToolResultPayload](evs)
	if len(results) != 1 || !results[0].IsError || !strings.Contains(results[0].Content, "no shell here") {
		t.Fatalf("trusted: result %+v", results)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "ran.txt")); err == nil {
		t.Fatal("trusted: the blocked command ran")
	}
	done := payloads[event.HookCompletedPayload](evs)
	if len(done) != 1 || done[0].ExitCode != 2 || !done[0].Blocked || len(payloads[event.HookStartedPayload](evs)) != 1 {
		t.Fatalf("hook events: %+v", done)
	}
	// The hook read Claude Code's shape: tool_name Bash, tool_input.command.
	var in struct {
		Event    string `json:"hook_event_name"`
		ToolName string `json:"tool_name"`
		Input    struct {
			Command string `json:"command"`
		} `json:"tool_input"`
	}
	b, err := os.ReadFile(filepath.Join(h.dir, "hook-input.json"))
	if err != nil || json.Unmarshal(b, &in) != nil || in.Event != "PreToolUse" || in.ToolName != "Bash" || in.Input.Command != "echo ran > ran.txt" {
		t.Fatalf("the hook read %s (%v)", b, err)
	}
}

// TestChatListsSkillsAndAgentsAndRunsASkill: /skills and /agents list what
// the session has, and /NAME ARGS runs the skill, recorded as one.
func TestChatListsSkillsAndAgentsAndRunsASkill(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("Hello, Ada!"))
	h := newHarness(t, srv.BaseURL())
	writeFiles(t, h.dir, map[string]string{".moteur/skills/greet/SKILL.md": greetSkill})
	h.stdin = strings.NewReader("/skills\n/agents\n/greet Ada\n")
	res := h.run(t, "chat", "--new-session", "s-skill")
	if res.code != 0 || !strings.Contains(res.stdout, "/greet") || !strings.Contains(res.stdout, "general-purpose") ||
		!strings.Contains(res.stdout, "Hello, Ada!") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	users := payloads[event.UserMessagePayload](h.load(t, "s-skill"))
	if len(users) != 1 || users[0].Skill != "greet" || users[0].Typed != "/greet Ada" || !strings.Contains(users[0].Text, "Greet Ada.") {
		t.Fatalf("UserMessage = %+v", users)
	}
}
