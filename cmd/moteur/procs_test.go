package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// procs runs the moteur binary (built with the test tools) as real
// processes that share one data directory, one project and one scripted
// server, as several terminals of one user do.
type procs struct {
	t       *testing.T
	ctx     context.Context
	bin     string
	home    string
	project string
	env     []string
}

func newProcs(t *testing.T, baseURL string) *procs {
	t.Helper()
	bin := moteurBinary(t)
	// The deadline only stops a test that hangs: every wait is on an
	// output line, a file or an exit.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	p := &procs{t: t, ctx: ctx, bin: bin, home: t.TempDir(), project: t.TempDir()}
	p.env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MOTEUR_HOME=" + p.home, "MOTEUR_LANG=en",
		"MOTEUR_BASE_URL=" + baseURL, "MOTEUR_MODEL=test-model", "MOTEUR_API_KEY=sk-test",
	}
	return p
}

func (p *procs) command(args ...string) *exec.Cmd {
	cmd := exec.CommandContext(p.ctx, p.bin, args...)
	cmd.Dir, cmd.Env = p.project, p.env
	return cmd
}

// run runs moteur to its end, standard input empty (not a terminal).
func (p *procs) run(args ...string) result {
	p.t.Helper()
	return p.runWithInput("", args...)
}

// runWithInput runs moteur to its end with stdin as its standard input.
func (p *procs) runWithInput(stdin string, args ...string) result {
	p.t.Helper()
	cmd := p.command(args...)
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &errOut
	return result{code: exitCodeOf(p.t, cmd.Run()), stdout: out.String(), stderr: errOut.String()}
}

// exitCodeOf is the exit status of a finished command.
func exitCodeOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode()
	}
	t.Fatalf("moteur did not exit: %v", err)
	return -1
}

// proc is a moteur process running, whose output lines can be waited on.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr *lineLog
	reading        sync.WaitGroup
}

// start starts moteur, standard input empty (not a terminal).
func (p *procs) start(args ...string) *proc {
	p.t.Helper()
	pr := &proc{cmd: p.command(args...), stdout: &lineLog{}, stderr: &lineLog{}}
	outPipe, err := pr.cmd.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	errPipe, err := pr.cmd.StderrPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	if err := pr.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	for _, r := range []struct {
		from io.Reader
		to   *lineLog
	}{{outPipe, pr.stdout}, {errPipe, pr.stderr}} {
		pr.reading.Add(1)
		go func() {
			defer pr.reading.Done()
			r.to.read(r.from)
		}()
	}
	return pr
}

// wait waits for the process to end, its output read, and returns its
// error as exec.Cmd.Wait does.
func (pr *proc) wait() error {
	pr.reading.Wait()
	return pr.cmd.Wait()
}

// lineLog is the lines a process wrote on one stream, as they come.
type lineLog struct {
	mu    sync.Mutex
	cond  *sync.Cond
	lines []string
	ended bool
}

func (l *lineLog) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l.add(sc.Text(), false)
	}
	l.add("", true)
}

func (l *lineLog) add(line string, end bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if end {
		l.ended = true
	} else {
		l.lines = append(l.lines, line)
	}
	if l.cond != nil {
		l.cond.Broadcast()
	}
}

// waitFor waits for a line that match accepts and returns it; the test
// fails when the stream ends without one.
func (l *lineLog) waitFor(t *testing.T, what string, match func(string) bool) string {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cond == nil {
		l.cond = sync.NewCond(&l.mu)
	}
	for n := 0; ; {
		for ; n < len(l.lines); n++ {
			if match(l.lines[n]) {
				return l.lines[n]
			}
		}
		if l.ended {
			t.Fatalf("the output ended without %s:\n%s", what, strings.Join(l.lines, "\n"))
		}
		l.cond.Wait()
	}
}

// waitForText waits for a line that contains s.
func (l *lineLog) waitForText(t *testing.T, s string) string {
	t.Helper()
	return l.waitFor(t, "a line with "+s, func(line string) bool { return strings.Contains(line, s) })
}

// text is the lines written so far.
func (l *lineLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n") + "\n"
}
