package mcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/redact"
)

// baseEnvNames are the variables a stdio server inherits from Moteur's
// environment: what a program needs to find its interpreter, its home and
// its locale, and nothing that is commonly a secret. Everything else a
// server needs must be named in its configuration's "env" (where ${VAR}
// can forward a variable of Moteur's on purpose). Proxy settings are not
// inherited: they often hold a password.
var baseEnvNames = []string{
	"HOME", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LOGNAME", "PATH",
	"SHELL", "TERM", "TMPDIR", "TZ", "USER",
}

// BaseEnv returns the names of the variables every stdio server inherits.
func BaseEnv() []string { return slices.Clone(baseEnvNames) }

// childEnv is the whole environment of a stdio server.
func childEnv(sc ServerConfig, lookup LookupFunc) []string {
	env := map[string]string{}
	if lookup != nil {
		for _, k := range baseEnvNames {
			if v, ok := lookup(k); ok {
				env[k] = v
			}
		}
	}
	for k, v := range sc.Env {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// stdioProc is a running stdio server: its process group and what it
// wrote that was not protocol.
type stdioProc struct {
	cmd   *exec.Cmd
	pgid  int
	stdin *os.File
	diag  *tailBuffer
	grace time.Duration

	exited     chan struct{} // closed once the leader exited and the group is killed
	exitErr    error         // set before exited is closed
	stderrDone chan struct{} // closed once stderr is read to its end
}

// startStdio starts sc's command in its own process group and returns the
// SDK transport over its stdin and stdout. The command's working directory
// is sc.Cwd, else dir.
func startStdio(sc ServerConfig, cfg *ManagerConfig) (*stdioProc, mcpsdk.Transport, error) {
	cmd := exec.Command(sc.Command, sc.Args...)
	cmd.Env = childEnv(sc, cfg.LookupEnv)
	cmd.Dir = firstNonEmpty(sc.Cwd, cfg.WorkDir)
	// Its own group, so that Close reaches the programs it starts too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	// Pipes made here rather than by exec, so that reaping the process
	// (cmd.Wait) never closes a pipe before its last bytes are read.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, nil, fmt.Errorf("starting %s: %w", sc.Command, err)
	}
	closeAll(inR, outW, errW) // the child's ends

	p := &stdioProc{
		cmd: cmd, pgid: cmd.Process.Pid, stdin: inW,
		diag:       newTailBuffer(cfg.StderrBytes),
		grace:      cfg.ShutdownGrace,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	go p.copyStderr(errR)
	go p.reap()
	t := &mcpsdk.IOTransport{
		Reader:        &noiseFilter{r: bufio.NewReaderSize(outR, 64<<10), diag: p.diag, closer: outR},
		Writer:        inW,
		MaxLineLength: cfg.MaxMessageBytes,
	}
	return p, t, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

func (p *stdioProc) copyStderr(r *os.File) {
	defer close(p.stderrDone)
	defer r.Close()
	_, _ = io.Copy(p.diag, r)
}

// settle waits, for at most d, until the process has exited and its last
// words on stderr are read, so that an error can quote them.
func (p *stdioProc) settle(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for _, ch := range []chan struct{}{p.exited, p.stderrDone} {
		select {
		case <-ch:
		case <-t.C:
			return
		}
	}
}

// stop ends the server as the MCP spec asks of a client: close its stdin,
// wait, SIGTERM, wait, SIGKILL, each to the whole group.
func (p *stdioProc) stop() {
	p.stdin.Close()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t := time.NewTimer(p.grace)
		select {
		case <-p.exited:
			t.Stop()
			return
		case <-t.C:
		}
		_ = syscall.Kill(-p.pgid, sig)
	}
	<-p.exited // SIGKILL cannot be refused
}

// describeExit says how the process ended, for errors: "exit status 3",
// "signal: killed"; "" while it runs.
func (p *stdioProc) describeExit() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	var ee *exec.ExitError
	if errors.As(p.exitErr, &ee) {
		return ee.ProcessState.String()
	}
	if p.exitErr != nil {
		return p.exitErr.Error()
	}
	return "exit status 0"
}

// noiseFilter drops what a server writes on stdout between messages that
// cannot start one (a log line printed by mistake), keeping it for
// diagnostics. Inside a message everything passes: the SDK's decoder
// judges it. The white space between messages passes too, since the
// decoder checks that a message is followed by a line break.
type noiseFilter struct {
	r      *bufio.Reader
	diag   *tailBuffer
	closer io.Closer

	inValue  bool // inside a JSON value
	depth    int
	inString bool
	escape   bool
}

func (f *noiseFilter) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for !f.inValue {
		b, err := f.r.ReadByte()
		if err != nil {
			return 0, err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			p[0] = b
			return 1, nil
		case '{', '[':
			_ = f.r.UnreadByte()
			f.inValue = true
		default:
			_ = f.r.UnreadByte()
			f.dropLine()
		}
	}
	if f.r.Buffered() == 0 {
		if _, err := f.r.Peek(1); err != nil {
			return 0, err
		}
	}
	buf, _ := f.r.Peek(min(len(p), f.r.Buffered()))
	n := f.scan(buf)
	copy(p, buf[:n])
	_, _ = f.r.Discard(n)
	return n, nil
}

// scan follows the JSON value's nesting through buf and returns how many
// bytes of buf belong to it.
func (f *noiseFilter) scan(buf []byte) int {
	for i, c := range buf {
		if f.inString {
			switch {
			case f.escape:
				f.escape = false
			case c == '\\':
				f.escape = true
			case c == '"':
				f.inString = false
			}
			continue
		}
		switch c {
		case '"':
			f.inString = true
		case '{', '[':
			f.depth++
		case '}', ']':
			f.depth--
			if f.depth <= 0 {
				f.depth, f.inValue = 0, false
				return i + 1
			}
		}
	}
	return len(buf)
}

// maxNoiseLine bounds what is kept of one dropped line.
const maxNoiseLine = 512

func (f *noiseFilter) dropLine() {
	kept := 0
	fmt.Fprint(f.diag, "[stdout, not JSON-RPC] ")
	for {
		b, err := f.r.ReadByte()
		if err != nil || b == '\n' {
			break
		}
		if kept < maxNoiseLine {
			f.diag.Write([]byte{b})
			kept++
		}
	}
	f.diag.Write([]byte{'\n'})
}

func (f *noiseFilter) Close() error { return f.closer.Close() }

// tailBuffer keeps the last bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64
}

func newTailBuffer(n int) *tailBuffer { return &tailBuffer{max: n} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns the tail, masked, from its first whole line when bytes
// were dropped (so that no fragment of a cut secret leads it).
func (t *tailBuffer) String() string {
	t.mu.Lock()
	s := string(t.buf)
	cut := t.total > int64(len(t.buf))
	t.mu.Unlock()
	if cut {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		s = "…" + s
	}
	s, _ = redact.String(strings.TrimSpace(s))
	return s
}
