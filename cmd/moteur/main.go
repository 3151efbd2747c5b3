// Command moteur runs tool-using LLM agents from the terminal. It is a thin
// shell over package app, which assembles every session, and package
// engine, which runs it: flags, prompts and questions in, rendered events
// out.
//
// Exit status: 0 when the command succeeded, 1 when it failed, 2 on bad
// usage (unknown command or flag, missing argument, no model configured).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// SIGTERM ends the command gracefully: the turn is cancelled, which the
	// engine closes properly (no further model request, TurnCompleted cancelled in the log).
	// Once it has been delivered, default handling comes back so a second
	// one kills the process. Ctrl-C (SIGINT) is left to the commands, which
	// take it through cli.interrupts: run cancels its turn, chat the current
	// turn only.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := execute(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// notifyInterrupts delivers each Ctrl-C (SIGINT) on the channel until stop
// is called; then Ctrl-C has its default effect again (the process ends).
func notifyInterrupts() (ch <-chan os.Signal, stop func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	return c, func() { signal.Stop(c) }
}

// Exit statuses of the contract (DESIGN.md, "Contracts").
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// statusError carries the exit status a failure maps to, and whether the
// usage hint should follow its message.
type statusError struct {
	code int
	hint bool
	err  error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// usageErrorf reports a mistake in the command line (exit 2, usage hint).
func usageErrorf(format string, args ...any) error {
	return &statusError{code: exitUsage, hint: true, err: fmt.Errorf(format, args...)}
}

// configError reports an unusable configuration (exit 2, no hint: the
// message itself says what to set).
func configError(err error) error {
	return &statusError{code: exitUsage, err: err}
}

// failure marks err as a runtime failure (exit 1) unless it already carries
// a status.
func failure(err error) error {
	var se *statusError
	if err == nil || errors.As(err, &se) {
		return err
	}
	return &statusError{code: exitError, err: err}
}

// exitStatus maps an error to the process exit status and tells whether the
// usage hint applies. Errors without a status come from cobra itself, before
// any command ran (unknown command or flag, wrong arguments): bad usage.
func exitStatus(err error) (code int, hint bool) {
	if err == nil {
		return exitOK, false
	}
	var se *statusError
	if errors.As(err, &se) {
		return se.code, se.hint
	}
	return exitUsage, true
}
