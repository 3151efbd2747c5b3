package shell

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"
)

// Timing of a group's end.
const (
	// pollInterval is how often a stopping group is checked for survivors.
	pollInterval = 10 * time.Millisecond
	// killWait bounds the wait for the group to die after SIGKILL: only a
	// process stuck in the kernel (a dead NFS mount) outlives it, and the
	// call returns rather than hang with it.
	killWait = 5 * time.Second
)

// group is the process group of one command: its leader (the shell, or
// bwrap) started with Setsid, so the group id is the leader's pid and every
// process the command starts belongs to it unless it leaves on purpose.
type group struct {
	pgid int
	done <-chan struct{} // closed once the leader has been reaped
}

// stop ends every process of the group: SIGTERM, so that well-behaved
// programs clean up, then SIGKILL once grace has passed with any of them
// alive — a process that ignores SIGTERM still dies. It waits for the
// leader to be reaped and the others to die (at most killWait after
// SIGKILL) and reports whether they did.
//
// With bwrap the leader is bwrap itself: SIGTERM kills it, --die-with-parent
// then kills the sandbox's init, and the kernel kills every process of the
// sandbox's pid namespace with it, whichever group they moved to.
func (g group) stop(grace time.Duration) bool {
	g.signal(syscall.SIGTERM)
	if g.waitGone(grace) {
		return true
	}
	g.signal(syscall.SIGKILL)
	// SIGKILL cannot be caught, but it is delivered when the process is
	// next scheduled, not when kill returns: wait until it has taken
	// effect, so that nothing of the group runs once the call is over.
	return g.waitGone(killWait)
}

// signal sends sig to the whole group. A group that is already empty is
// not an error.
func (g group) signal(sig syscall.Signal) {
	// The group id cannot have been reused: the kernel keeps a pid number
	// allocated while any process still uses it as its group id, and once
	// the group is empty there is nothing left to signal.
	_ = syscall.Kill(-g.pgid, sig)
}

// waitGone waits up to d for the leader to be reaped and no member of the
// group to be left alive.
func (g group) waitGone(d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		if g.gone() {
			return true
		}
		select {
		case <-deadline.C:
			return g.gone()
		case <-g.done:
		case <-tick.C:
		}
	}
}

// gone reports whether the leader has been reaped and no process of the
// group is still running.
func (g group) gone() bool {
	select {
	case <-g.done:
	default:
		return false
	}
	return !g.membersAlive()
}

// membersAlive reports whether a process other than a zombie is in the
// group. kill(-pgid, 0) answers cheaply when the group is empty, but it
// counts zombies too: orphans are reparented to an init that, in many
// containers, never reaps them, and a dead process must not hold the call
// for the whole grace. So a positive answer is checked against /proc.
func (g group) membersAlive() bool {
	err := syscall.Kill(-g.pgid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return false
	}
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	alive, ok := liveInGroup(g.pgid)
	if !ok {
		return true // no /proc to tell: trust kill
	}
	return alive
}

// liveInGroup scans /proc for a process of group pgid that is not a
// zombie. ok is false when /proc cannot be read.
func liveInGroup(pgid int) (alive, ok bool) {
	d, err := os.Open("/proc")
	if err != nil {
		return false, false
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return false, false
	}
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		state, pg, ok := procStat(n)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			return true, true
		}
	}
	return false, true
}

// procStat reads the state and process group of /proc/<pid>/stat. The
// command name, in parentheses, may hold spaces and parentheses itself, so
// fields are counted from the last ')'.
func procStat(pid string) (state byte, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0, false // gone meanwhile
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	// After ") ": state ppid pgrp …
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}
