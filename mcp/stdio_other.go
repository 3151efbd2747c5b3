//go:build !linux

package mcp

import "syscall"

// reap waits for the leader, then kills what is left of its group.
// Without waitid(WNOWAIT) the leader is reaped first, so in principle the
// group's id could have been reused in between; Linux does better.
func (p *stdioProc) reap() {
	p.exitErr = p.cmd.Wait()
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	close(p.exited)
}
