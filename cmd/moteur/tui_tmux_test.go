package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/internal/testenv"
	"github.com/moteur/moteur/provider/openai/openaitest"
)

// tmuxPane is a pane of a tmux server of the test's own (its own socket),
// 100×30, running one command.
type tmuxPane struct {
	t      *testing.T
	socket string
}

func newTmuxPane(t *testing.T, dir, command string) *tmuxPane {
	t.Helper()
	testenv.Program(t, "tmux", "apt-get install tmux (.ci/run installs it)")
	p := &tmuxPane{t: t, socket: fmt.Sprintf("moteur-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	p.tmux("new-session", "-d", "-x", "100", "-y", "30", "-c", dir, command)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys sends tmux key names (Left, Up, Enter, C-c) or literal text.
func (p *tmuxPane) keys(keys ...string) { p.tmux(append([]string{"send-keys", "-t", "0"}, keys...)...) }
func (p *tmuxPane) text(s string)       { p.tmux("send-keys", "-t", "0", "-l", s) }
func (p *tmuxPane) screen() string      { return p.tmux("capture-pane", "-p", "-t", "0") }

// waitFor polls the screen until ok accepts it, for up to 30 s.
func (p *tmuxPane) waitFor(what string, ok func(string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		s := p.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no %s on the screen within 30 s; the screen:\n%s", what, s)
		}
		<-tick.C
	}
}

func (p *tmuxPane) waitText(s string) string {
	p.t.Helper()
	return p.waitFor(fmt.Sprintf("%q", s), func(screen string) bool { return strings.Contains(screen, s) })
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestChatTUIInARealTerminal runs the moteur binary's chat in tmux: typing
// with the arrow keys edits the line, the answer is shown as Markdown,
// Up brings the prompt back, and Ctrl-C clears then quits.
func TestChatTUIInARealTerminal(t *testing.T) {
	testenv.Program(t, "tmux", "apt-get install tmux (.ci/run installs it)")
	bin := moteurBinary(t)
	srv := openaitest.NewServer(t, openaitest.Answer("Bonjour **monde**, from the model."),
		openaitest.Calls("call_1", "write_file", `{"path":"a.txt","content":"new line\n"}`),
		openaitest.Answer("done writing"))
	project := t.TempDir()
	env := []string{
		"HOME=" + t.TempDir(), "MOTEUR_HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir(),
		"MOTEUR_LANG=en", "MOTEUR_BASE_URL=" + srv.BaseURL(), "MOTEUR_MODEL=test-model",
		"MOTEUR_API_KEY=sk-test", "TERM=xterm-256color", "PATH=" + os.Getenv("PATH"),
	}
	var cmd strings.Builder
	cmd.WriteString("env -i")
	for _, e := range env {
		cmd.WriteString(" " + shellQuote(e))
	}
	cmd.WriteString(" " + shellQuote(bin) + " chat --trust-project --mode confirm; echo \"moteur exited with status $?\"; read wait")
	p := newTmuxPane(t, project, cmd.String())

	p.waitText("test-model")
	p.text("helo")
	p.keys("Left")
	p.text("l")
	p.waitText("› hello")
	p.keys("Enter")
	screen := p.waitFor("the answer, its turn over", func(s string) bool {
		return strings.Contains(s, "from the model.") && !strings.Contains(s, "working")
	})
	if strings.Contains(screen, "**monde**") {
		t.Errorf("the answer's Markdown was not rendered:\n%s", screen)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if msgs := reqs[0].Messages; msgs[len(msgs)-1].Content != "hello" {
		t.Fatalf("the model got %q, want hello (the line as edited)", msgs[len(msgs)-1].Content)
	}
	// Up brings the prompt back into the editor.
	p.keys("Up")
	p.waitFor("the prompt brought back by Up", func(s string) bool { return strings.Count(s, "› hello") == 2 })
	// Ctrl-C clears the line.
	p.keys("C-c")
	p.waitFor("the line cleared", func(s string) bool { return strings.Count(s, "› hello") == 1 })
	// A write asks, with its diff; y allows it.
	p.text("write it")
	p.keys("Enter")
	p.waitFor("the approval dialog with the diff", func(s string) bool {
		return strings.Contains(s, "Permission needed") && strings.Contains(s, "+new line")
	})
	p.text("y")
	p.waitFor("the answer after the write", func(s string) bool {
		return strings.Contains(s, "done writing") && !strings.Contains(s, "working")
	})
	if b, err := os.ReadFile(filepath.Join(project, "a.txt")); err != nil || string(b) != "new line\n" {
		t.Errorf("a.txt: %q, %v; want the approved write", b, err)
	}
	// A 1 MB bracketed paste does not hang the editor: it is kept whole
	// behind a placeholder.
	big := filepath.Join(t.TempDir(), "paste.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("0123456789abcdef\n", 1<<16)), 0o600); err != nil {
		t.Fatal(err)
	}
	p.tmux("load-buffer", big)
	pasted := time.Now()
	p.tmux("paste-buffer", "-p", "-t", "0")
	p.waitText("[paste #1: 1114112 bytes, 65536 lines]")
	t.Logf("1 MB paste shown in %v", time.Since(pasted))
	p.keys("C-c")
	p.waitFor("the paste cleared", func(s string) bool { return !strings.Contains(s, "[paste #1") })
	// Ctrl-C on the empty line quits, and the session's id stays on the
	// screen.
	p.keys("C-c")
	screen = p.waitText("moteur exited with status 0")
	if !strings.Contains(screen, "session: s-") {
		t.Errorf("no session id after the chat:\n%s", screen)
	}
}
