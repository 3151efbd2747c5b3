package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"
)

// maxCapture bounds what is kept of a hook's stdout and of its stderr; the
// rest is read and dropped, so that a chatty hook neither blocks on a full
// pipe nor fills memory.
const maxCapture = 1 << 20

// waitDelay bounds the wait for a hook's pipes once it has exited: a
// process it left in the background holding them open must not hold the
// turn.
const waitDelay = 2 * time.Second

// ErrTimeout is wrapped by the Result.Err of a hook stopped at its
// timeout.
var ErrTimeout = errors.New("timed out")

// procResult is one finished hook process.
type procResult struct {
	exit           int // -1: did not run to an exit
	stdout, stderr []byte
	err            error
}

// execHook runs command with stdin, in dir, with env, for at most timeout,
// killing its whole process group when the time is up or ctx ends.
func execHook(ctx context.Context, shell, command, dir string, env []string, stdin []byte, timeout time.Duration) procResult {
	cmd := exec.Command(shell, "-c", command)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb capped
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = waitDelay
	setGroup(cmd)
	if err := cmd.Start(); err != nil {
		return procResult{exit: -1, err: fmt.Errorf("start %s: %w", shell, err)}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var stopped error
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		stopped = fmt.Errorf("%w after %v: killed with its process group", ErrTimeout, timeout)
	case <-ctx.Done():
		stopped = fmt.Errorf("stopped: %w", ctx.Err())
	}
	if stopped != nil {
		killGroup(cmd)
		<-done
		return procResult{exit: -1, stdout: out.bytes(), stderr: errb.bytes(), err: stopped}
	}
	r := procResult{exit: cmd.ProcessState.ExitCode(), stdout: out.bytes(), stderr: errb.bytes()}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		// ErrWaitDelay: it exited, but something it started kept its
		// output open; what was read is used.
		r.err = err
	}
	return r
}

// capped keeps the first maxCapture bytes written to it.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxCapture - c.buf.Len(); room < len(p) {
		c.buf.Write(p[:max(room, 0)])
		c.cut = true
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}
