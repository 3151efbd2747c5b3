//go:build unix

package session

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process of this host has the pid. Only a
// definite "no such process" counts as dead: a process of another user
// (EPERM) is alive.
func processAlive(pid int) bool {
	if pid <= 0 {
		return true // cannot tell: never take a lease over on a guess
	}
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
