package shell

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// drainWait is how long the output pipes may stay open once the process
// group is gone. Only a process that left the group (setsid, a daemon; never
// one inside bwrap, whose pid namespace died with it) can still hold them;
// the call does not wait for it.
const drainWait = 500 * time.Millisecond

// job is one command to run.
type job struct {
	path    string   // program: the shell, or bwrap
	args    []string // argv, argv[0] included
	dir     string
	env     []string
	stdin   string
	timeout time.Duration
	maxOut  int
	maxErr  int
	grace   time.Duration // between SIGTERM and SIGKILL
	// extra are the child's descriptors 3 onward (bwrap's seccomp
	// program); the caller keeps and closes them.
	extra []*os.File
}

// outcome is what happened to a job.
type outcome struct {
	state      *os.ProcessState // nil when the leader could not be reaped
	timeout    time.Duration
	timedOut   bool
	canceled   error // the context's cause when the call was cancelled
	leftovers  bool  // background processes were still running at exit
	unkillable bool  // a process of the group outlived SIGKILL by killWait
	incomplete bool  // a process outside the group kept the output open
	stdout     *capture
	stderr     *capture
}

// run starts j and waits for it to end, by itself, at its timeout or at
// ctx's end; either way nothing it started is left running when run
// returns (see group.stop for the exception). An error means the command
// could not be started.
func run(ctx context.Context, j job) (*outcome, error) {
	o := &outcome{timeout: j.timeout, stdout: newCapture(j.maxOut), stderr: newCapture(j.maxErr)}

	// The pipes are made here rather than by os/exec: its copying
	// goroutines make Wait block until every holder of the pipe has exited,
	// which a background process can delay forever. With plain files the
	// leader's exit and the end of the output are two events, handled
	// apart.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	defer outR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		_ = outW.Close()
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	defer errR.Close()
	childEnds := []*os.File{outW, errW}
	var inW *os.File
	cmd := &exec.Cmd{
		Path:       j.path,
		Args:       j.args,
		Dir:        j.dir,
		Env:        j.env,
		Stdout:     outW,
		Stderr:     errW,
		ExtraFiles: j.extra,
		// Setsid: a new session is a new process group (the unit of the
		// kill) and leaves the controlling terminal behind, so the
		// command can neither read the user's terminal nor inject input
		// into it.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if j.stdin != "" {
		var inR *os.File
		if inR, inW, err = os.Pipe(); err != nil {
			closeAll(childEnds)
			return nil, fmt.Errorf("stdin pipe: %w", err)
		}
		defer inW.Close()
		childEnds = append(childEnds, inR)
		cmd.Stdin = inR
	} // else stdin is /dev/null: a command that reads it ends at once.

	err = cmd.Start()
	// The child has its copies; ours must go, or the readers would never
	// see the end of the output.
	closeAll(childEnds)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", j.path, err)
	}

	var drained sync.WaitGroup
	live := newLiveLines(ctx)
	drained.Go(func() { _, _ = io.Copy(io.MultiWriter(o.stdout, live.stream()), outR) })
	drained.Go(func() { _, _ = io.Copy(io.MultiWriter(o.stderr, live.stream()), errR) })
	if inW != nil {
		// The write ends with EPIPE once no process holds the read end,
		// or is interrupted by the deferred Close when one that never
		// reads outlives the call: either way the goroutine ends.
		go func() {
			_, _ = io.WriteString(inW, j.stdin)
			_ = inW.Close()
		}()
	}

	done := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the status is read from cmd.ProcessState
		close(done)
	}()
	g := group{pgid: cmd.Process.Pid, done: done}

	timer := time.NewTimer(j.timeout)
	defer timer.Stop()
	select {
	case <-done:
		// Whatever the command left behind in the background goes too.
		if g.membersAlive() {
			o.leftovers = true
			o.unkillable = !g.stop(j.grace)
		}
	case <-timer.C:
		o.timedOut = true
		o.unkillable = !g.stop(j.grace)
	case <-ctx.Done():
		o.canceled = context.Cause(ctx)
		o.unkillable = !g.stop(j.grace)
	}
	select {
	case <-done:
		o.state = cmd.ProcessState // written by Wait before done closed
	default: // the leader outlived SIGKILL: no status to report
	}

	if !waitTimeout(&drained, drainWait) {
		o.incomplete = true
		// Unblocks the readers: the files are non-blocking, so Close
		// interrupts a pending Read.
		_ = outR.Close()
		_ = errR.Close()
		drained.Wait()
	}
	return o, nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// waitTimeout waits for wg at most d and reports whether it finished.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	ch := make(chan struct{})
	go func() {
		wg.Wait()
		close(ch)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}
